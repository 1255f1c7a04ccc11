import { PartitionError } from "../errors.js";
import { describeValue } from "../text/describe-value.js";
import { count } from "../text/english.js";
import type { MultiPartitionConfig } from "./multi.js";
import { exampleKeyOf, shapeOf, type MultiDimension } from "./multi-dimensions.js";
import type { MultiValues } from "./multi-window.js";

// The two spellings of a multi partition: the key `2026-01-05|eu` (paths, row counts, the
// catalog) and `date=2026-01-05,region=eu` (typed on the command line, in any order). Both read
// into the dimensions' own keys, in declared order; the config then parses each with its kind.
// Beside them, the `--values region=eu,us` that narrows a window's lists.

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

/**
 * The values of `--values region=eu,us` (one text per dimension, repeatable: the values of a
 * dimension named twice add up), by list dimension name. A value holding a comma is read whole
 * when it is declared: the longest run of comma-separated pieces that is a declared value wins.
 */
export function parseMultiValues(config: MultiPartitionConfig, texts: readonly string[]): MultiValues {
  const lists = config.listDimensions;
  const example = `e.g. "${lists[0]!.name}=${lists[0]!.config.values.slice(0, 2).join(",")}"`;
  const picked = new Map<string, Set<string>>();
  for (const text of texts) {
    const at = typeof text === "string" ? text.indexOf("=") : -1;
    if (at < 0)
      throw new PartitionError((o) => `${o("values")} ${describeValue(text)}: expected name=value,value of a list dimension, ${example}`);
    const name = text.slice(0, at).trim();
    const dimension = lists.find((d) => d.name === name);
    if (!dimension) {
      const why = config.timeDimension?.name === name ? "is the time dimension (give its range as the window)" : "is not a list dimension";
      throw new PartitionError(
        (o) =>
          `${o("values")} ${JSON.stringify(text)}: "${name}" ${why}; expected one of ${lists.map((d) => `"${d.name}"`).join(", ")}, ${example}`,
      );
    }
    const set = picked.get(name) ?? new Set<string>();
    for (const value of declaredRuns(text.slice(at + 1).split(","), dimension.config.values, text)) set.add(value);
    picked.set(name, set);
  }
  return Object.fromEntries([...picked].map(([name, set]) => [name, [...set]]));
}

/** The pieces read as declared values, each the longest run of pieces joined by "," that is one. */
function declaredRuns(pieces: readonly string[], declared: readonly string[], text: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < pieces.length;) {
    let end = pieces.length;
    while (end > i && !declared.includes(pieces.slice(i, end).join(","))) end--;
    if (end === i) {
      throw new PartitionError(
        (o) =>
          `${o("values")} ${JSON.stringify(text)}: ${JSON.stringify(pieces[i])} is not a declared value; expected some of ${declared.join(", ")}`,
      );
    }
    values.push(pieces.slice(i, end).join(","));
    i = end;
  }
  return values;
}
