import type { ChildProcess } from "node:child_process";

/** The pool workers alive of one session's runs (see RunContext), so that a stop at once can take them along. */
export class WorkerProcesses {
  private readonly alive = new Set<ChildProcess>();

  /** Follows a worker until it exits. */
  add(child: ChildProcess): void {
    this.alive.add(child);
  }

  delete(child: ChildProcess): void {
    this.alive.delete(child);
  }

  get size(): number {
    return this.alive.size;
  }

  /** Kills every one (a second Ctrl-C: the parent stops at once, and they with it). */
  kill(): void {
    for (const child of this.alive) child.kill("SIGKILL");
  }
}
