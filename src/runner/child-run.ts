import { join } from "node:path";
import { errorInfo, type AssetEvent } from "../asset/events.js";
import { AssetError } from "../errors.js";
import { packageRoot } from "../package-root.js";
import type { InterloperEvent } from "./events.js";
import { RunResult, type AssetExecution, type ExecutionStatus } from "./run-result.js";

/** How a backfill starts a partition in a child process: the CLI itself, on the same config. */
export interface ChildProcessOptions {
  /** The config file the children load. */
  readonly configPath: string;
  readonly cwd?: string;
  /** Kill a partition's child after this many milliseconds. */
  readonly timeoutMs?: number;
  /** The CLI entry point; defaults to this package's bin/interloper. */
  readonly cliPath?: string;
  readonly env?: Readonly<Record<string, string>>;
}

const STDERR_TAIL = 2000;
const defaultCli = () => join(packageRoot(), "bin", "interloper");

/**
 * Runs one partition in a child process (`interloper materialize --partition <key> --json`),
 * re-emitting the child's events as they arrive. A crash, a kill or a timeout fails only this
 * partition, with the exit code or signal and the end of the child's stderr in the error.
 */
export async function runPartitionInChild(
  partition: string,
  assets: readonly string[],
  options: ChildProcessOptions & { backfillId: string; emit: (event: InterloperEvent) => void; signal?: AbortSignal },
): Promise<RunResult> {
  const args = [options.cliPath ?? defaultCli(), "materialize", ...assets, "-c", options.configPath, "--partition", partition, "--json", "--backfill-id", options.backfillId];
  const startedAt = Date.now();
  const executions = new Map<string, AssetExecution>();
  let runId = `${options.backfillId}:${partition}`;
  let finished: ExecutionStatus | null = null;
  // execa is loaded only when a pool runs: importing "interloper" must stay cheap.
  const { execa } = await import("execa");
  const child = execa(process.execPath, args, {
    reject: false,
    cwd: options.cwd,
    env: { ...options.env, CI: "1" },
    stdin: "ignore",
    ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
    ...(options.signal ? { cancelSignal: options.signal } : {}),
    // Terminated children finish the partition they are writing; only a stuck one is killed.
    forceKillAfterDelay: 15_000,
    lines: false,
    buffer: { stdout: false, stderr: true },
  });
  let pending = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    pending += chunk;
    let newline: number;
    while ((newline = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      const event = parseEvent(line);
      if (!event) continue;
      if (event.type === "run:started") runId = event.runId;
      if (event.type === "run:completed" || event.type === "run:failed" || event.type === "run:canceled") finished = event.type.slice(4) as ExecutionStatus;
      record(executions, event);
      options.emit(event);
    }
  });
  const result = await child;
  // A child that said its run completed has committed every write: however it exits after (a
  // stop asked for while it finished, a crash on the way out), the partition is complete.
  if (finished === "completed" || (finished && result.exitCode !== undefined && (result.exitCode === 0 || result.exitCode === 1))) {
    return new RunResult({ runId, status: finished, executionTime: Date.now() - startedAt, partitionOrWindow: partition, assetExecutions: Object.fromEntries(executions) });
  }
  const how = result.timedOut ? `timed out after ${options.timeoutMs} ms and was killed` : result.isCanceled ? "was stopped (interrupted)" : result.signal ? `was killed by ${result.signal}` : `exited with code ${result.exitCode}`;
  const tail = String(result.stderr ?? "").trim().slice(-STDERR_TAIL);
  const error = new AssetError(`the process running partition ${partition} ${how}${tail ? `: ${tail.split("\n").slice(-5).join(" | ")}` : ""}`);
  const status: ExecutionStatus = result.isCanceled ? "canceled" : "failed";
  const executionsOut = Object.fromEntries(
    assets.map((asset) => [asset, executions.get(asset) ?? { asset, status, startTime: null, endTime: null, error, rows: null, written: [], failedDestinations: [] }]),
  );
  // The child could not say how it ended: say it for it, as an in-process run would.
  const base = { runId, backfillId: options.backfillId, partition };
  const now = new Date().toISOString();
  for (const [key, execution] of Object.entries(executionsOut)) {
    if (execution.status === "completed") continue;
    executionsOut[key] = { ...execution, status, error };
    if (status === "failed") options.emit({ ...base, type: "asset:failed", time: now, asset: key, error: errorInfo(error), durationMs: Date.now() - startedAt });
    else options.emit({ ...base, type: "asset:canceled", time: now, asset: key, reason: error.message });
  }
  const settled = Object.values(executionsOut);
  options.emit({
    ...base,
    type: status === "failed" ? "run:failed" : "run:canceled",
    time: now,
    durationMs: Date.now() - startedAt,
    completed: settled.filter((e) => e.status === "completed").map((e) => e.asset),
    failed: settled.filter((e) => e.status === "failed").map((e) => e.asset),
    canceled: settled.filter((e) => e.status === "canceled").map((e) => e.asset),
  });
  return new RunResult({ runId, status, executionTime: Date.now() - startedAt, partitionOrWindow: partition, assetExecutions: executionsOut });
}

function parseEvent(line: string): InterloperEvent | null {
  if (!line.startsWith("{")) return null;
  try {
    const event = JSON.parse(line) as InterloperEvent;
    return typeof event.type === "string" ? event : null;
  } catch {
    return null;
  }
}

/** Rebuilds the per-asset outcome of a child's run from its events. */
function record(executions: Map<string, AssetExecution>, event: InterloperEvent): void {
  const e = event as AssetEvent;
  if (e.type !== "asset:completed" && e.type !== "asset:failed" && e.type !== "asset:canceled") return;
  const endTime = new Date(e.time);
  const startTime = e.type === "asset:canceled" ? null : new Date(endTime.getTime() - e.durationMs);
  executions.set(e.asset, {
    asset: e.asset,
    status: e.type === "asset:completed" ? "completed" : e.type === "asset:failed" ? "failed" : "canceled",
    startTime,
    endTime,
    error: e.type === "asset:failed" ? Object.assign(new AssetError(e.error.message), { name: e.error.name }) : e.type === "asset:canceled" ? new Error(e.reason) : null,
    rows: e.type === "asset:completed" ? e.rows : null,
    written: [],
    failedDestinations: [],
  });
}
