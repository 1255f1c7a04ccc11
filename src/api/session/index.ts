// The session: one loaded project and everything its runs share (listeners, attempts, watchdog,
// pool workers), which a program opens, works with and closes. Two sessions in one process never
// see each other's runs; closing one releases all it holds. The command line uses nothing else.
import type { InterloperConfig } from "../../config/define-config.js";
import { InterloperError } from "../../errors.js";
import type { MultiValues, Partition, PartitionWindow } from "../../partitioning/index.js";
import { parseValues } from "../multi-scope.js";
import { RunContext } from "../../runner/context.js";
import type { EventHandler } from "../../runner/events.js";
import type { Asset } from "../../asset/asset.js";
import type { HistoryOptions } from "../../asset/asset-history.js";
import { RecordCache, type Staleness } from "../../asset/staleness.js";
import { graphStaleness } from "../coverage/stale.js";
import { assetWindow } from "../scope.js";
import type { Materialization } from "../../destination/provenance/materialization.js";
import { coverage, type Coverage } from "../coverage/index.js";
import { planCopy, runCopy, type CopiedPartition, type CopyPlan } from "../copy.js";
import { lastWritten, partitionDetails, type PartitionInDestination } from "../coverage/partition-details.js";
import { describeAssets, type AssetDescription } from "../describe.js";
import { dropPlannedAssets, fullRefreshTargets, type FullRefreshTarget } from "../full-refresh.js";
import { closeProject } from "../loaded.js";
import { currentRowCounts, runPlan, type MaterializeOutcome } from "../materialize.js";
import { planMaterialize, type Plan } from "../plan.js";
import { findAsset, type Project } from "../project.js";
import { projectFor, type OpenProjectOptions } from "./open.js";
import { readAsset, type ReadResult } from "../read.js";
import { refreshScope, type RefreshScope } from "../refresh-scope.js";
import { partitioned, selectAssets, singleAsset } from "../select.js";
import { verifyAssets, type AssetVerification, type VerifyOptions } from "../verify.js";
import {
  coverageOptions,
  readScope,
  resolvePlanOptions,
  scopeText,
  selectedPlanOptions,
  selectionOf,
  type SessionCoverageOptions,
  type SessionMaterializeOptions,
  type SessionPlanOptions,
  type SessionReadOptions,
  type SessionSelection,
  type WithScopeObjects,
} from "./options.js";

export type {
  SessionCoverageOptions,
  SessionMaterializeOptions,
  SessionPlanOptions,
  SessionReadOptions,
  SessionSelection,
  WithScopeObjects,
} from "./options.js";
export * from "./surface.js";
export type { OpenProjectOptions } from "./open.js";
export type { RefreshScope } from "../refresh-scope.js";
export type { CopiedPartition, CopyPlan, PartitionCopy, UncopiedPartition } from "../copy.js";

/**
 * Opens a session on a project: a config object (what `defineConfig` returns), a config file's
 * path, or nothing (the config file found from `cwd` upward, or named by INTERLOPER_CONFIG).
 */
