import type { SkippedAsset } from "../../api/plan.js";

/**
 * One line per selected asset the window gives nothing to run: the library's reason, and where
 * the command line can say how to run the asset instead, the command to type.
 */
export function skippedLines(skipped: readonly SkippedAsset[]): string[] {
  return skipped.map((s) => `Skipping ${s.asset}: ${s.reason}${s.listValues ? `: ${howToRunList(s.asset)}` : ""}`);
}

/** A list asset a window of time skips runs on its own, over all its values or one of them. */
function howToRunList(asset: string): string {
  return `run \`interloper materialize ${asset}\` for all its values, or add --partition VALUE`;
}
