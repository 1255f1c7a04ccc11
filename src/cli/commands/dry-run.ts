import type { Plan, Session, SkippedAsset } from "../../api/session/index.js";
import { count, formatCount } from "../../text/english.js";
import { skippedLines } from "./skipped.js";

/** What `materialize --dry-run` would do: printed as text, or as this object with `--json`. */
export interface DryRun {
  readonly dryRun: true;
  readonly mode: "run" | "backfill";
  readonly window: string | null;
  readonly order: "newest" | "oldest";
  readonly assets: readonly DryRunAsset[];
  /** Every run, in the order it would start. */
  readonly runs: ReadonlyArray<{ readonly partition: string | null; readonly assets: readonly string[] }>;
  readonly skipped: ReadonlyArray<{ readonly asset: string; readonly reason: string }>;
  /** With --stale: by asset, each partition rebuilt and why it is stale. */
  readonly stale?: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
}

/** One selected asset: where it would be written and what stored data that would replace. */
export interface DryRunAsset {
  readonly key: string;
  readonly destinations: ReadonlyArray<{ readonly key: string; readonly type: string }>;
  /**
   * The stored partitions the run would overwrite, with their current row counts; for an
   * unpartitioned asset (`unpartitioned: true`) no partitions, and the rows it holds.
   */
  readonly replaces: { readonly partitions: Readonly<Record<string, number>>; readonly rows: number; readonly unpartitioned?: true };
}

/** Reads the current row counts of what the plan would overwrite; writes nothing. */
export async function describeDryRun(session: Session, plan: Plan): Promise<DryRun> {
  const counts = await session.rowCounts(plan);
  return {
    dryRun: true,
    mode: plan.mode,
    window: plan.window ? String(plan.window) : null,
    order: plan.order,
    assets: plan.assets.map((asset) => {
      const { "": whole, ...partitions } = counts[asset.qualifiedKey] ?? {};
      return {
        key: asset.qualifiedKey,
        destinations: asset.destinationKeys.map((key, i) => ({ key, type: asset.destinations[i]!.displayName })),
        replaces: {
          partitions,
          rows: whole ?? Object.values(partitions).reduce((sum, n) => sum + n, 0),
          ...(whole !== undefined ? { unpartitioned: true } : {}),
        },
      };
    }),
    runs: plan.runs.map((run) => ({ partition: run.partition, assets: [...run.assets] })),
    skipped: plan.skipped.map((s) => ({ asset: s.asset, reason: s.reason })),
    ...(plan.staleReasons ? { stale: Object.fromEntries(plan.staleReasons) } : {}),
  };
}

/** The dry run as text: the runs, the destinations, and the row counts they would replace; `skipped` as the plan gives them. */
export function dryRunLines(dryRun: DryRun, skipped: readonly SkippedAsset[]): string[] {
  const what = dryRun.mode === "backfill" ? `backfill ${count(dryRun.runs.length, "run")} (${dryRun.order} first)` : "run once";
  const lines = [`Dry run: nothing is written.`, `Would ${what}${dryRun.window ? ` over ${dryRun.window}` : ""}:`];
  for (const asset of dryRun.assets) {
    const destinations = asset.destinations.map((d) => `${d.key} (${d.type})`).join(", ") || "no destination";
    lines.push(`  ${asset.key} -> ${destinations}`);
    const existing = Object.entries(asset.replaces.partitions);
    if (asset.replaces.unpartitioned) lines.push(`    replaces the stored data, ${count(asset.replaces.rows, "row")}`);
    if (existing.length > 0) {
      const shown = existing
        .slice(0, 10)
        .map(([key, n]) => `${key}: ${formatCount(n)}`)
        .join(", ");
      lines.push(
        `    replaces ${count(existing.length, "stored partition")}, ${count(asset.replaces.rows, "row")} (${shown}${existing.length > 10 ? ", ..." : ""})`,
      );
    }
  }
  lines.push(...staleLines(dryRun), ...skippedLines(skipped));
  const runs = dryRun.runs.slice(0, 20).map((run) => `  ${run.partition ?? "(unpartitioned)"}: ${run.assets.join(", ")}`);
  return [...lines, "Runs, in order:", ...runs, ...(dryRun.runs.length > 20 ? [`  ... and ${dryRun.runs.length - 20} more`] : [])];
}

/** With --stale: why each partition runs, a few per asset. */
function staleLines(dryRun: DryRun): string[] {
  const lines: string[] = [];
  for (const [asset, partitions] of Object.entries(dryRun.stale ?? {})) {
    const entries = Object.entries(partitions);
    if (entries.length === 0) continue;
    // An unpartitioned asset's one entry has the key "": the asset itself is stale.
    if (entries[0]![0] === "") {
      lines.push(`  ${asset}: stale: ${entries[0]![1].join("; ")}`);
      continue;
    }
    lines.push(`  ${asset}: ${count(entries.length, "stale partition")}`);
    for (const [key, reasons] of entries.slice(0, 10)) lines.push(`    ${key}: ${reasons.join("; ")}`);
    if (entries.length > 10) lines.push(`    ... and ${entries.length - 10} more`);
  }
  return lines.length > 0 ? ["Stale, so rebuilt:", ...lines] : [];
}
