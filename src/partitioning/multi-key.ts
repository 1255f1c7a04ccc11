import { PartitionError } from "../errors.js";
import { describeValue } from "../text/describe-value.js";
import { count } from "../text/english.js";
import { exampleKeyOf, shapeOf, type MultiDimension } from "./multi-dimensions.js";

// The two spellings of a multi partition: the key `2026-01-05|eu` (paths, row counts, the
// catalog) and `date=2026-01-05,region=eu` (typed on the command line, in any order). Both read
// into the dimensions' own keys, in declared order; the config then parses each with its kind.

/** `"2026-01-05|eu"`: a real key of this shape, for messages. */
export function exampleKey(dimensions: readonly MultiDimension[]): string {
  return dimensions.map(exampleKeyOf).join("|");
}

/** `"date=2026-01-05,region=eu"`: the named form of the example key. */
export function exampleNamed(dimensions: readonly MultiDimension[]): string {
  return dimensions.map((d) => `${d.name}=${exampleKeyOf(d)}`).join(",");
}

/** How a message names what it was given: `partition key "x" of shop.stock`. */
export function givenKey(text: string, assetKey: string | undefined, noun = "partition key"): string {
  return `${noun} ${JSON.stringify(text)}${assetKey ? ` of ${assetKey}` : ""}`;
}

/** The dimensions' keys of a key joined by "|", in declared order; PartitionError for another shape. */
export function splitKey(dimensions: readonly MultiDimension[], key: unknown, assetKey?: string): string[] {
  if (typeof key !== "string") {
    throw new PartitionError(
      `partition key${assetKey ? ` of ${assetKey}` : ""}: expected a string such as ${JSON.stringify(exampleKey(dimensions))}, got ${describeValue(key)}`,
    );
  }
  const parts = key.split("|");
  if (parts.length !== dimensions.length) {
    throw new PartitionError(
      `${givenKey(key, assetKey)} has ${count(parts.length, "part")}; expected ${dimensions.length} joined by "|": ${shapeOf(dimensions)}, e.g. ${JSON.stringify(exampleKey(dimensions))}`,
    );
  }
  return parts;
}

/**
 * The dimensions' keys of `name=value,name=value` (every dimension once, in any order), in
 * declared order. A piece without "=" continues the value before it: list values may hold a
 * comma but never "=", so `region=a,b` reads as the value "a,b".
 */
export function splitNamed(dimensions: readonly MultiDimension[], text: string, assetKey?: string): string[] {
  const given = givenKey(text, assetKey, "partition");
  const expected = `expected every dimension once as name=value, joined by ",": ${JSON.stringify(exampleNamed(dimensions))}`;
  const pairs: [string, string][] = [];
  for (const piece of text.split(",")) {
    const at = piece.indexOf("=");
    if (at >= 0) pairs.push([piece.slice(0, at).trim(), piece.slice(at + 1)]);
    else if (pairs.length > 0) pairs[pairs.length - 1]![1] += `,${piece}`;
    else throw new PartitionError(`${given}: ${JSON.stringify(piece)} is not name=value; ${expected}`);
  }
  const byName = new Map<string, string>();
  for (const [name, value] of pairs) {
    if (!dimensions.some((d) => d.name === name)) {
      const names = dimensions.map((d) => `"${d.name}"`).join(", ");
      throw new PartitionError(`${given}: ${JSON.stringify(name)} is not a dimension (they are ${names}); ${expected}`);
    }
    if (byName.has(name)) throw new PartitionError(`${given} names "${name}" twice; ${expected}`);
    byName.set(name, value);
  }
  const missing = dimensions.filter((d) => !byName.has(d.name)).map((d) => `"${d.name}"`);
  if (missing.length > 0) throw new PartitionError(`${given} gives no value of ${missing.join(", ")}; ${expected}`);
  return dimensions.map((d) => byName.get(d.name)!);
}

/** The dimensions' keys of `{ date: "2026-01-05", region: "eu" }`, in declared order. */
export function keysOfRecord(dimensions: readonly MultiDimension[], record: Readonly<Record<string, string>>, assetKey?: string): string[] {
  const expected = `expected a key of each dimension: ${JSON.stringify(Object.fromEntries(dimensions.map((d) => [d.name, exampleKeyOf(d)])))}`;
  const of = assetKey ? ` of ${assetKey}` : "";
  for (const name of Object.keys(record)) {
    if (!dimensions.some((d) => d.name === name))
      throw new PartitionError(`partition keys${of}: ${JSON.stringify(name)} is not a dimension; ${expected}`);
  }
  return dimensions.map((d) => {
    const key = record[d.name];
    if (typeof key !== "string") throw new PartitionError(`partition keys${of}: "${d.name}" is ${describeValue(key)}; ${expected}`);
    return key;
  });
}
