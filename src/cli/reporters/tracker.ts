import type { ErrorInfo, InterloperEvent, LogLevel } from "../../runner/events.js";
import { formatCount } from "../../text/english.js";
import { CheckTally } from "./check-tally.js";
import { logLine } from "./log-line.js";
import { noCounts, STATUS_ORDER, unstartedStatus, type UnitStatus } from "./unit-status.js";

export { formatCount, logLine };

/** One finished unit of progress: a partition's run in a backfill, an asset in a single run. */
export interface FinishedUnit {
  readonly label: string;
  readonly status: UnitStatus;
  /** Completed: true; anything else: false. */
  readonly ok: boolean;
  readonly rows: number;
  readonly durationMs: number;
  /** `asset: message` for each failure, cancellation or skip in the unit: why it did not complete. */
  readonly failures: readonly string[];
  /** The assets that completed in it, in the order they did. */
  readonly assets: readonly string[];
}

/** What one asset did over the whole command: the timing table's row. */
export interface AssetTiming {
  readonly asset: string;
  completed: number;
  failed: number;
  rows: number;
  /** The time spent in the asset's runs, summed over its partitions. */
  durationMs: number;
  /** Whether its runs were over partitions (an unpartitioned asset has none to count). */
  partitioned: boolean;
}

/** A line printed above the bar, in the order things happened: a finished unit, a log event, or a notice of the command. */
export type PrintedLine =
  | { readonly kind: "unit"; readonly unit: FinishedUnit }
  | { readonly kind: "log"; readonly level: LogLevel; readonly text: string }
  | { readonly kind: "notice"; readonly text: string };

/** Per partition (or asset) not finished yet: what the events said of it so far. */
interface OpenUnit {
  rows: number;
  readonly assets: string[];
  readonly reasons: string[];
  /** Assets canceled before its run started, because of their upstream. */
  blocked: "skipped" | "waiting" | null;
  abandoned: boolean;
}

/**
 * Folds the runner's events into what progress views show: done and total, rows, the units in
 * flight, each unit's status and why, per-asset timings. Every reporter (ink, plain, quiet)
 * reads the same tracker, so that every view counts the same.
 */
export class RunTracker {
  total = 0;
  rows = 0;
  readonly startedAt = Date.now();
  readonly running = new Map<string, number>();
  readonly finished: FinishedUnit[] = [];
  readonly counts: Record<UnitStatus, number> = noCounts();
  /** Finished units and log lines, in order, for a view that prints them above its bar. */
  readonly printed: PrintedLine[] = [];
  /** Per asset, in the order they first finished. */
  readonly timings = new Map<string, AssetTiming>();
  /** The failed checks, from their events. */
  readonly checks = new CheckTally();
  /** The keys of the backfill's partitions, once it started. */
  private partitions: readonly string[] = [];
  private readonly open = new Map<string, OpenUnit>();
  private ended = false;

  /**
   * `backfill`: a unit is a partition's run; `run`: a unit is one asset (a backfill:started
   * event makes it a backfill whatever it was given). `logLevel`: the quietest log shown.
   */
  constructor(
    public mode: "run" | "backfill",
    readonly logLevel: LogLevel = "warn",
  ) {}

  /** Units finished, whatever their status (the not-run ones count once the run ended). */
  get done(): number {
    // From the counts, not the list: a view reads this on every frame of a long run.
    let done = this.ended ? this.counts.notRun : 0;
    for (const status of STATUS_ORDER) if (status !== "notRun") done += this.counts[status];
    return done;
  }

  /** Units that failed. */
  get failed(): number {
    return this.counts.failed;
  }

  /** Whether the run or backfill has ended (its last event came). */
  get isOver(): boolean {
    return this.ended;
  }

  /** Applies an event; returns the units it finished. */
  apply(event: InterloperEvent): FinishedUnit[] {
    const warned = this.checks.apply(event);
    if (warned !== null) this.printed.push({ kind: "log", level: "warn", text: warned });
    const text = this.checks.isEcho(event) ? null : logLine(event, this.logLevel);
    if (text !== null && event.type === "log") this.printed.push({ kind: "log", level: event.level, text });
    this.time(event);
    if (event.type === "backfill:started") {
      this.mode = "backfill";
      this.partitions = event.partitions;
      this.total = event.partitions.length;
    }
    return this.mode === "backfill" ? this.applyBackfill(event) : this.applyRun(event);
  }

  /** A line of the command itself (the interrupt), printed above the bar where it happened. */
  notice(text: string): void {
    this.printed.push({ kind: "notice", text });
  }

  /** Units per second since the start. */
  get rate(): number {
    const seconds = (Date.now() - this.startedAt) / 1000;
    return seconds > 0 ? this.done / seconds : 0;
  }

  /** Estimated milliseconds left, or null before anything finished. */
  get etaMs(): number | null {
    return this.done > 0 && this.rate > 0 && !this.ended ? ((this.total - this.done) / this.rate) * 1000 : null;
  }

