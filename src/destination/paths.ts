import { ConfigError } from "../errors.js";
import type { Partition } from "../partitioning/index.js";
import type { IOContext } from "./io-context.js";

/**
 * A name that becomes one path segment (a dataset, a table, a partition column or key): refused
 * with ConfigError when it could escape its folder or be misread in a hive layout.
 */
export function safeSegment(value: unknown, what: string, owner: string): string {
  const problem =
    typeof value !== "string" || value.length === 0
      ? "must be a non-empty string"
      : value === "." || value === ".."
        ? `must not be "${value}"`
        : /[/\\\0]/.test(value)
          ? "must not contain '/', '\\' or NUL"
          : what === "partition column" && value.includes("=")
            ? "must not contain '='"
            : null;
  if (problem) throw new ConfigError(`${owner}: ${what} ${JSON.stringify(value)} ${problem}`);
  return value as string;
}

/** The relative folder segments of an asset's table: `[dataset?, table]`. */
export function tableSegments(context: IOContext, owner: string): string[] {
  const { dataset, table } = context.asset;
  const segments = dataset ? [safeSegment(dataset, "dataset", owner)] : [];
  segments.push(safeSegment(table, "table", owner));
  return segments;
}

/** The hive folder name of a partition: `{column}={key}`. */
export function partitionSegment(context: IOContext, partition: Partition, owner: string): string {
  const column = safeSegment(context.partitionColumn(), "partition column", owner);
  return `${column}=${safeSegment(partition.key, "partition key", owner)}`;
}
