// The parent side of the process pool: worker processes (api/pool-worker.ts) that each load the
// project once and run partition after partition, sent over the IPC channel. A worker that
// crashes, is killed or times out fails only the partition it was running, and the next
// partition gets a fresh worker.
import { fork, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { packageRoot } from "../../package-root.js";
import type { RunControl } from "../attempt.js";
import type { InterloperEvent } from "../events.js";
import { CHILD_KILL_DELAY_MS, DEFAULT_GRACE_MS, interruptName } from "../limits.js";
import type { RunResult } from "../run-result.js";
import { PartitionRun, type TaskEnd } from "./partition-run.js";
import type { WorkerProcesses } from "./processes.js";
import type { FromWorker, ToWorker, WorkerResult, WorkerTask } from "./protocol.js";

/** How a backfill's worker processes are started: the config file they load, their limits. */
export interface ChildProcessOptions {
  /** The config file the workers load. */
  readonly configPath: string;
  readonly cwd?: string;
  /**
   * A limit per partition: the worker fails its partition after this many milliseconds; the
   * parent sends it SIGTERM when that much has passed since the worker took the partition, and
   * SIGKILL CHILD_KILL_DELAY_MS later if it is still running.
   */
  readonly timeoutMs?: number;
  /** A worker's grace after an interrupt; DEFAULT_GRACE_MS when unset. */
  readonly graceMs?: number;
  /** The worker's entry module; defaults to this package's dist/api/pool-worker.js. */
  readonly workerPath?: string;
  /** Added to the workers' environment. */
  readonly env?: Readonly<Record<string, string>>;
}

/** What a pool needs besides its workers' options: the backfill it runs for. */
export interface PoolContext {
  readonly backfillId: string;
  readonly emit: (event: InterloperEvent) => void;
  readonly control: RunControl;
  /** Each partition's run: assets at once, and whether a failure stops it. */
  readonly concurrency: number;
  readonly failFast: boolean;
  /** Where the session keeps its workers alive, so that a stop at once can kill them. */
  readonly workers: WorkerProcesses;
}

/** How much of a worker's stderr is kept for the error of a partition it fails. */
const STDERR_TAIL = 2000;

class Worker {
  readonly child: ChildProcess;
  /** True once the worker loaded its project; false when it exited first. */
  readonly ready: Promise<boolean>;
  readonly closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What the worker wrote on stderr since its current task started. */
  stderr = "";
  onMessage: ((message: FromWorker) => void) | null = null;

  constructor(options: ChildProcessOptions, alive: WorkerProcesses) {
    const path = options.workerPath ?? join(packageRoot(), "dist", "api", "pool-worker.js");
    this.child = fork(path, [options.configPath], {
      ...(options.cwd ? { cwd: options.cwd } : {}),
      env: { ...process.env, ...options.env },
      // Not the parent's flags (a profiler's, a test runner's): a worker is a plain process.
      execArgv: [],
      // Its stdout is the user's code's (console.log): the parent's stdout may be --json events.
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    alive.add(this.child);
    this.child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL)));
    this.closed = new Promise((resolve) => {
      const done = (code: number | null, signal: NodeJS.Signals | null) => {
        alive.delete(this.child);
        resolve({ code, signal });
      };
      this.child.once("close", done);
      this.child.once("error", (error) => {
        this.stderr += `\n${error.message}`;
        done(null, null);
      });
    });
    this.ready = new Promise((resolve) => {
      this.child.on("message", (message: FromWorker) => (message.kind === "ready" ? resolve(true) : this.onMessage?.(message)));
      void this.closed.then(() => resolve(false));
    });
  }

  send(message: ToWorker): void {
    // A worker that just exited cannot take it; its 'close' tells the task so.
    if (this.child.connected) this.child.send(message, (error) => void error);
  }
}

/** Tells a worker whether its write may start: `beforeWrite` resolved, or why not. */
function answer(worker: Worker, id: number, beforeWrite: () => Promise<void>): void {
  beforeWrite().then(
    () => worker.send({ kind: "may-write-reply", id, refusal: null }),
    (error: unknown) => worker.send({ kind: "may-write-reply", id, refusal: error instanceof Error ? error.message : String(error) }),
  );
}

/** The worker processes of one backfill, at most as many alive as partitions run at once. */
export class WorkerPool {
  private readonly idle: Worker[] = [];
  private readonly workers = new Set<Worker>();

