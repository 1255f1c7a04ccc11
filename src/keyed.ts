// Tables keyed by data: partition keys, list values, stored values. A plain `{}` is no such
// table: `table["constructor"]` reads Object.prototype's member where the table holds nothing,
// and `table["__proto__"] = n` sets its prototype instead of a key, so a list value named like
// one of them was counted as text or lost (issue 41.18).

/** An empty table for keys that come from data: no prototype, so every key is a key like any other. */
export function keyedTable<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** `table[key]` when the table holds that key itself (a table from elsewhere may be a plain object). */
export function ownEntry<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
