import type { InterloperEvent } from "../../runner/events.js";

/** One finished unit of progress: a partition's run in a backfill, an asset in a single run. */
export interface FinishedUnit {
  readonly label: string;
  readonly ok: boolean;
  readonly rows: number;
  readonly durationMs: number;
  /** `asset: message` for each failure in the unit. */
  readonly failures: readonly string[];
}

/**
 * Folds the runner's events into what progress views show: done and total, rows, the units
 * in flight, failures. Every reporter (ink, plain, CI) reads the same tracker.
 */
/** A line printed above the bar, in the order things happened: a finished unit or a log event's warning or error. */
export type PrintedLine = { readonly kind: "unit"; readonly unit: FinishedUnit } | { readonly kind: "log"; readonly text: string };

/** The plain text of a warn or error log event ("warning: shop.orders: ..."); null for other events. */
export function logLine(event: InterloperEvent): string | null {
  if (event.type !== "log" || (event.level !== "warn" && event.level !== "error")) return null;
  return `${event.level === "warn" ? "warning" : "error"}: ${event.asset ? `${event.asset}: ` : ""}${event.message}`;
}

export class RunTracker {
  total = 0;
  done = 0;
  failed = 0;
  rows = 0;
  readonly startedAt = Date.now();
  readonly running = new Map<string, number>();
  readonly finished: FinishedUnit[] = [];
  /** Finished units and warnings, in order, for a view that prints them above its bar. */
  readonly printed: PrintedLine[] = [];
  private readonly unitRows = new Map<string, number>();
  private readonly unitFailures = new Map<string, string[]>();

  /** `backfill`: a unit is a partition's run; `run`: a unit is one asset. */
  constructor(readonly mode: "run" | "backfill") {}

  /** Applies an event; returns the units it finished. */
  apply(event: InterloperEvent): FinishedUnit[] {
    const out: FinishedUnit[] = [];
    const text = logLine(event);
    if (text !== null) this.printed.push({ kind: "log", text });
    if (this.mode === "backfill") {
      if (event.type === "backfill:started") this.total = event.partitions.length;
      const unit = "partition" in event && event.partition ? event.partition : "(unpartitioned)";
      if (event.type === "run:started") this.running.set(unit, Date.now());
      if (event.type === "asset:completed") this.unitRows.set(unit, (this.unitRows.get(unit) ?? 0) + (event.rows ?? 0));
      if (event.type === "asset:failed") this.failure(unit, `${event.asset}: ${event.error.message}`);
      // Canceled while it ran (abandoned, or it stopped on the interrupt): say why on its line.
      if (event.type === "asset:canceled" && event.durationMs !== undefined) this.failure(unit, `${event.asset}: ${event.reason}`);
      if (event.type === "run:completed" || event.type === "run:failed" || event.type === "run:canceled") {
        if (unit !== "(unpartitioned)") this.done++;
        out.push(this.finish(unit, event.type === "run:completed", event.durationMs));
      }
    } else {
      if (event.type === "run:started") this.total = event.assets.length;
      if (event.type === "asset:started") this.running.set(event.asset, Date.now());
      if (event.type === "asset:completed") {
        this.unitRows.set(event.asset, event.rows ?? 0);
        this.done++;
        out.push(this.finish(event.asset, true, event.durationMs));
      }
      if (event.type === "asset:failed" || event.type === "asset:canceled") {
        this.failure(event.asset, event.type === "asset:failed" ? event.error.message : `canceled: ${event.reason}`);
        this.done++;
        out.push(this.finish(event.asset, false, event.type === "asset:failed" ? event.durationMs : 0));
      }
    }
    return out;
  }

  /** Units per second since the start. */
  get rate(): number {
    const seconds = (Date.now() - this.startedAt) / 1000;
    return seconds > 0 ? this.done / seconds : 0;
  }

  /** Estimated milliseconds left, or null before anything finished. */
  get etaMs(): number | null {
    return this.done > 0 && this.rate > 0 ? ((this.total - this.done) / this.rate) * 1000 : null;
  }

  private failure(unit: string, message: string): void {
    const list = this.unitFailures.get(unit) ?? [];
    list.push(message);
    this.unitFailures.set(unit, list);
  }

  private finish(label: string, ok: boolean, durationMs: number): FinishedUnit {
    this.running.delete(label);
    const rows = this.unitRows.get(label) ?? 0;
    this.rows += rows;
    if (!ok) this.failed++;
    const unit = { label, ok, rows, durationMs, failures: this.unitFailures.get(label) ?? [] };
    this.finished.push(unit);
    this.printed.push({ kind: "unit", unit });
    return unit;
  }
}

/** "1.2s", "340ms", "3m 05s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes}m ${String(Math.round((ms % 60_000) / 1000)).padStart(2, "0")}s`;
}

/** "1,234,567". */
export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}
