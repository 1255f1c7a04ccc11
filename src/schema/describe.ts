// Wording shared by every schema message, so reconcile, conform and strict read alike.

const MAX_SHOWN = 60;

function clip(text: string): string {
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}...` : text;
}

/** A value as a message shows it: its kind, then the value (`string "12"`, `bigint 7n`). */
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
    default:
      return typeof value;
  }
}

function describeObject(value: object): string {
  if (value instanceof Date) {
    return Number.isNaN(value.getTime()) ? "invalid Date" : `Date ${value.toISOString()}`;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  const kind = Array.isArray(value) ? "array" : proto === Object.prototype || proto === null ? "object" : undefined;
  // A Map or a class instance says more by its class name than by its JSON ("{}").
  if (kind === undefined) return (value.constructor as { name?: string } | undefined)?.name ?? "object";
  try {
    const text = JSON.stringify(value, (_key, item: unknown) => (typeof item === "bigint" ? `${item}n` : item));
    return `${kind} ${clip(text)}`;
  } catch {
    return kind;
  }
}

/** `asset "orders": ` when the asset is known, so messages lead with what they concern. */
export function assetPrefix(assetKey: string | undefined): string {
  return assetKey === undefined ? "" : `asset "${assetKey}": `;
}

/** One problem per field, first seen, kept in the order the message lists them. */
export class FieldProblems {
  private readonly byField = new Map<string, { readonly rank: number; readonly text: string }>();

  /** Records a problem unless the field already has one; `rank` orders the listing. */
  add(field: string, rank: number, text: string): void {
    if (!this.byField.has(field)) this.byField.set(field, { rank, text });
  }

  has(field: string): boolean {
    return this.byField.has(field);
  }

  get size(): number {
    return this.byField.size;
  }

  /** `2 fields do not match the schema: a; b`, with the verb fitting the count. */
  summary(singular: string, plural: string): string {
    const n = this.byField.size;
    const listed = [...this.byField.values()]
      .sort((a, b) => a.rank - b.rank)
      .map((p) => p.text)
      .join("; ");
    return `${n} ${n === 1 ? `field ${singular}` : `fields ${plural}`}: ${listed}`;
  }
}
