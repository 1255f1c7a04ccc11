// `partition` names exactly one partition (issue 41, item 6): a time key names one period of the
// selected assets' own granularity. A key of another granularity is refused with what reaches
// what was meant (`window` for the days of a month, the month holding a day for a monthly
// asset), as show, history and verify refuse it, unless an asset of the selection is
// partitioned by it: then that asset's partition runs alone, the finer assets are skipped with
// why, and the coarser ones as the plan skips them (naming the period holding the key).
import type { Asset } from "../asset/asset.js";
import { PartitionError, type OptionNamer } from "../errors.js";
import { timeConfigOf, TimePartitionWindow, type PartitionWindow, type TimeGranularity } from "../partitioning/index.js";
import type { SkippedAsset } from "../runner/plan.js";

/** What a partition key names of a selection: the assets it runs, and the others skipped with why. */
export interface PartitionAssets {
  readonly assets: readonly Asset[];
  readonly skipped: readonly SkippedAsset[];
}

/** The selected assets a partition key names, or PartitionError when it names a period of none of them. */
export function assetsOfPartition(assets: readonly Asset[], key: string, window: PartitionWindow | null): PartitionAssets {
  if (!(window instanceof TimePartitionWindow)) return { assets, skipped: [] };
  const g = window.granularity;
  const granularity = (a: Asset) => timeConfigOf(a.partitioning)?.granularity;
  const timed = assets.filter((a) => granularity(a));
  const others = timed.filter((a) => granularity(a) !== g);
  if (others.length === 0) return { assets, skipped: [] };
  const start = window.start;
  if (others.length === timed.length) {
    const owns = [...new Set(others.map((a) => granularity(a)!))];
    throw new PartitionError(
      (o) =>
        `${o("partition")} ${key} names one ${g.name}, and the selected assets are partitioned by ${owns.map((x) => x.name).join(" and ")}: a partition is one of their own; ${reach(key, g, start, owns[0]!, o)}`,
    );
  }
  // A finer asset would run every period inside the key (a backfill of a month's days); a
  // coarser one is left to the plan, which skips it naming the period holding the key.
  const inside = others.filter((a) => finer(g, start, granularity(a)!));
  const names = new Set(inside.map((a) => a.qualifiedKey));
  return {
    assets: assets.filter((a) => !names.has(a.qualifiedKey)),
    skipped: inside.map((a) => ({
      asset: a.qualifiedKey,
      reason: `partitioned by ${granularity(a)!.name}, and the partition ${key} is a ${g.name} (the window ${key} runs its ${granularity(a)!.name}s)`,
    })),
  };
}

/** Whether assets of `own` have several periods in the period of `g` starting at `start` (days in a month). */
const finer = (g: TimeGranularity, start: Date, own: TimeGranularity) => own.periodsBetween(start, g.advance(start, 1)) > 1;

/** What reaches a period of `g` in assets of `own`: a window of the key when they are finer, the period holding it when coarser. */
function reach(key: string, g: TimeGranularity, start: Date, own: TimeGranularity, o: OptionNamer): string {
  return finer(g, start, own)
    ? `use ${o("window")} ${key} for its ${own.name}s`
    : `use ${o("partition")} ${own.format(start)}, the ${own.name} holding it`;
}
