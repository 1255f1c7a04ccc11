// How a message shows a value it was given, written once so that every layer words it alike.

const MAX_SHOWN = 60;

function clip(text: string): string {
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}...` : text;
}

/** A value as a message shows it: its kind, then the value (`string "12"`, `bigint 7n`, `Date 2026-...`, `class CSVDestination`). */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  switch (typeof value) {
    case "string":
      return `string ${clip(JSON.stringify(value))}`;
    case "number":
      return `number ${Object.is(value, -0) ? "-0" : String(value)}`;
    case "bigint":
      return `bigint ${clip(value.toString())}n`;
    case "boolean":
      return `boolean ${String(value)}`;
    case "object":
      return describeObject(value);
    case "function":
      // A class given where an instance was expected is a common slip: say which.
      return `${/^class\b/.test(Function.prototype.toString.call(value)) ? "class" : "function"} ${value.name || "(anonymous)"}`;
    default:
      return typeof value;
  }
}

function describeObject(value: object): string {
  if (value instanceof Date) {
    return Number.isNaN(value.getTime()) ? "invalid Date" : `Date ${value.toISOString()}`;
  }
  const kind = plainKind(value);
  // A Map or a class instance says more by its class name than by its JSON ("{}").
  if (kind === undefined) return className(value);
  try {
    const text = JSON.stringify(value, (_key, item: unknown) => (typeof item === "bigint" ? `${item}n` : item));
    return `${kind} ${clip(text)}`;
  } catch {
    return kind;
  }
}

/**
 * A value's kind alone, never its contents (for values that may hold secrets, or are too large
 * to show): `null`, `a number`, `an array`, `an object`, `a Map`.
 */
export function describeKind(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  const kind = typeof value === "object" ? (plainKind(value) ?? className(value)) : typeof value;
  return `${/^[aeiou]/i.test(kind) ? "an" : "a"} ${kind}`;
}

/** "array" or "object" for arrays and plain objects; undefined for instances of other classes. */
function plainKind(value: object): "array" | "object" | undefined {
  if (Array.isArray(value)) return "array";
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null ? "object" : undefined;
}

function className(value: object): string {
  return (value.constructor as { name?: string } | undefined)?.name || "object";
}