  private applyBackfill(event: InterloperEvent): FinishedUnit[] {
    const unit = "partition" in event && event.partition ? event.partition : UNPARTITIONED;
    switch (event.type) {
      case "run:started":
        this.running.set(unit, Date.now());
        this.unit(unit);
        return [];
      case "asset:completed": {
        const open = this.unit(unit);
        open.rows += event.rows ?? 0;
        open.assets.push(event.asset);
        return [];
      }
      case "asset:failed":
        this.unit(unit).reasons.push(`${event.asset}: ${failureText(event.error)}`);
        return [];
      case "asset:canceled": {
        const open = this.unit(unit);
        if (event.durationMs !== undefined) {
          // Stopped while it ran: abandoned, or it gave up on the interrupt.
          open.abandoned = true;
          open.reasons.push(`${event.asset}: ${event.reason}`);
          return [];
        }
        const status = unstartedStatus(event.reason);
        // Before its run started: left out for its upstream (a run of the rest may follow).
        // (one skipped asset makes the partition skipped, else it is waiting: as the summary says).
        if (!this.running.has(unit) && status !== "notRun") open.blocked = open.blocked === "skipped" ? "skipped" : status;
        // "demo.revenue: its dependency ... failed" says why by itself; a stop needs the words.
        open.reasons.push(`${event.asset}${status === "notRun" ? " not started" : ""}: ${event.reason}`);
        return [];
      }
      case "run:completed":
      case "run:failed":
      case "run:canceled": {
        const open = this.unit(unit);
        const status: UnitStatus =
          event.type === "run:failed" ? "failed" : (open.blocked ?? (event.type === "run:completed" ? "completed" : "canceled"));
        if (event.type === "run:failed" && event.error && open.reasons.length === 0) open.reasons.push(event.error.message);
        return [this.finish(unit, status, event.durationMs)];
      }
      case "backfill:completed":
      case "backfill:failed":
      case "backfill:canceled":
        return this.end();
      default:
        return [];
    }
  }

  private applyRun(event: InterloperEvent): FinishedUnit[] {
    switch (event.type) {
      case "run:started":
        this.total = event.assets.length;
        return [];
      case "asset:started":
        this.running.set(event.asset, Date.now());
        return [];
      case "asset:completed":
        this.unit(event.asset).rows = event.rows ?? 0;
        this.unit(event.asset).assets.push(event.asset);
        return [this.finish(event.asset, "completed", event.durationMs)];
      case "asset:failed":
        this.unit(event.asset).reasons.push(failureText(event.error));
        return [this.finish(event.asset, "failed", event.durationMs)];
      case "asset:canceled": {
        const open = this.unit(event.asset);
        open.reasons.push(event.reason);
        if (event.durationMs !== undefined) return [this.finish(event.asset, "abandoned", event.durationMs)];
        return [this.finish(event.asset, unstartedStatus(event.reason), 0)];
      }
      case "run:completed":
      case "run:failed":
      case "run:canceled":
        this.ended = true;
        return [];
      default:
        return [];
    }
  }

  /** The backfill ended: partitions that never finished were not run, or were left out for their upstream. */
  private end(): FinishedUnit[] {
    const out: FinishedUnit[] = [];
    const finished = new Set(this.finished.map((u) => u.label));
    for (const key of this.partitions) {
      if (finished.has(key)) continue;
      const blocked = this.open.get(key)?.blocked;
      if (blocked) out.push(this.finish(key, blocked, 0));
      else {
        this.counts.notRun++;
        this.open.delete(key);
      }
    }
    this.running.clear();
    this.ended = true;
    return out;
  }

  private unit(label: string): OpenUnit {
    let open = this.open.get(label);
    if (!open) {
      open = { rows: 0, assets: [], reasons: [], blocked: null, abandoned: false };
      this.open.set(label, open);
    }
    return open;
  }

  private finish(label: string, given: UnitStatus, durationMs: number): FinishedUnit {
    const open = this.unit(label);
    this.open.delete(label);
    this.running.delete(label);
    // A partition stopped after one of its assets started was abandoned, not just canceled.
    const status = given === "canceled" && open.abandoned ? "abandoned" : given;
    this.rows += open.rows;
    const unit: FinishedUnit = {
      label,
      status,
      ok: status === "completed",
      rows: open.rows,
      durationMs,
      failures: open.reasons,
      assets: open.assets,
    };
    if (label !== UNPARTITIONED) this.counts[status]++;
    // A "not run" asset of a single run is counted, never printed: it did not finish anything.
    if (status === "notRun") return unit;
    this.finished.push(unit);
    this.printed.push({ kind: "unit", unit });
    return unit;
  }

  /** Per-asset rows, partitions and time, from the asset events of every mode. */
  private time(event: InterloperEvent): void {
    if (event.type !== "asset:completed" && event.type !== "asset:failed") return;
    let timing = this.timings.get(event.asset);
    if (!timing) {
      timing = { asset: event.asset, completed: 0, failed: 0, rows: 0, durationMs: 0, partitioned: event.partition !== undefined };
      this.timings.set(event.asset, timing);
    }
    timing.durationMs += event.durationMs;
    if (event.type === "asset:completed") {
      timing.completed++;
      timing.rows += event.rows ?? 0;
    } else timing.failed++;
  }
}

/** The unit of a backfill's unpartitioned run: printed, not counted among the partitions. */
export const UNPARTITIONED = "(unpartitioned)";

/** "1.2s", "340ms", "3m 05s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes}m ${String(Math.round((ms % 60_000) / 1000)).padStart(2, "0")}s`;
}

/** Why an asset failed, as its unit's line says it: a CheckError by its first line (the rest lists each check again). */
function failureText(error: ErrorInfo): string {
  return error.name === "CheckError" ? error.message.split("\n")[0]! : error.message;
}
