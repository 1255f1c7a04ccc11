import { PartitionError } from "../errors.js";
import {
  MultiPartition,
  TimePartition,
  type MultiPartitionConfig,
  type Partition,
  type PartitionConfig,
  type PartitionWindow,
} from "../partitioning/index.js";
import type { Asset } from "./asset.js";
import type { LogLevel } from "./events.js";

/** Logs from inside an asset; each call becomes a `log` event of the run. */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/**
 * The partition a run of an asset partitioned by `P` is given: of a multi partitioning, a
 * `MultiPartition` whose `keys` are typed by its dimensions' names, never null unless the
 * partitioning allows windows (a window of several has no one partition); else a Partition or null.
 */
export type PartitionOf<P> =
  P extends MultiPartitionConfig<infer N, infer O>
    ? O extends { readonly allowWindow?: false | undefined }
      ? MultiPartition<N>
      : MultiPartition<N> | null
    : Partition | null;

/** What an asset's `run` is told about its execution; `P` is the asset's partitioning, which types `partition`. */
export class ExecutionContext<P extends PartitionConfig | null = PartitionConfig | null> {
  readonly asset: Asset;
  /** The run's window, or null for an unpartitioned asset. */
  readonly window: PartitionWindow | null;
  /** The partition when the window holds exactly one, else null (see PartitionOf). */
  readonly partition: PartitionOf<P>;
  readonly runId: string;
  readonly backfillId: string | undefined;
  readonly logger: Logger;
  /**
   * Aborted when the run is interrupted (Ctrl-C, SIGTERM), when it times out, or when the runner
   * stops waiting for this asset: pass it to fetch and other long calls.
   */
  readonly signal: AbortSignal;

  constructor(options: {
    asset: Asset;
    window: PartitionWindow | null;
    runId: string;
    backfillId?: string | undefined;
    log: (level: LogLevel, message: string) => void;
    signal?: AbortSignal;
  }) {
    this.asset = options.asset;
    this.window = options.window;
    this.partition = (options.window?.length === 1 ? options.window.partitions[0]! : null) as PartitionOf<P>;
    this.runId = options.runId;
    this.backfillId = options.backfillId;
    const log = options.log;
    this.logger = Object.freeze({
      debug: (m: string) => log("debug", m),
      info: (m: string) => log("info", m),
      warn: (m: string) => log("warn", m),
      error: (m: string) => log("error", m),
    });
    this.signal = options.signal ?? new AbortController().signal;
    Object.freeze(this);
  }

  /**
   * The start of the run's time partition (of a multi partition, its time dimension's);
   * PartitionError when the run is not one partition with a period.
   */
  get partitionDate(): Date {
    if (this.partition instanceof TimePartition) return new Date(this.partition.value.getTime());
    if (this.partition instanceof MultiPartition && this.partition.partitionDate) return this.partition.partitionDate;
    const what = this.partition
      ? `the ${this.partition instanceof MultiPartition ? "multi partition without a time dimension" : "list partition"} "${this.partition.key}"`
      : this.window
        ? `the window ${String(this.window)}`
        : "no partition";
    throw new PartitionError(
      `asset "${this.asset.key}": partitionDate needs a single time partition, but the run has ${what}; read context.window instead`,
    );
  }
}
