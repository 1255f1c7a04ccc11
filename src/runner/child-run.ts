import { join } from "node:path";
import { errorInfo, type AssetEvent } from "../asset/events.js";
import { AssetError } from "../errors.js";
import { packageRoot } from "../package-root.js";
import { RunControl } from "./attempt.js";
import type { InterloperEvent } from "./events.js";
import { CHILD_KILL_DELAY_MS, DEFAULT_GRACE_MS, formatLimit } from "./limits.js";
import { RunResult, type AssetExecution, type ExecutionStatus } from "./run-result.js";

/** How a backfill starts a partition in a child process: the CLI itself, on the same config. */
export interface ChildProcessOptions {
  /** The config file the children load. */
  readonly configPath: string;
  readonly cwd?: string;
  /**
   * A limit per partition: the child fails its partition after this many milliseconds (it is
   * given `--timeout`); the parent sends it SIGTERM when that much has passed since it started,
   * and SIGKILL CHILD_KILL_DELAY_MS later if it is still running.
   */
  readonly timeoutMs?: number;
  /** The child's grace after an interrupt (`--grace`); DEFAULT_GRACE_MS when unset. */
  readonly graceMs?: number;
  /** The CLI entry point; defaults to this package's bin/interloper. */
  readonly cliPath?: string;
  readonly env?: Readonly<Record<string, string>>;
}

/** Set in a child's environment: it stops on its parent's word (SIGTERM) only, not on a terminal's Ctrl-C. */
export const POOL_CHILD_ENV = "INTERLOPER_POOL_CHILD";

const STDERR_TAIL = 2000;
const defaultCli = () => join(packageRoot(), "bin", "interloper");

/** Every child process running a partition now, so that a stop at once can take them along. */
const children = new Set<{ kill(signal: NodeJS.Signals): boolean }>();

/** Kills every child running a partition (a second Ctrl-C: the parent stops at once, and they with it). */
export function killChildren(): void {
  for (const child of children) child.kill("SIGKILL");
}

/**
 * Runs one partition in a child process (`interloper materialize --partition <key> --json`),
 * re-emitting the child's events as they arrive. A crash, a kill or a timeout fails only this
 * partition, with the exit code or signal and the end of the child's stderr in the error.
 */
