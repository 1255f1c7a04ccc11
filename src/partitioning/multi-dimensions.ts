import { ConfigError } from "../errors.js";
import { describeValue } from "../text/describe-value.js";
import { PartitionConfig } from "./base.js";
import { ListPartitionConfig } from "./list.js";
import { TimePartitionConfig } from "./time.js";

// The dimensions of a multi partitioning, read and checked once when the config is built: the
// key, the window, the parsers and the definition all walk this one declared list.

/** What a dimension of a multi partitioning may be: a time or a list partitioning. */
export type DimensionConfig = TimePartitionConfig | ListPartitionConfig;

/** The dimensions of `new MultiPartitionConfig(...)`, by name, in the order keys join them. */
export type MultiDimensions = Readonly<Record<string, DimensionConfig>>;

/** One named dimension of a multi partitioning. */
export interface MultiDimension {
  readonly name: string;
  readonly kind: "time" | "list";
  /** The column holding this dimension's value in the data (the dimension config's own). */
  readonly column: string;
  readonly config: DimensionConfig;
}

/**
 * Names become keys of `partition.keys`, `name=value` pairs on the command line and words of
 * messages: letters, digits, `_` and `-`, starting with a letter or `_`, so that none holds the
 * `|`, `,` or `=` the key forms split on.
 */
const NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

const EXAMPLE =
  '{ date: new il.TimePartitionConfig({ column: "date" }), region: new il.ListPartitionConfig({ column: "region", values: [...] }) }';

/** The declared dimensions, checked: ConfigError naming what is wrong and what is expected. */
export function readDimensions(dimensions: unknown): readonly MultiDimension[] {
  if (typeof dimensions !== "object" || dimensions === null || Array.isArray(dimensions) || dimensions instanceof PartitionConfig) {
    throw new ConfigError(
      `multi partitioning: expected an object of named dimensions such as ${EXAMPLE}, got ${describeValue(dimensions)}`,
    );
  }
  const read = Object.entries(dimensions).map(([name, config]) => readDimension(name, config));
  if (read.length < 2) {
    const given = read.length === 0 ? "none" : `only "${read[0]!.name}"`;
    throw new ConfigError(
      `multi partitioning: expected at least two dimensions, got ${given}${read.length === 1 ? `: partition by that ${read[0]!.kind} config itself` : ""}`,
    );
  }
  const times = read.filter((d) => d.kind === "time");
  if (times.length > 1) {
    throw new ConfigError(
      `multi partitioning: dimensions ${times.map((d) => `"${d.name}"`).join(" and ")} are both by time: expected at most one time dimension (and any number of list dimensions)`,
    );
  }
  const byColumn = new Map<string, string>();
  for (const d of read) {
    const other = byColumn.get(d.column);
    if (other !== undefined) {
      throw new ConfigError(
        `multi partitioning: dimensions "${other}" and "${d.name}" both use the column "${d.column}": expected a column of its own for each dimension`,
      );
    }
    byColumn.set(d.column, d.name);
  }
  return Object.freeze(read);
}

function readDimension(name: string, config: unknown): MultiDimension {
  if (name.length === 0)
    throw new ConfigError(`multi partitioning: a dimension has an empty name: expected a name such as "date" or "region"`);
  if (!NAME.test(name)) {
    throw new ConfigError(
      `multi partitioning: dimension name ${JSON.stringify(name)} is not a plain name: expected letters, digits, "_" and "-", starting with a letter or "_"`,
    );
  }
  if (config instanceof TimePartitionConfig) return Object.freeze({ name, kind: "time", column: config.column, config });
  if (config instanceof ListPartitionConfig) {
    const piped = config.values.find((v) => v.includes("|"));
    if (piped !== undefined) {
      throw new ConfigError(
        `multi partitioning: value ${JSON.stringify(piped)} of list dimension "${name}" contains "|": expected values without "|" (keys join the dimensions with it)`,
      );
    }
    return Object.freeze({ name, kind: "list", column: config.column, config });
  }
  const what =
    config instanceof PartitionConfig
      ? config.kind === "multi"
        ? "is itself a multi partitioning (list its dimensions here instead)"
        : `is a partitioning of kind "${config.kind}"`
      : `is ${describeValue(config)}`;
  throw new ConfigError(`multi partitioning: dimension "${name}" ${what}: expected a TimePartitionConfig or a ListPartitionConfig`);
}

/** `date|region`: the dimensions' names as a key joins them. */
export function shapeOf(dimensions: readonly MultiDimension[]): string {
  return dimensions.map((d) => d.name).join("|");
}

/** A real key of one dimension, for messages: the time dimension's start (else today), the first declared value. */
export function exampleKeyOf(dimension: MultiDimension): string {
  const config = dimension.config;
  if (config instanceof ListPartitionConfig) return config.values[0]!;
  return config.granularity.format(config.start ?? new Date());
}
