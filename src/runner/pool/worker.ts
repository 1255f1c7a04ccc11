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
  const server = new TaskServer(context);
  // The signals are handled from the start: the parent's SIGTERM may come while the project loads.
  server.listen();
  return server.start(load);
}

/** Resolves once the message is handed to the channel: a worker about to exit waits for it. */
function send(message: FromWorker): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!process.connected) return resolve();
    process.send!(message, undefined, undefined, () => resolve());
  });
}

/** An error as a worker writes it on stderr, where the parent keeps its tail. */
function errorText(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/**
 * The questions a worker asks its parent before each destination write (`may-write`, when the
 * task says so), by id, until the parent's answer comes.
 */
class WritePermits {
  private readonly answers = new Map<number, (refusal: string | null) => void>();
  private asked = 0;

  constructor(private readonly channel: typeof process.channel) {}

  /** Resolves when the parent allows the write; throws `WriteRefused` with its reason when it refuses. */
  readonly ask = async (): Promise<void> => {
    const id = ++this.asked;
    // Waiting for the parent keeps the process alive (the channel is unref'd during a run).
    this.channel?.ref();
    const refusal = await new Promise<string | null>((resolve) => {
      this.answers.set(id, resolve);
      void send({ kind: "may-write", id });
    }).finally(() => {
      this.answers.delete(id);
      if (this.answers.size === 0) this.channel?.unref();
    });
    if (refusal !== null) throw new WriteRefused(refusal);
  };

  answer(id: number, refusal: string | null): void {
    this.answers.get(id)?.(refusal);
  }
}

/** A worker process: its project once loaded, the one task it runs at a time, and how it leaves. */
class TaskServer {
  private readonly channel = process.channel;
  private readonly permits = new WritePermits(this.channel);
  private project: WorkerProject | null = null;
  /** Aborts the task under way when the parent relays an interrupt. */
  private interrupt: AbortController | null = null;
  /** From a task's arrival until its result is handed to the channel. */
  private busy = false;
  private terminating = false;
  private exiting = false;

  constructor(private readonly context: RunContext) {}

  /** Handles the parent's messages, its going away, the signals and what escapes the runs. */
  listen(): void {
    process.on("message", (message: ToWorker) => this.receive(message));
    // The parent is gone (it was killed): nobody is left to report to.
    process.on("disconnect", () => void this.exit(1));
    // A terminal's Ctrl-C reaches the whole process group: the parent relays it as an interrupt,
    // with the grace the partition gets, so the worker's own copy is ignored.
    process.on("SIGINT", () => undefined);
    // The parent's SIGTERM comes at a task's limit, which the run applies itself at the same
    // moment: the worker sends that result, then exits. Idle, it exits at once.
    process.on("SIGTERM", () => {
      this.terminating = true;
      if (!this.busy) void this.exit(143);
    });
    const onEscape = (error: unknown) => {
      if (this.context.watchdog.takeEscapedError(error)) return;
      process.stderr.write(`${errorText(error)}\n`);
      void this.exit(1);
    };
    process.on("uncaughtException", onEscape);
    process.on("unhandledRejection", onEscape);
  }

  /** Loads the project, then tells the parent this worker is ready for tasks. */
  async start(load: () => Promise<WorkerProject>): Promise<void> {
    try {
      this.project = await load();
    } catch (error) {
      // Every partition handed to this worker fails with this line, the end of its stderr.
      process.stderr.write(`${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`);
      return this.exit(1);
    }
    void send({ kind: "ready" });
  }

  private receive(message: ToWorker): void {
    if (message.kind === "task") {
      this.run(message).catch((error: unknown) => {
        // The task could not start (its partition does not parse): the parent sees this process exit with it.
        process.stderr.write(`${errorText(error)}\n`);
        void this.exit(1);
      });
    } else if (message.kind === "interrupt") {
      this.interrupt?.abort(new DOMException(message.reason, "AbortError"));
    } else if (message.kind === "may-write-reply") {
      this.permits.answer(message.id, message.refusal);
    } else if (message.kind === "shutdown") {
      void this.exit(0);
    }
  }

  /** Runs a task as the in-process backfill would run its partition, and sends back its result. */
  private async run(task: WorkerTask): Promise<void> {
    this.busy = true;
    const interrupt = (this.interrupt = new AbortController());
    // While a run is under way the channel does not keep the process alive: when every asset
    // waits on a promise nothing can settle, the event loop drains and the runner's watchdog
    // fails them (watchdog.ts), as it would in process.
    this.channel?.unref();
    let result;
    try {
      const window = this.project!.windowOf(task.partition, task.assets);
      result = await materializeDag(this.project!.dag, window, {
        assets: task.assets,
        backfillId: task.backfillId,
        concurrency: task.concurrency,
        failFast: task.failFast,
        graceMs: task.graceMs,
        ...(task.timeoutMs !== undefined ? { timeoutMs: task.timeoutMs } : {}),
        signal: interrupt.signal,
        ...(task.askBeforeWrite ? { beforeWrite: this.permits.ask } : {}),
        onEvent: (event: InterloperEvent) => void send({ kind: "event", event }),
        context: this.context,
      });
    } finally {
      this.channel?.ref();
      this.interrupt = null;
    }
    const leaving = this.terminating || this.context.attempts.stillRunning > 0;
    await send({ kind: "result", result: runResultToData(result), exiting: leaving });
    this.busy = false;
    if (leaving || this.terminating) await this.exit(this.terminating ? 143 : 0);
  }

  /** Closes the project's destinations (for `CLOSE_LIMIT_MS` at most), then exits; once. */
  private async exit(code: number): Promise<void> {
    if (this.exiting) return;
    this.exiting = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      (this.project?.close() ?? Promise.resolve()).catch(() => undefined),
      new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_LIMIT_MS))),
    ]);
    clearTimeout(timer);
    process.exit(code);
  }
}
