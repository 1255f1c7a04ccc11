// The session: one loaded project and everything its runs share (listeners, attempts, watchdog,
// pool workers), which a program opens, works with and closes. Two sessions in one process never
// see each other's runs; closing one releases all it holds. The command line uses nothing else.
import type { InterloperConfig } from "../../config/define-config.js";
import { InterloperError } from "../../errors.js";
import type { Partition, PartitionWindow } from "../../partitioning/index.js";
import { RunContext } from "../../runner/context.js";
import type { EventHandler } from "../../runner/events.js";
import { coverage, type Coverage, type CoverageOptions } from "../coverage/index.js";
import { closeProject } from "../loaded.js";
import { runPlan, type MaterializeOutcome } from "../materialize.js";
import { planMaterialize, type Plan } from "../plan.js";
import { loadProject, projectOf, type Project } from "../project.js";
import { readAsset, type ReadResult } from "../read.js";
import {
  readScope,
  resolvePlanOptions,
  selectionOf,
  type SessionMaterializeOptions,
  type SessionPlanOptions,
  type SessionReadOptions,
  type SessionSelection,
} from "./options.js";

export type { SessionMaterializeOptions, SessionPlanOptions, SessionReadOptions, SessionSelection } from "./options.js";

/** Where `openProject` looks for a config file (none given) and what its destinations resolve against. */
export interface OpenProjectOptions {
  /** The folder a config file is searched from (default: the current directory). */
  readonly cwd?: string;
  /** The environment INTERLOPER_CONFIG is read from (default: process.env). */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Opens a session on a project: a config object (what `defineConfig` returns), a config file's
 * path, or nothing (the config file found from `cwd` upward, or named by INTERLOPER_CONFIG).
 */
export async function openProject(config?: InterloperConfig | string, options: OpenProjectOptions = {}): Promise<Session> {
  const project =
    config === undefined || typeof config === "string"
      ? await loadProject({
          ...(config !== undefined ? { configPath: config } : {}),
          ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
          ...(options.env !== undefined ? { env: options.env } : {}),
        })
      : projectOf(config);
  return new Session(project);
}

/** A method called after `close()`. */
class ClosedSessionError extends InterloperError {
  override readonly code: string = "SESSION_CLOSED";
}

/**
 * The runtime of one project: plan, materialize, coverage and read, and the events of this
 * session's runs (`on`). Open it with `openProject`; `close()` ends its workers, releases what
 * its destinations hold open, and forgets its project and listeners.
 */
export class Session {
  /**
   * What this session's runs share, and no other session's: their listeners, attempts,
   * watchdog and pool workers. Handed to what runs outside `materialize` (the queue's worker).
   */
  readonly runtime = new RunContext();
  private closing: Promise<void> | null = null;

  constructor(
    /** The loaded config and its DAG. */
    readonly project: Project,
  ) {}

  /** Listens to every event of this session's runs (and no other's); returns the unsubscribe. */
  on(listener: EventHandler): () => void {
    this.open();
    return this.runtime.listeners.add(listener as (event: { readonly type: string }) => void);
  }

  /** The runs a materialize would make, in order; throws (bad input) before anything runs. */
  async plan(options: SessionPlanOptions = {}): Promise<Plan> {
    this.open();
    return planMaterialize(this.project, await resolvePlanOptions(this.project, options));
  }

  /** Plans (or takes `plan`), then runs: one execution when the window can run whole, a backfill otherwise. */
  async materialize(options: SessionMaterializeOptions = {}): Promise<MaterializeOutcome> {
    this.open();
    const plan = options.plan ?? (await this.plan(options));
    if (options.plan && plan.assets.some((asset) => !this.project.dag.assets.includes(asset)))
      throw new InterloperError("the plan was made for another project: make it with this session's plan()");
    return runPlan(this.project, plan, options, this.runtime);
  }

  /** Coverage of the partitioned assets a selection names (every one when none is), upstream first. */
  async coverage(selection?: SessionSelection, options: CoverageOptions = {}): Promise<Coverage[]> {
    this.open();
    return coverage(this.project, selectionOf(selection), options);
  }

  /**
   * Reads an asset back from its first destination (or `options.destination`): over a
   * partition (`"2026-01-05"`, a Partition), a window (`"2026-01-01..2026-01-31"`, a
   * PartitionWindow), or the scope options (`{ lookback: 3 }`); nothing for an unpartitioned asset.
   */
  async read(
    key: string,
    partitionOrWindow?: string | Partition | PartitionWindow | SessionReadOptions | null,
    options: SessionReadOptions = {},
  ): Promise<ReadResult> {
    this.open();
    return readAsset(this.project, key, readScope(partitionOrWindow, options));
  }

  /** Whether a run or backfill of this session is under way. */
  get running(): boolean {
    return this.runtime.watchdog.underWay;
  }

  /** How many executions its runs abandoned (a timeout, an interrupt's grace) are still running. */
  get abandonedStillRunning(): number {
    return this.runtime.attempts.stillRunning;
  }

  /** Kills this session's pool workers at once (a second Ctrl-C). */
  killWorkers(): void {
    this.runtime.workers.kill();
  }

  /**
   * Hands an error thrown outside every promise to this session's runs under way (see
   * `Watchdog.takeEscapedError`); false when none of them can take it.
   */
  takeEscapedError(error: unknown): boolean {
    return this.runtime.watchdog.takeEscapedError(error);
  }

  /** Whether `close()` was called. */
  get closed(): boolean {
    return this.closing !== null;
  }

  /** Ends its workers, forgets its listeners, and releases and forgets its project; once. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.runtime.close();
      await closeProject(this.project);
    })();
    return this.closing;
  }

  private open(): void {
    if (this.closing) throw new ClosedSessionError("this session is closed: open another with openProject()");
  }
}
