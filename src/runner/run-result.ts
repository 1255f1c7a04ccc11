import type { ErrorInfo } from "../asset/events.js";

export type ExecutionStatus = "completed" | "failed" | "canceled";

/** What happened to one asset in a run. */
export interface AssetExecution {
  readonly asset: string;
  readonly status: ExecutionStatus;
  readonly startTime: Date | null;
  readonly endTime: Date | null;
  /** The error of a failed asset, or why it was canceled. */
  readonly error: Error | null;
  readonly rows: number | null;
  /** Destinations that hold this run's data. */
  readonly written: readonly string[];
  /** Destinations whose write failed. */
  readonly failedDestinations: readonly string[];
}

/** The outcome of one run of a DAG over a window. */
export class RunResult {
  readonly runId: string;
  readonly status: ExecutionStatus;
  /** Milliseconds from start to end. */
  readonly executionTime: number;
  /** The run's window as a string ("2026-01-01..2026-01-07"), or null when unpartitioned. */
  readonly partitionOrWindow: string | null;
  readonly assetExecutions: Readonly<Record<string, AssetExecution>>;
  /** An error that failed the run as a whole: thrown outside every asset's run, so no asset could be blamed. */
  readonly runError: Error | null;

  constructor(fields: {
    runId: string;
    status: ExecutionStatus;
    executionTime: number;
    partitionOrWindow: string | null;
    assetExecutions: Record<string, AssetExecution>;
    runError?: Error | null;
  }) {
    this.runId = fields.runId;
    this.status = fields.status;
    this.executionTime = fields.executionTime;
    this.partitionOrWindow = fields.partitionOrWindow;
    this.assetExecutions = Object.freeze({ ...fields.assetExecutions });
    this.runError = fields.runError ?? null;
    Object.freeze(this);
  }

  get completedAssets(): string[] {
    return this.keysWith("completed");
  }

  get failedAssets(): string[] {
    return this.keysWith("failed");
  }

  get canceledAssets(): string[] {
    return this.keysWith("canceled");
  }

  /** The first failure's error (an asset's, else the run's own), if any. */
  get error(): Error | null {
    return Object.values(this.assetExecutions).find((e) => e.status === "failed")?.error ?? this.runError;
  }

  /** Assets that were running when the run stopped waiting for them (canceled after they started). */
  get abandonedAssets(): string[] {
    return Object.values(this.assetExecutions)
      .filter((e) => e.status === "canceled" && e.startTime !== null)
      .map((e) => e.asset);
  }

  /** Plain data for JSON output. */
  toJSON(): object {
    return {
      runId: this.runId,
      status: this.status,
      executionTime: this.executionTime,
      partitionOrWindow: this.partitionOrWindow,
      ...(this.runError ? { runError: errorData(this.runError) } : {}),
      assetExecutions: Object.fromEntries(
        Object.entries(this.assetExecutions).map(([key, e]) => [key, { ...e, error: e.error ? errorData(e.error) : null }]),
      ),
    };
  }

  private keysWith(status: ExecutionStatus): string[] {
    return Object.values(this.assetExecutions)
      .filter((e) => e.status === status)
      .map((e) => e.asset);
  }
}

function errorData(error: Error): ErrorInfo {
  const code = (error as { code?: unknown }).code;
  return { name: error.name, message: error.message, ...(typeof code === "string" ? { code } : {}) };
}
