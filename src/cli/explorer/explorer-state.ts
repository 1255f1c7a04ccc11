import type { Coverage, PartitionCoverage } from "../../api/coverage/index.js";
import { layoutCoverage } from "../views/coverage-layout.js";

/** Where the explorer stands: kept across a materialization, so the refreshed view opens there. */
export interface ExplorerPlace {
  /** The selected asset's key. */
  readonly asset: string | null;
  /** The selected partition's key. */
  readonly key: string | null;
  /** Assets whose key holds this text (any case) are shown; "" shows all. */
  readonly filter: string;
}

/** What the explorer asks its caller to do when it closes. */
export type ExplorerExit =
  | { readonly kind: "quit" }
  | { readonly kind: "materialize"; readonly asset: string; readonly window: string; readonly place: ExplorerPlace };

/** The assets the filter keeps. */
export function filtered(coverages: readonly Coverage[], filter: string): Coverage[] {
  const text = filter.toLowerCase();
  return coverages.filter((c) => c.asset.toLowerCase().includes(text));
}

/**
 * The partitions the cursor steps through, in order: those the picture shows (every expected
 * one, and the period in progress; for hours, the days shown).
 */
export function steps(c: Coverage, width: number, hourDays: number): PartitionCoverage[] {
  if (c.kind === "list") return c.partitions.filter((p) => p.status !== "unexpected");
  const shown = layoutCoverage(c, width, { hourDays }).flatMap((b) =>
    b.rows.flatMap((r) => r.cells.flatMap((cell) => (cell.partition ? [cell.partition] : []))),
  );
  return shown.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * The window `m` materializes from a partition: the whole run of missing partitions around a
 * missing one, else the partition alone.
 */
export function windowAround(c: Coverage, key: string): string {
  const expected = c.partitions.filter((p) => p.status !== "unexpected");
  const at = expected.findIndex((p) => p.key === key);
  if (at < 0 || expected[at]!.status !== "missing") return key;
  let from = at;
  let to = at;
  while (from > 0 && expected[from - 1]!.status === "missing") from--;
  while (to < expected.length - 1 && expected[to + 1]!.status === "missing") to++;
  return from === to ? key : `${expected[from]!.key}..${expected[to]!.key}`;
}
