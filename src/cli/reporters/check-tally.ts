// The failed checks of a run, as the progress views, the plain log, the summary and the timing
// table name them: folded from `check_failed` events, so a run in worker processes counts the same.
import type { InterloperEvent } from "../../runner/events.js";
import { formatCount } from "../../text/english.js";

/** One failed check of one partition (partition null: an unpartitioned asset). */
export interface FailedCheck {
  readonly asset: string;
  readonly partition: string | null;
  readonly check: string;
  readonly severity: "error" | "warn";
  readonly failures: number;
  readonly examples: readonly string[];
  readonly message: string;
}

/** Failed checks of one asset, by severity. */
export interface AssetCheckCounts {
  error: number;
  warn: number;
}

/** The failed checks of a run, in the order they were reported. */
export class CheckTally {
  readonly failed: FailedCheck[] = [];
  readonly perAsset = new Map<string, AssetCheckCounts>();
  /** Warnings the library logs beside a warn check's event: the check's own line says it already. */
  private readonly echoes = new Set<string>();

  /** Takes a `check_failed` event; returns the line to print for a warn check (an error one fails its partition, whose line says why). */
  apply(event: InterloperEvent): string | null {
    if (event.type !== "check_failed") return null;
    const partition = event.partition ?? null;
    const { asset, check, severity, failures, examples, message } = event;
    const failed: FailedCheck = { asset, partition, check, severity, failures, examples, message };
    this.failed.push(failed);
    const counts = this.perAsset.get(event.asset) ?? { error: 0, warn: 0 };
    counts[event.severity]++;
    this.perAsset.set(event.asset, counts);
    if (event.severity !== "warn") return null;
    this.echoes.add(echoKey(event.asset, partition, `check ${event.check} failed`));
    return `WARN ${failedCheckText(failed)}`;
  }

  /** Whether a log event repeats the warning of a warn check already printed (it is then left out, once). */
  isEcho(event: InterloperEvent): boolean {
    if (event.type !== "log" || event.level !== "warn" || event.asset === undefined) return false;
    const words = /^(check .+ failed) for /.exec(event.message)?.[1] ?? /^(check .+ failed) \(warn\)/.exec(event.message)?.[1];
    if (words === undefined) return false;
    return this.echoes.delete(echoKey(event.asset, event.partition ?? null, words));
  }

  /** The timing table's cell of an asset: `2 failed`, `1 warn`, `2 failed, 1 warn`, `ok`, or `-` when it has no checks. */
  cell(asset: string, hasChecks: boolean): string {
    const counts = this.perAsset.get(asset);
    if (!counts) return hasChecks ? "ok" : "-";
    const parts = [counts.error ? `${formatCount(counts.error)} failed` : "", counts.warn ? `${formatCount(counts.warn)} warn` : ""];
    return parts.filter(Boolean).join(", ");
  }
}

const echoKey = (asset: string, partition: string | null, words: string) => `${asset}\u0000${partition ?? ""}\u0000${words}`;

/** `shop.orders 2026-01-05: check unique(order_id) failed: 3 rows of 40 repeat ..., e.g. 17, 18, 23`. */
export function failedCheckText(failed: FailedCheck): string {
  const where = failed.partition === null ? failed.asset : `${failed.asset} ${failed.partition}`;
  const examples = failed.examples.length > 0 ? `, e.g. ${failed.examples.join(", ")}` : "";
  return `${where}: check ${failed.check} failed: ${failed.message}${examples}`;
}

/** Failed checks the summary names, one line each; the rest are counted. */
const MAX_SHOWN = 5;

/** The summary's section of failed checks (none: no lines): errors first, then warnings. */
export function checkSummaryLines(failed: readonly FailedCheck[]): string[] {
  if (failed.length === 0) return [];
  const errors = failed.filter((f) => f.severity === "error");
  const warnings = failed.filter((f) => f.severity === "warn");
  const counts = [
    errors.length ? `${formatCount(errors.length)} error` : "",
    warnings.length ? `${formatCount(warnings.length)} warn` : "",
  ];
  const ordered = [...errors, ...warnings];
  const shown = ordered.slice(0, MAX_SHOWN).map((f) => `  ${f.severity === "error" ? "error" : "warn "} ${failedCheckText(f)}`);
  const more = ordered.length > MAX_SHOWN ? [`  (and ${formatCount(ordered.length - MAX_SHOWN)} more)`] : [];
  return [`Failed checks (${counts.filter(Boolean).join(", ")}):`, ...shown, ...more];
}
