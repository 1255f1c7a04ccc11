/**
 * Sets `target[key] = value` as an own data field, whatever the key. Assigning to "__proto__"
 * on an ordinary object does not make a field: it runs Object.prototype's setter, which drops an
 * object's column (a primitive) or makes the value the object's prototype (an object, whose keys
 * then read through the object as if they were its own). Every row or column object built from
 * stored data or column names sets its keys through this.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