export async function openProject(config?: InterloperConfig | string, options: OpenProjectOptions = {}): Promise<Session> {
  return new Session(await projectFor(config, options));
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
    const resolved = await resolvePlanOptions(this.project, options);
    const plan = planMaterialize(this.project, resolved);
    return resolved.staleReasons ? { ...plan, staleReasons: resolved.staleReasons } : plan;
  }

  /** Plans (or takes `plan`), then runs: one execution when the window can run whole, a backfill otherwise. */
  async materialize(options: SessionMaterializeOptions = {}): Promise<MaterializeOutcome> {
    this.open();
    const plan = options.plan ?? (await this.plan(options));
    if (options.plan && plan.assets.some((asset) => !this.project.dag.assets.includes(asset)))
      throw new InterloperError("the plan was made for another project: make it with this session's plan()");
    return runPlan(this.project, plan, options, this.runtime);
  }

  /**
   * What a copy from the destination keyed `from` fills (`materialize --missing --from`): the
   * partitions another destination lacks and `from` holds with its record, as `missing` finds
   * them (its options in `options.missing`), and those it cannot copy, with why.
   */
  async copyPlan(from: string, options: SessionPlanOptions = {}): Promise<CopyPlan> {
    this.open();
    const missing = typeof options.missing === "object" ? options.missing : {};
    return planCopy(this.project, selectedPlanOptions(options), missing, from);
  }

  /** Copies a copy plan's partitions, each with its record in the source kept as it is: nothing runs, nothing becomes stale. */
  async copy(plan: CopyPlan, onCopied?: (copied: CopiedPartition) => void): Promise<CopiedPartition[]> {
    this.open();
    return runCopy(this.project, plan, onCopied);
  }

  /**
   * Coverage of the partitioned assets a selection names (every one when none is), upstream
   * first; over a window, or the partitions `partition`, `lookback`, `offset` and `tz` name.
   */
  async coverage(selection?: SessionSelection, options: SessionCoverageOptions = {}): Promise<Coverage[]> {
    this.open();
    const selected = selectionOf(selection);
    const scoped = coverageOptions(options, () => selectAssets(this.project.dag, { ...selected, keep: partitioned("coverage") }));
    return coverage(this.project, selected, scoped);
  }

  /**
   * The list values `--values` texts name (`["region=eu,us"]`, a dimension given twice adds up),
   * read by the multi-partitioned assets of a selection (every one when none is): what the
   * `values` option of plan, materialize, coverage and read takes.
   */
  parseValues(texts: readonly string[], selection?: SessionSelection): MultiValues {
    this.open();
    return parseValues(selectAssets(this.project.dag, selectionOf(selection)), texts);
  }

  /**
   * Runs the checks of each asset a selection names (every one when none is) over its stored
   * partitions in a window, or one partition, or all stored; writes nothing. Upstream first.
   */
  async verify(selection?: SessionSelection, options: WithScopeObjects<VerifyOptions> = {}): Promise<AssetVerification[]> {
    this.open();
    return verifyAssets(this.project, selectionOf(selection), scopeText<VerifyOptions>(options));
  }

  /** How each asset a selection names (every one when none is) is set up, upstream first; as `interloper list` shows it. */
  describe(selection?: SessionSelection): AssetDescription[] {
    this.open();
    const selected = new Set(selectAssets(this.project.dag, selectionOf(selection)).map((a) => a.qualifiedKey));
    return describeAssets(this.project.dag).filter((a) => selected.has(a.key));
  }

  /** The asset a selection names by its key alone (`"orders"`: not `"orders+"`, a source or a tag), or null. */
  namedAsset(selection?: SessionSelection): Asset | null {
    this.open();
    return singleAsset(this.project.dag, selectionOf(selection));
  }

  /** The rows stored now of each partition a plan would replace, per asset (an unpartitioned asset's under ""). */
  rowCounts(plan: Plan): Promise<Record<string, Record<string, number>>> {
    this.open();
    return currentRowCounts(plan);
  }

  /** What each destination holds of one stored partition: rows, when written, where. */
  async partitionDetails(asset: string, key: string): Promise<PartitionInDestination[]> {
    this.open();
    return partitionDetails(this.assetOf(asset), key);
  }

  /** When any of these stored partitions of an asset was last written, where its destinations say; else null. */
  async lastWritten(asset: string, storedKeys: readonly string[]): Promise<Date | null> {
    this.open();
    return lastWritten(this.assetOf(asset), storedKeys);
  }

  /**
   * For a full refresh of a plan: what each destination of its assets would drop (every one
   * checked able to), and what the rebuild runs: the plan's options, widened to the stored
   * partitions its window leaves out, so that nothing dropped stays unbuilt.
   */
  async fullRefreshScope(plan: Plan, options: SessionPlanOptions): Promise<{ targets: FullRefreshTarget[]; scope: RefreshScope }> {
    this.open();
    const targets = await fullRefreshTargets(plan);
    return { targets, scope: await refreshScope(plan, await resolvePlanOptions(this.project, options)) };
  }

  /** Drops all that the plan's assets hold in every destination, each under its asset's lock (writes under way end first). */
  drop(plan: Plan): Promise<void> {
    this.open();
    return dropPlannedAssets(plan);
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

  /**
   * The records of an asset's writes in its first destination, newest first: of one partition
   * (a key or a Partition), or of every partition; empty when that destination keeps none.
   */
  async history(asset: string, partition?: string | Partition | null, options: HistoryOptions = {}): Promise<Materialization[]> {
    this.open();
    return this.assetOf(asset).history(partition, options);
  }

  /**
   * The stored partitions of an asset (over a window, or all) that are out of date, each with
   * why (see `Asset.staleness`); upstream assets are looked for in the whole project.
   */
  async staleness(asset: string, window?: string | PartitionWindow | Partition | null): Promise<Staleness> {
    this.open();
    const found = this.assetOf(asset);
    const given = typeof window === "string" ? assetWindow(found, window) : (window ?? null);
    const scope = given && found.partitioning ? found.partitioning.check(given, found.qualifiedKey, true) : null;
    return graphStaleness(found, this.project.dag, scope, new RecordCache());
  }

  /** Whether a run or backfill of this session is under way. */
  get running(): boolean {
    return this.runtime.watchdog.underWay;
  }

  /** How many executions its runs abandoned (a timeout, an interrupt's grace) are still running. */
  get abandonedStillRunning(): number {
    return this.runtime.attempts.stillRunning;
  }

  /**
   * Resolves once every execution its runs abandoned has settled: told to stop, each ends its
   * write (a file store removes its temporary file). A hung one never settles: bound the wait.
   */
  abandonedSettled(): Promise<void> {
    return this.runtime.attempts.leftSettled();
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

  private assetOf(key: string): Asset {
    return findAsset(this.project, key);
  }

  private open(): void {
    if (this.closing) throw new ClosedSessionError("this session is closed: open another with openProject()");
  }
}
