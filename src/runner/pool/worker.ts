// The worker side of the process pool: runs the tasks its parent sends, one at a time, each as
// the run an in-process backfill would start for that partition, and sends back its events and
// its result. The process entry (api/pool-worker.ts) loads the project and hands it here.
import type { AssetGraph } from "../../asset/dependencies.js";
import { InterloperError } from "../../errors.js";
import type { PartitionWindow } from "../../partitioning/index.js";
import { RunContext } from "../context.js";
import type { InterloperEvent } from "../events.js";
import { materializeDag } from "../run.js";
import { runResultToData, type FromWorker, type ToWorker, type WorkerTask } from "./protocol.js";

/** The parent refused a destination write (a queue worker that no longer holds its job). */
class WriteRefused extends InterloperError {
  override readonly code: string = "WRITE_REFUSED";
}

/** What a worker serves tasks with. */
export interface WorkerProject {
  readonly dag: AssetGraph;
  /** The window of one partition key, read by the partitioning of `assets`. */
  windowOf(partition: string, assets: readonly string[]): PartitionWindow;
  /** Releases what the destinations hold open, before the process exits. */
  close(): Promise<void>;
}

/** How long closing the destinations may take before a worker exits anyway. */
const CLOSE_LIMIT_MS = 2_000;

/**
 * Serves tasks on this process's IPC channel until the parent says shutdown or goes away.
 * A worker that leaves abandoned work running (a hung asset past its timeout or grace), or was
 * sent SIGTERM, exits once it has sent its result: the parent starts a fresh one. The worker's
 * runs share `context`: its watchdog takes what escapes them, its attempts say what was left running.
 */
export async function serveTasks(load: () => Promise<WorkerProject>, context = new RunContext()): Promise<void> {
  const channel = process.channel;
  let project: WorkerProject | null = null;
  // Resolves once the message is handed to the channel: a worker about to exit waits for it.
  const send = (message: FromWorker) =>
    new Promise<void>((resolve) => {
      if (!process.connected) return resolve();
      process.send!(message, undefined, undefined, () => resolve());
    });
  let interrupt: AbortController | null = null;
  // The parent's answers to `may-write`, by id.
  const answers = new Map<number, (refusal: string | null) => void>();
  let asked = 0;
  const mayWrite = async (): Promise<void> => {
    const id = ++asked;
    // Waiting for the parent keeps the process alive (the channel is unref'd during a run).
    channel?.ref();
    const refusal = await new Promise<string | null>((resolve) => {
      answers.set(id, resolve);
      void send({ kind: "may-write", id });
    }).finally(() => {
      answers.delete(id);
      if (answers.size === 0) channel?.unref();
    });
    if (refusal !== null) throw new WriteRefused(refusal);
  };
  /** From a task's arrival until its result is handed to the channel. */
  let busy = false;
  let terminating = false;
  let exiting = false;

  const exit = async (code: number): Promise<void> => {
    if (exiting) return;
    exiting = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      (project?.close() ?? Promise.resolve()).catch(() => undefined),
      new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_LIMIT_MS))),
    ]);
    clearTimeout(timer);
    process.exit(code);
  };

  const run = async (task: WorkerTask) => {
    busy = true;
    interrupt = new AbortController();
    // While a run is under way the channel does not keep the process alive: when every asset
    // waits on a promise nothing can settle, the event loop drains and the runner's watchdog
    // fails them (watchdog.ts), as it would in process.
    channel?.unref();
    let result;
    try {
      const window = project!.windowOf(task.partition, task.assets);
      result = await materializeDag(project!.dag, window, {
        assets: task.assets,
        backfillId: task.backfillId,
        concurrency: task.concurrency,
        failFast: task.failFast,
        graceMs: task.graceMs,
        ...(task.timeoutMs !== undefined ? { timeoutMs: task.timeoutMs } : {}),
        signal: interrupt.signal,
        ...(task.askBeforeWrite ? { beforeWrite: mayWrite } : {}),
        onEvent: (event: InterloperEvent) => void send({ kind: "event", event }),
        context,
      });
    } finally {
      channel?.ref();
      interrupt = null;
    }
    const leaving = terminating || context.attempts.stillRunning > 0;
    await send({ kind: "result", result: runResultToData(result), exiting: leaving });
    busy = false;
    if (leaving || terminating) await exit(terminating ? 143 : 0);
  };

  process.on("message", (message: ToWorker) => {
    if (message.kind === "task") {
      run(message).catch((error: unknown) => {
        // The task could not start (its partition does not parse): the parent sees this process exit with it.
        process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
        void exit(1);
      });
    } else if (message.kind === "interrupt") {
      interrupt?.abort(new DOMException(message.reason, "AbortError"));
    } else if (message.kind === "may-write-reply") {
      answers.get(message.id)?.(message.refusal);
    } else if (message.kind === "shutdown") {
      void exit(0);
    }
  });
  // The parent is gone (it was killed): nobody is left to report to.
  process.on("disconnect", () => void exit(1));
  // A terminal's Ctrl-C reaches the whole process group: the parent relays it as an interrupt,
  // with the grace the partition gets, so the worker's own copy is ignored.
  process.on("SIGINT", () => undefined);
  // The parent's SIGTERM comes at a task's limit, which the run applies itself at the same
  // moment: the worker sends that result, then exits. Idle, it exits at once.
  process.on("SIGTERM", () => {
    terminating = true;
    if (!busy) void exit(143);
  });
  const onEscape = (error: unknown) => {
    if (context.watchdog.takeEscapedError(error)) return;
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    void exit(1);
  };
  process.on("uncaughtException", onEscape);
  process.on("unhandledRejection", onEscape);
  // The signals are handled from the start: the parent's SIGTERM may come while the project loads.
  try {
    project = await load();
  } catch (error) {
    // Every partition handed to this worker fails with this line, the end of its stderr.
    process.stderr.write(`${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`);
    return exit(1);
  }
  void send({ kind: "ready" });
}