  constructor(
    private readonly options: ChildProcessOptions,
    private readonly context: PoolContext,
  ) {}

  /**
   * Runs one partition's assets in a worker, re-emitting its events; never throws for the
   * worker's sake. `beforeWrite`, when given, is asked before each of the worker's destination
   * writes; its rejection refuses the write (the asset fails with its message).
   */
  async run(partition: string, assets: readonly string[], beforeWrite?: () => Promise<void>): Promise<RunResult> {
    const worker = this.idle.pop() ?? this.start();
    const { timeoutMs } = this.options;
    const graceMs = this.options.graceMs ?? DEFAULT_GRACE_MS;
    const record = new PartitionRun(partition, assets, this.context.backfillId, this.context.emit, timeoutMs);
    const task: WorkerTask = {
      kind: "task",
      partition,
      assets,
      backfillId: this.context.backfillId,
      ...(timeoutMs ? { timeoutMs } : {}),
      graceMs,
      concurrency: this.context.concurrency,
      failFast: this.context.failFast,
      ...(beforeWrite ? { askBeforeWrite: true } : {}),
    };
    worker.stderr = "";
    let asked: TaskEnd["asked"] = null;
    let sent = false;
    const timers: Array<ReturnType<typeof setTimeout>> = [];
    const interrupt = () => worker.send({ kind: "interrupt", reason: interruptName(this.context.control.signal!) });
    const stop = (why: "timeout" | "interrupt") => {
      if (asked) return;
      asked = why;
      if (why === "timeout") worker.child.kill("SIGTERM");
      else if (sent) interrupt();
      // The worker stops by itself at its limit or after its grace; one whose event loop is blocked cannot.
      timers.push(setTimeout(() => worker.child.kill("SIGKILL"), (why === "interrupt" ? graceMs : 0) + CHILD_KILL_DELAY_MS));
    };
    // The limit runs from the task's hand-over to a started worker, whose run applies the same
    // limit itself and names what hung (the parent's SIGTERM, a moment before, waits for that).
    // A worker's start is not the partition's: it loads the config the parent loaded already.
    let limit: ReturnType<typeof setTimeout> | null = null;
    const unlisten = this.context.control.onInterrupt(() => stop("interrupt"));
    const end = await new Promise<{ reply: WorkerResult | null; exit: TaskEnd["exit"] }>((resolve) => {
      worker.onMessage = (message) => {
        if (message.kind === "event") record.onEvent(message.event);
        else if (message.kind === "result") resolve({ reply: message, exit: null });
        else if (message.kind === "may-write" && beforeWrite) answer(worker, message.id, beforeWrite);
      };
      void worker.closed.then((exit) => resolve({ reply: null, exit }));
      void worker.ready.then((ok) => {
        if (!ok) return;
        worker.send(task);
        sent = true;
        if (timeoutMs) limit = setTimeout(() => stop("timeout"), timeoutMs);
        if (asked === "interrupt") interrupt();
      });
    });
    unlisten();
    if (limit) clearTimeout(limit);
    worker.onMessage = null;
    const healthy = end.reply !== null && !end.reply.exiting && asked !== "timeout";
    const clear = () => timers.forEach(clearTimeout);
    if (healthy) {
      clear();
      this.idle.push(worker);
    } else {
      // It is on its way out (it said so, it was stopped, or it is gone): SIGKILL if it lingers.
      timers.push(setTimeout(() => worker.child.kill("SIGKILL"), CHILD_KILL_DELAY_MS));
      void worker.closed.then(clear);
    }
    // A worker that exited has closed its stderr: all of its last lines are in.
    return record.settle({ ...end, asked, stderr: end.exit ? worker.stderr : "" });
  }

  /** Tells every worker to exit and waits until they have (SIGKILL for one that lingers). */
  async close(): Promise<void> {
    const workers = [...this.workers];
    for (const worker of this.idle) worker.send({ kind: "shutdown" });
    this.idle.length = 0;
    const timer = setTimeout(() => workers.forEach((w) => w.child.kill("SIGKILL")), CHILD_KILL_DELAY_MS);
    await Promise.all(workers.map((w) => w.closed));
    clearTimeout(timer);
  }

  private start(): Worker {
    const worker = new Worker(this.options, this.context.workers);
    this.workers.add(worker);
    void worker.closed.then(() => {
      this.workers.delete(worker);
      const index = this.idle.indexOf(worker);
      if (index >= 0) this.idle.splice(index, 1);
    });
    return worker;
  }
}