export async function runPartitionInChild(
  partition: string,
  assets: readonly string[],
  options: ChildProcessOptions & { backfillId: string; emit: (event: InterloperEvent) => void; signal?: AbortSignal; control?: RunControl },
): Promise<RunResult> {
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const args = [
    options.cliPath ?? defaultCli(), "materialize", ...assets, "-c", options.configPath, "--partition", partition, "--json", "--backfill-id", options.backfillId,
    ...(options.timeoutMs ? ["--timeout", `${options.timeoutMs}ms`] : []),
    "--grace", `${graceMs}ms`,
  ];
  const startedAt = Date.now();
  const executions = new Map<string, AssetExecution>();
  const started = new Set<string>();
  let runId = `${options.backfillId}:${partition}`;
  // The child's own word on how its run ended; emitted once the parent knows its final status.
  let ended: InterloperEvent | null = null;
  // execa is loaded only when a pool runs: importing "interloper" must stay cheap.
  const { execa } = await import("execa");
  const child = execa(process.execPath, args, {
    reject: false,
    cwd: options.cwd,
    env: { ...options.env, CI: "1", [POOL_CHILD_ENV]: "1" },
    stdin: "ignore",
    // The parent times and stops its children itself, below.
    forceKillAfterDelay: false,
    lines: false,
    buffer: { stdout: false, stderr: true },
  });
  children.add(child);
  // Why the parent asked the child to stop, the first time it did: once is enough (a second
  // SIGTERM would make the child stop at once).
  const asked: { why: "timeout" | "interrupt" | null } = { why: null };
  const timers: Array<ReturnType<typeof setTimeout>> = [];
  const stop = (why: "timeout" | "interrupt") => {
    if (asked.why) return;
    asked.why = why;
    child.kill("SIGTERM");
    // The child stops by itself within its limit or its grace; one whose event loop is blocked cannot.
    timers.push(setTimeout(() => child.kill("SIGKILL"), (why === "interrupt" ? graceMs : 0) + CHILD_KILL_DELAY_MS));
  };
  if (options.timeoutMs) timers.push(setTimeout(() => stop("timeout"), options.timeoutMs));
  // Through the backfill's control when there is one: one listener on the caller's signal, however many children.
  const own = options.control ? null : new RunControl(options.signal);
  const unlisten = (options.control ?? own!).onInterrupt(() => stop("interrupt"));

  let pending = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    pending += chunk;
    let newline: number;
    while ((newline = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      const event = parseEvent(line);
      // A child runs one partition; a backfill of its own (one staged for assets reading other
      // partitions) is a detail of that run, not a second backfill for the parent's view.
      if (!event || event.type.startsWith("backfill:")) continue;
      if (event.type === "run:started") runId = event.runId;
      if (event.type === "asset:started") started.add(event.asset);
      if (event.type === "run:completed" || event.type === "run:failed" || event.type === "run:canceled") {
        ended = event;
        continue;
      }
      record(executions, event);
      options.emit(event);
    }
  });
  const result = await child.finally(() => {
    for (const timer of timers) clearTimeout(timer);
    unlisten();
    own?.dispose();
    children.delete(child);
  });
  const reported = ended as InterloperEvent | null;
  const timedOut = asked.why === "timeout";
  const stopped = asked.why === "interrupt";
  // A child that said its run completed has committed every write: however it exits after (a
  // stop asked for while it finished, a crash on the way out), the partition is complete.
  if (reported?.type === "run:completed") {
    options.emit(reported);
    return new RunResult({ runId, status: "completed", executionTime: Date.now() - startedAt, partitionOrWindow: partition, assetExecutions: Object.fromEntries(executions) });
  }
  // Otherwise its own word stands (it names what failed or was abandoned), but for a run it
  // reported canceled because the parent stopped it for its timeout: that is a failure.
  const said = reported && !(timedOut && reported.type === "run:canceled") ? (reported.type.slice(4) as ExecutionStatus) : null;
  const status: ExecutionStatus = said ?? (timedOut ? "failed" : stopped ? "canceled" : "failed");
  const how = timedOut
    ? `timed out after ${formatLimit(options.timeoutMs!)} and was stopped`
    : stopped
      ? "was stopped (interrupted)"
      : result.signal
        ? `was killed by ${result.signal}`
        : `exited with code ${result.exitCode}`;
  const tail = String(result.stderr ?? "").trim().slice(-STDERR_TAIL);
  const error = new AssetError(`the process running partition ${partition} ${how}${tail ? `: ${tail.split("\n").slice(-5).join(" | ")}` : ""}`);
  const executionsOut = Object.fromEntries(
    assets.map((asset) => [asset, executions.get(asset) ?? { asset, status, startTime: null, endTime: null, error, rows: null, written: [], failedDestinations: [] }]),
  );
  // What the child could not say (it was killed, or stopped by the parent's timeout), the
  // parent says for it, as an in-process run would.
  const base = { runId, backfillId: options.backfillId, partition };
  const now = new Date().toISOString();
  let changed = false;
  for (const [key, execution] of Object.entries(executionsOut)) {
    const known = executions.get(key);
    if (known && (said || known.status !== "canceled")) continue;
    changed = true;
    const durationMs = Date.now() - startedAt;
    executionsOut[key] = { ...execution, status, error, ...(started.has(key) ? { startTime: new Date(startedAt) } : {}) };
    if (status === "failed") options.emit({ ...base, type: "asset:failed", time: now, asset: key, error: errorInfo(error), durationMs });
    else options.emit({ ...base, type: "asset:canceled", time: now, asset: key, reason: error.message, ...(started.has(key) ? { durationMs } : {}) });
  }
  const settled = Object.values(executionsOut);
  options.emit(
    reported && !changed
      ? reported
      : {
          ...base,
          type: status === "failed" ? "run:failed" : "run:canceled",
          time: now,
          durationMs: Date.now() - startedAt,
          completed: settled.filter((e) => e.status === "completed").map((e) => e.asset),
          failed: settled.filter((e) => e.status === "failed").map((e) => e.asset),
          canceled: settled.filter((e) => e.status === "canceled").map((e) => e.asset),
        },
  );
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
  const startTime = e.durationMs === undefined ? null : new Date(endTime.getTime() - e.durationMs);
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
