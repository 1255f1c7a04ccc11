// What a session's methods take, and how it becomes the options of the api functions they call.
import { ConfigError } from "../../errors.js";
import { Partition, PartitionWindow } from "../../partitioning/index.js";
import type { Asset } from "../../asset/asset.js";
import type { CoverageOptions } from "../coverage/index.js";
import type { PlanExecutionOptions } from "../materialize.js";
import { missingPlanOptions, type MissingOptions } from "../missing.js";
import type { Plan, PlanOptions } from "../plan.js";
import type { Project } from "../project.js";
import { resolveScope, type ScopeOptions } from "../scope.js";
import { checkStaleOptions, stalePlanOptions } from "../stale-plan.js";

/**
 * Which assets: one selector (`"orders"`, `"shop"`, `"tag:finance"`, `"+orders"`), several (a
 * union), or selectors to take and to leave out. None means every asset the method can work on.
 */
export type SessionSelection = string | readonly string[] | { readonly select?: readonly string[]; readonly exclude?: readonly string[] };

/**
 * Options naming a window or a partition as the session takes them: by their text
 * (`"2026-01-01..2026-01-03"`, `"2026-01-05"`) or by the specification's objects
 * (`new il.TimePartitionWindow("2026-01-01", "2026-01-03")`, a Partition).
 */
export type WithScopeObjects<T> = Omit<T, "window" | "partition"> & {
  readonly window?: string | PartitionWindow;
  readonly partition?: string | Partition;
};

/** The options with a window or partition object given as its text, as the api functions read them. */
export function scopeText<T extends { readonly window?: string; readonly partition?: string }>(options: WithScopeObjects<T>): T {
  const { window, partition, ...rest } = options;
  return {
    ...rest,
    ...(window !== undefined ? { window: window instanceof PartitionWindow ? String(window) : window } : {}),
    ...(partition !== undefined ? { partition: partition instanceof Partition ? partition.key : partition } : {}),
  } as unknown as T;
}

/** Options of `session.plan`: what to run, as `planMaterialize` takes it, and `missing`. */
export interface SessionPlanOptions extends WithScopeObjects<PlanOptions> {
  /** The assets (instead of `assets` and `exclude`). */
  readonly selection?: SessionSelection;
  /**
   * Only the partitions coverage reports missing or unreadable, within the window or else the
   * whole expected range (true, or how: `MissingOptions`); as `interloper materialize --missing`.
   */
  readonly missing?: boolean | MissingOptions;
  /**
   * Only the stored partitions that are stale, within the window or wherever they are, and those
   * of the selected assets that read one of them (rebuilt after it, in the same run); as
   * `interloper materialize --stale`. The plan says why each runs (`staleReasons`).
   */
  readonly stale?: boolean;
}

/** Options of `session.materialize`: what to run (as `session.plan`) and how (as `materialize`). */
export interface SessionMaterializeOptions extends SessionPlanOptions, PlanExecutionOptions {
  /**
   * A plan this session made (`session.plan`), run as it stands: nothing is planned again and
   * the options of what to run are not read (a command shows the plan, then runs it).
   */
  readonly plan?: Plan;
}

/**
 * Options of `session.coverage`: those of `coverage`, and the partitions to look at named as
 * `materialize` names them (one of `partition`, `window`, `lookback`; `offset` and `tz` with
 * `lookback`), read by the selected assets' partitionings.
 */
export type SessionCoverageOptions = WithScopeObjects<CoverageOptions & Omit<ScopeOptions, "window" | "now">>;

/** Options of `session.read`, besides the partition or window. */
export interface SessionReadOptions extends WithScopeObjects<ScopeOptions> {
  /** At most this many rows (0 or unset: all). */
  readonly limit?: number;
  /** The destination to read, by its key in the asset's destinations (default: the first). */
  readonly destination?: string;
}

/** The selection as `{ select, exclude }`. */
export function selectionOf(selection: SessionSelection | undefined): { select: readonly string[]; exclude: readonly string[] } {
  if (selection === undefined) return { select: [], exclude: [] };
  if (typeof selection === "string") return { select: [selection], exclude: [] };
  if (isList(selection)) return { select: selection, exclude: [] };
  return { select: selection.select ?? [], exclude: selection.exclude ?? [] };
}

function isList(selection: SessionSelection): selection is readonly string[] {
  return Array.isArray(selection);
}

/**
 * The options `planMaterialize` takes: the selection as `assets` and `exclude`, and `missing`
 * resolved into the partitions to run (coverage is read once, here).
 */
export async function resolvePlanOptions(project: Project, options: SessionPlanOptions): Promise<PlanOptions & Pick<Plan, "staleReasons">> {
  checkStaleOptions(options);
  const { missing, stale } = options;
  const plan = selectedPlanOptions(options);
  if (stale) {
    const found = await stalePlanOptions(project, plan);
    return { ...found.options, staleReasons: found.reasons };
  }
  if (!missing) return plan;
  return missingPlanOptions(project, plan, missing === true ? {} : missing);
}

/** The plan options alone, the selection given as `assets` and `exclude`. */
export function selectedPlanOptions(options: SessionPlanOptions): PlanOptions {
  const { selection, missing: _missing, stale: _stale, ...rest } = scopeText<PlanOptions & SessionPlanOptions>(options);
  if (selection !== undefined && (rest.assets !== undefined || rest.exclude !== undefined))
    throw new ConfigError((o) => `${o("selection")} names the assets: leave out ${o(rest.assets !== undefined ? "assets" : "exclude")}`);
  const { select, exclude } = selectionOf(selection);
  return selection === undefined ? rest : { ...rest, assets: select, ...(exclude.length ? { exclude } : {}) };
}

/** What `session.read` was given for its window, as `readAsset`'s options. */
export function readScope(
  partitionOrWindow: string | Partition | PartitionWindow | SessionReadOptions | null | undefined,
  options: SessionReadOptions,
): ReadOptions {
  const text = (given: SessionReadOptions) => scopeText<ReadOptions>(given);
  if (partitionOrWindow === null || partitionOrWindow === undefined) return text(options);
  if (partitionOrWindow instanceof Partition) return text({ ...options, partition: partitionOrWindow });
  if (partitionOrWindow instanceof PartitionWindow) return text({ ...options, window: partitionOrWindow });
  if (typeof partitionOrWindow === "string")
    return text({ ...options, ...(partitionOrWindow.includes("..") ? { window: partitionOrWindow } : { partition: partitionOrWindow }) });
  return text({ ...partitionOrWindow, ...options });
}

/** What `readAsset` takes: the scope in text, a limit and a destination. */
type ReadOptions = ScopeOptions & Pick<SessionReadOptions, "limit" | "destination">;

/** `coverage`'s options: a partition or lookback resolved into the window it names (by `assets`' partitionings). */
export function coverageOptions(given: SessionCoverageOptions, assets: () => Asset[]): CoverageOptions {
  const options = scopeText<CoverageOptions & Omit<ScopeOptions, "window" | "now">>(given);
  const { partition, lookback, offset, tz, ...rest } = options;
  if (partition === undefined && lookback === undefined && offset === undefined && tz === undefined) return rest;
  const scope = resolveScope(assets(), options);
  // A lookback took `includeCurrent` (the period in progress counted): the window says it now.
  const { window: _given, ...others } = lookback !== undefined ? withoutIncludeCurrent(rest) : rest;
  return scope ? { ...others, window: String(scope) } : others;
}

function withoutIncludeCurrent<T extends { readonly includeCurrent?: boolean }>(options: T): Omit<T, "includeCurrent"> {
  const { includeCurrent: _included, ...rest } = options;
  return rest;
}
