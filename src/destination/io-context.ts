import { PartitionError } from "../errors.js";
import { MultiPartitionConfig } from "../partitioning/index.js";
import type { Partition, PartitionConfig, PartitionWindow } from "../partitioning/index.js";
import { TableData } from "../representation/index.js";
import type { FieldSpec } from "../schema/index.js";
import { count } from "../text/english.js";
import { packageVersion } from "../package-root.js";
import { warnUnheard } from "./unheard-warnings.js";
import { newMaterialization, type Materialization, type ProvenanceDraft } from "./provenance/materialization.js";

const NO_WINDOW: readonly (Partition | null)[] = Object.freeze([null]);

/** The asset a destination call is about: everything that names its storage location. */
export interface AssetRef {
  readonly key: string;
  readonly table: string;
  readonly dataset: string | null;
  readonly partitioning: PartitionConfig | null;
  readonly description?: string | null;
}

/** Run metadata carried to destinations. */
export interface RunMetadata {
  readonly runId: string;
  readonly backfillId?: string;
  /** What a write's materialization record holds besides its rows and end (see `IOContext.materialization`). */
  readonly provenance?: ProvenanceDraft;
}

/** How serious a destination's report is; the levels of a run's `log` events. */
export type IOLogLevel = "debug" | "info" | "warn" | "error";

/** Where a destination reports what a caller should know (data it wrote but reads will not find, ...). */
export interface IOLogger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/**
 * Outside a run (a destination called directly) nobody listens to events: warnings and errors
 * go where unheard warnings go (process warnings, unless the program routes them: see
 * unheard-warnings.ts).
 */
function unheardReport(level: IOLogLevel, message: string): void {
  if (level === "warn" || level === "error") warnUnheard(message);
}

/** What a destination is told about a read or a write. Immutable. */
export class IOContext {
  readonly asset: AssetRef;
  /** The call's window, or null for an unpartitioned asset. */
  readonly window: PartitionWindow | null;
  /** The window's partitions; `[null]` stands for the whole of an unpartitioned asset. */
  readonly partitions: readonly (Partition | null)[];
  /** The effective schema, or null when none could be resolved. */
  readonly schema: readonly FieldSpec[] | null;
  readonly metadata: RunMetadata;
  /**
   * Where the destination reports: in a run, each call is a `log` event of the asset (shown by
   * the terminal view, the plain log and `--json`); outside one, a warning goes where unheard warnings go (see unheard-warnings.ts).
   */
  readonly logger: IOLogger;
  readonly #log: (level: IOLogLevel, message: string) => void;

