// An asset's checks within one execution (issue 35): fed the conformed rows (a table at once, a
// stream batch by batch as it passes to the destination), judged per stored partition before
// anything is committed. A failed check is reported as a `check_failed` event (and a warning
// when its severity is "warn"); a failed "error" check fails the execution with CheckError
// before any destination commits, so every destination keeps what it held.
import { AssetError, type CheckError } from "../errors.js";
import {
  checkError,
  failedVerdicts,
  previousCounts,
  WindowChecks,
  type Check,
  type CheckVerdict,
  type PartitionVerdicts,
} from "../check/index.js";
import type { PartitionWindow } from "../partitioning/index.js";
import { TableData, type Row } from "../representation/index.js";
import { describeKind } from "../text/describe-value.js";
import type { MaybePromise } from "../maybe-promise.js";
import type { Asset } from "./asset.js";
import type { AssetEvent } from "./events.js";

/** What the checks report through: the execution's emit and the fields its events share. */
export interface CheckReporting {
  readonly emit: (event: AssetEvent) => void;
  readonly base: { readonly runId: string; readonly backfillId?: string; readonly asset: string };
}

/** The checks of one execution of an asset with checks. */
export class ExecutionChecks {
  private readonly window: WindowChecks;
  private readonly results = new Map<string | null, readonly CheckVerdict[]>();
  /** Set once an error check failed: the error the execution fails with. */
  failure: CheckError | null = null;

  constructor(
    private readonly asset: Asset,
    window: PartitionWindow | null,
    private readonly reporting: CheckReporting,
  ) {
    // Stored history is read once per execution, however many partitions ask for it.
    let counts: Promise<Record<string, number>> | undefined;
    const target = {
      qualifiedKey: asset.qualifiedKey,
      checks: asset.checks,
      schema: asset.schema,
      previousRowCounts: async (partition: string, n: number) => {
        counts ??= asset.partitionRowCounts();
        return previousCounts(await counts, partition, n);
      },
      waitingFor: (check: Check, partition: string | null, verdict: Promise<CheckVerdict>) => {
        const { emit, base } = reporting;
        const event = { ...base, ...(partition === null ? {} : { partition }), check: check.name };
        emit({ ...event, type: "check:started", time: new Date().toISOString() });
        const given = () => emit({ ...event, type: "check:completed", time: new Date().toISOString() });
        verdict.then(given, given);
      },
    };
    this.window = new WindowChecks(target, window, asset.partitioning?.column ?? null);
  }

  /** Feeds a batch of conformed rows. */
  add(rows: readonly Row[]): void {
    this.window.add(rows);
  }

  /** Feeds a whole conformed table; data that is no table cannot be checked. */
  addData(data: unknown): void {
    const table = TableData.from(data);
    if (!table) {
      throw new AssetError(
        `asset "${this.asset.qualifiedKey}" has checks, which read rows, but returned non-tabular data (${describeKind(data)})`,
      );
    }
    this.add(table.rows);
  }

  /** The verdicts of a partition, for its record (undefined before they are known). */
  resultsOf(partition: string | null): readonly CheckVerdict[] | undefined {
    return this.results.get(partition);
  }

  /**
   * Judges every partition, reports each failure, and throws CheckError when an error check
   * failed; at once (no promise) when no check needs to wait (see WindowChecks.verdicts).
   */
  settle(): MaybePromise<void> {
    const verdicts = this.window.verdicts();
    return verdicts instanceof Promise ? verdicts.then((v) => this.judge(v)) : this.judge(verdicts);
  }

  private judge(verdicts: readonly PartitionVerdicts[]): void {
    for (const result of verdicts) this.results.set(result.partition, result.verdicts);
    const time = new Date().toISOString();
    const { emit, base } = this.reporting;
    for (const { partition, verdict } of failedVerdicts(verdicts)) {
      const where = partition === null ? {} : { partition };
      emit({
        ...base,
        ...where,
        type: "check_failed",
        time,
        check: verdict.name,
        severity: verdict.severity,
        failures: verdict.failures,
        examples: verdict.examples,
        message: verdict.message,
      });
      if (verdict.severity === "warn") {
        const examples = verdict.examples.length > 0 ? ` (${verdict.examples.join(", ")})` : "";
        const message = `check ${verdict.name} failed${partition === null ? "" : ` for ${partition}`} (warn): ${verdict.message}${examples}`;
        emit({ ...base, ...where, type: "log", time, level: "warn", message });
      }
    }
    this.failure = checkError(this.asset.qualifiedKey, verdicts);
    if (this.failure) throw this.failure;
  }

  /**
   * A stream's batches, each fed to the checks as it passes; judged after the last one, before
   * the stream ends. A check still awaited once the execution is `abandoned` (a timeout, the
   * grace after an interrupt) ends the stream with that reason rather than hold it open.
   */
  async *through(batches: AsyncIterable<Row[]>, abandoned?: AbortSignal): AsyncGenerator<Row[]> {
    for await (const batch of batches) {
      this.add(batch);
      yield batch;
    }
    // Throwing here, before the stream ends, makes every destination discard what it staged
    // (a file store removes its temporary file).
    const settled = this.settle();
    if (settled) await (abandoned ? unlessAborted(settled, abandoned) : settled);
  }
}

/** `work`, or the signal's reason as soon as it is aborted, whichever comes first. */
async function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  let stop: () => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    stop = () => reject(signal.reason);
    signal.addEventListener("abort", stop, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener("abort", stop);
  }
}
