// The parent's record of one partition run in a worker: the events it re-emits as they arrive,
// and the run result once the worker replied, crashed, or was stopped.
import { errorInfo, type AssetEvent } from "../../asset/events.js";
import { AssetError } from "../../errors.js";
import type { InterloperEvent } from "../events.js";
import { formatLimit } from "../limits.js";
import { RunResult, type AssetExecution, type ExecutionStatus } from "../run-result.js";
import { errorFromData, runResultFromData, type WorkerResult } from "./protocol.js";

/** How a worker's task ended, as the parent saw it. */
export interface TaskEnd {
  /** The worker's result, when it sent one. */
  readonly reply: WorkerResult | null;
  /** How the worker exited, when it did before replying. */
  readonly exit: { readonly code: number | null; readonly signal: NodeJS.Signals | null } | null;
  /** Why the parent asked the worker to stop, if it did. */
  readonly asked: "timeout" | "interrupt" | null;
  /** The end of what the worker wrote on stderr during the task. */
  readonly stderr: string;
}

export class PartitionRun {
  private readonly startedAt = Date.now();
  private readonly executions = new Map<string, AssetExecution>();
  private readonly written = new Map<string, string[]>();
  private readonly failedWrites = new Map<string, string[]>();
  private readonly started = new Set<string>();
  private runId: string;
  /** The worker's own word on how its run ended; emitted once the parent knows the final status. */
  private ended: InterloperEvent | null = null;

  constructor(
    private readonly partition: string,
    private readonly assets: readonly string[],
    private readonly backfillId: string,
    private readonly emit: (event: InterloperEvent) => void,
    private readonly timeoutMs: number | undefined,
  ) {
    this.runId = `${backfillId}:${partition}`;
  }

  /** An event of the worker's run: re-emitted at once, but for the run's end, held until `settle`. */
  onEvent(event: InterloperEvent): void {
    if (event.type === "run:started") this.runId = event.runId;
    if (event.type === "run:completed" || event.type === "run:failed" || event.type === "run:canceled") {
      this.ended = event;
      return;
    }
    this.record(event as AssetEvent);
    this.emit(event);
  }

  /** The partition's result, emitting what the worker could not say itself. */
  settle(end: TaskEnd): RunResult {
    const timedOut = end.asked === "timeout";
    const reported = end.reply ? runResultFromData(end.reply.result) : null;
    // The worker's result stands, but for a run it reported canceled because the parent
    // stopped it for its timeout: that is a failure.
    if (reported && !(timedOut && reported.status === "canceled")) {
      if (this.ended) this.emit(this.ended);
      return reported;
    }
    // A worker that said its run completed has committed every write: however it exits after
    // (a stop asked for as it finished, a crash on the way out), the partition is complete.
    if (this.ended?.type === "run:completed") {
      this.emit(this.ended);
      return this.result("completed", Object.fromEntries(this.executions));
    }
    const known = new Map(reported ? Object.entries(reported.assetExecutions) : this.executions);
    const said =
      !reported && this.ended && !(timedOut && this.ended.type === "run:canceled") ? (this.ended.type.slice(4) as ExecutionStatus) : null;
    const status: ExecutionStatus = said ?? (timedOut ? "failed" : end.asked === "interrupt" ? "canceled" : "failed");
    const error = new AssetError(`the process running partition ${this.partition} ${this.how(end)}${tailOf(end.stderr)}`);
    const executions: Record<string, AssetExecution> = {};
    // What the worker could not say (it was killed, or stopped by the parent's timeout), the
    // parent says for it, as an in-process run would.
    const base = { runId: this.runId, backfillId: this.backfillId, partition: this.partition };
    const now = new Date().toISOString();
    let changed = false;
    for (const asset of this.assets) {
      const execution = known.get(asset);
      if (execution && (said || execution.status !== "canceled")) {
        executions[asset] = execution;
        continue;
      }
      changed = true;
      const durationMs = Date.now() - this.startedAt;
      const startTime = this.started.has(asset) ? new Date(this.startedAt) : null;
      executions[asset] = {
        asset,
        status,
        startTime,
        endTime: null,
        error,
        rows: null,
        written: execution?.written ?? [],
        failedDestinations: execution?.failedDestinations ?? [],
      };
      if (status === "failed") this.emit({ ...base, type: "asset:failed", time: now, asset, error: errorInfo(error), durationMs });
      else this.emit({ ...base, type: "asset:canceled", time: now, asset, reason: error.message, ...(startTime ? { durationMs } : {}) });
    }
    const settled = Object.values(executions);
    this.emit(
      this.ended && !changed
        ? this.ended
        : {
            ...base,
            type: status === "failed" ? "run:failed" : "run:canceled",
            time: now,
            durationMs: Date.now() - this.startedAt,
            completed: settled.filter((e) => e.status === "completed").map((e) => e.asset),
            failed: settled.filter((e) => e.status === "failed").map((e) => e.asset),
            canceled: settled.filter((e) => e.status === "canceled").map((e) => e.asset),
          },
    );
    return this.result(status, executions);
  }

  private how(end: TaskEnd): string {
    if (end.asked === "timeout") return `timed out after ${formatLimit(this.timeoutMs!)} and was stopped`;
    if (end.asked === "interrupt") return "was stopped (interrupted)";
    if (end.exit?.signal) return `was killed by ${end.exit.signal}`;
    return `exited with code ${end.exit?.code ?? "unknown"}`;
  }

  private result(status: ExecutionStatus, executions: Record<string, AssetExecution>): RunResult {
    return new RunResult({
      runId: this.runId,
      status,
      executionTime: Date.now() - this.startedAt,
      partitionOrWindow: this.partition,
      assetExecutions: executions,
    });
  }

  /** The per-asset outcome, from the events, for a worker that exits before it can send its result. */
  private record(e: AssetEvent): void {
    if (e.type === "asset:started") this.started.add(e.asset);
    if (e.type === "destination:write:completed") this.written.set(e.asset, [...(this.written.get(e.asset) ?? []), e.destination]);
    if (e.type === "destination:write:failed") this.failedWrites.set(e.asset, [...(this.failedWrites.get(e.asset) ?? []), e.destination]);
    if (e.type !== "asset:completed" && e.type !== "asset:failed" && e.type !== "asset:canceled") return;
    const endTime = new Date(e.time);
    this.executions.set(e.asset, {
      asset: e.asset,
      status: e.type === "asset:completed" ? "completed" : e.type === "asset:failed" ? "failed" : "canceled",
      startTime: e.durationMs === undefined ? null : new Date(endTime.getTime() - e.durationMs),
      endTime,
      error: e.type === "asset:failed" ? errorFromData(e.error) : e.type === "asset:canceled" ? new Error(e.reason) : null,
      rows: e.type === "asset:completed" ? e.rows : null,
      written: this.written.get(e.asset) ?? [],
      failedDestinations: this.failedWrites.get(e.asset) ?? [],
    });
  }
}

/** The last lines of a worker's stderr, for an error message. */
function tailOf(stderr: string): string {
  const tail = stderr.trim();
  return tail ? `: ${tail.split("\n").slice(-5).join(" | ")}` : "";
}
