// JSON text for json fields. Native JSON.stringify throws on bigint, and Node 20 has no
// JSON.rawJSON to emit a raw number, so values holding a bigint take a slower hand-written path
// that writes it as a JSON number with its exact digits: other readers (DuckDB, Python, ...)
// keep every digit, while JSON.parse here gives back a number (rounded past 2^53).

/** JSON text of a value; bigints anywhere inside become JSON numbers with their exact digits. */
export function stringifyJson(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    // undefined, functions and symbols have no JSON text; JSON null is the closest reading.
    return text === undefined ? "null" : text;
  } catch (error) {
    if (!(error instanceof TypeError) || !hasBigInt(value, new Set())) throw error;
    return write(value, "", new Set()) ?? "null";
  }
}

function hasBigInt(value: unknown, seen: Set<object>): boolean {
  if (typeof value === "bigint") return true;
  if (typeof value !== "object" || value === null || seen.has(value)) return false;
  seen.add(value);
  for (const item of Object.values(value)) if (hasBigInt(item, seen)) return true;
  return false;
}

/** Mirrors JSON.stringify: toJSON, undefined skipped in objects and null in arrays, no cycles. */
function write(input: unknown, key: string, stack: Set<object>): string | undefined {
  let value = input;
  if (typeof value === "object" && value !== null && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    value = (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  switch (typeof value) {
    case "bigint":
      return value.toString();
    case "string":
    case "boolean":
    case "number":
      return JSON.stringify(value);
    case "object":
      break;
    default:
      return undefined;
  }
  if (value === null) return "null";
  if (value instanceof Number || value instanceof String || value instanceof Boolean) {
    return JSON.stringify(value);
  }
  if (stack.has(value)) throw new TypeError("Converting circular structure to JSON");
  stack.add(value);
  let text: string;
  if (Array.isArray(value)) {
    text = `[${value.map((item, i) => write(item, String(i), stack) ?? "null").join(",")}]`;
  } else {
    const parts: string[] = [];
    for (const [name, item] of Object.entries(value)) {
      const itemText = write(item, name, stack);
      if (itemText !== undefined) parts.push(`${JSON.stringify(name)}:${itemText}`);
    }
    text = `{${parts.join(",")}}`;
  }
  stack.delete(value);
  return text;
}