  constructor(options: {
    asset: AssetRef;
    window?: PartitionWindow | Partition | null;
    schema?: readonly FieldSpec[] | null;
    metadata?: RunMetadata;
    /** Receives the destination's reports; unheard warnings when absent. */
    log?: (level: IOLogLevel, message: string) => void;
  }) {
    const window = options.window ?? null;
    this.asset = Object.freeze({ ...options.asset });
    this.window = window === null ? null : "partitions" in window ? window : window.window;
    this.partitions = this.window ? this.window.partitions : NO_WINDOW;
    this.schema = options.schema ? frozenSchema(options.schema) : null;
    this.metadata = Object.freeze({ ...(options.metadata ?? { runId: "adhoc" }) });
    const log = (this.#log = options.log ?? unheardReport);
    this.logger = Object.freeze({
      debug: (m: string) => log("debug", m),
      info: (m: string) => log("info", m),
      warn: (m: string) => log("warn", m),
      error: (m: string) => log("error", m),
    });
    Object.freeze(this);
  }

  /** The same call narrowed to another window (a partition stands for its window of one). */
  withWindow(window: PartitionWindow | Partition | null): IOContext {
    return new IOContext({ asset: this.asset, window, schema: this.schema, metadata: this.metadata, log: this.#log });
  }

  /** The same call with another effective schema. */
  withSchema(schema: readonly FieldSpec[] | null): IOContext {
    return new IOContext({ asset: this.asset, window: this.window, schema, metadata: this.metadata, log: this.#log });
  }

  /**
   * `[partition, slice]` per partition of the window, through the data's representation.
   * Non-tabular data, which nothing can slice, is given whole to every partition.
   */
  slices(data: unknown): Array<[Partition | null, unknown]> {
    if (!this.window) return [[null, data]];
    const table = TableData.from(data);
    if (!table) return this.window.partitions.map((p) => [p, data]);
    const column = this.partitionColumn();
    const columns = this.partitionColumns();
    const present = table.columns();
    if (this.window.length === 1 && !columns.some((name) => present.includes(name))) {
      // One partition and no partition column: the whole table is that partition's.
      return [[this.window.partitions[0]!, table.data]];
    }
    const split = table.split(this.window, column);
    if (split.outside > 0) throw outsideWindow(this.asset.key, rowsHave(split.outside), columns, this.window, split.outsideSample);
    return split.slices.map(([p, slice]) => [p, slice.data]);
  }

  /**
   * The record of a write of `partition` ending now, holding `rows`: what a destination that
   * keeps provenance stores with the data, in the same atomic step (with the schema the write
   * was given, when the run inferred it). Outside a run (a destination
   * called directly) it names the run "adhoc" and no upstream.
   */
  materialization(partition: Partition | null, rows: number | null): Materialization {
    const { runId, backfillId, provenance } = this.metadata;
    const run = { asset: this.asset.key, runId, backfillId: backfillId ?? null };
    return newMaterialization(provenance ?? adhocDraft(), run, partition ? partition.key : null, rows, this.schema);
  }

  /**
   * The columns holding the partition's value: a multi partitioning's dimension columns in
   * declared order (its joined `column`, "date|region", is no column of the data), else the one.
   */
  partitionColumns(): readonly string[] {
    const partitioning = this.asset.partitioning;
    return partitioning instanceof MultiPartitionConfig ? partitioning.columns : [this.partitionColumn()];
  }

  /** The column holding the partition value (a multi partitioning's joined columns: see `partitionColumns`). */
  partitionColumn(): string {
    const column = this.asset.partitioning?.column;
    if (!column) throw new PartitionError(`asset "${this.asset.key}" is not partitioned, but a window was given`);
    return column;
  }
}

/** A value outside a window as messages show it: an instant in ISO 8601, a multi row's values by column as JSON. */
function sampleText(value: unknown): string {
  return value instanceof Date ? value.toISOString() : JSON.stringify(value);
}

/** `a "date" value`, or `"date", "region" values` for the columns of a multi partitioning. */
function valuesNamed(columns: readonly string[]): string {
  return columns.length === 1 ? `a "${columns[0]}" value` : `${columns.map((c) => `"${c}"`).join(", ")} values`;
}

/** `1 row has`, `3 rows have`: the subject of `outsideWindow`. */
export function rowsHave(rows: number): string {
  return `${count(rows, "row")} ${rows === 1 ? "has" : "have"}`;
}

/** The error for rows whose partition columns hold values outside the window written: `rows` says how many, `sample` shows a few. */
export function outsideWindow(
  assetKey: string,
  rows: string,
  columns: readonly string[],
  window: PartitionWindow,
  sample: readonly unknown[],
): PartitionError {
  return new PartitionError(
    `asset "${assetKey}": ${rows} ${valuesNamed(columns)} outside the window ${String(window)} (${sample.map(sampleText).join(", ")}); rows must carry their partition's value`,
  );
}

/** The warning for a table written without its partition columns (`lacking` says which), which reads of the window will not find. */
export function unfindableRows(assetKey: string, owner: string, lacking: string, window: PartitionWindow, rows: number): string {
  const scope = window.length === 1 ? `partition ${String(window)}` : `the partitions of ${String(window)}`;
  return `asset "${assetKey}": the data written to ${owner} has ${lacking}, so reads of ${scope} will not find ${rows === 1 ? "this row" : `these ${count(rows, "row")}`}`;
}

/** The draft of a write made outside a run: started now, of no code version, from nothing upstream. */
function adhocDraft(): ProvenanceDraft {
  return { startedAt: new Date().toISOString(), codeVersion: null, interloperVersion: packageVersion(), upstream: () => [] };
}

/** The schema as given when it is already frozen through (an asset's declared one), else a frozen copy. */
function frozenSchema(schema: readonly FieldSpec[]): readonly FieldSpec[] {
  if (Object.isFrozen(schema) && schema.every((f) => Object.isFrozen(f))) return schema;
  return Object.freeze(schema.map((f) => Object.freeze({ ...f })));
}
