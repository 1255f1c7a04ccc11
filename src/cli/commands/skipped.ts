// What the command line says of the assets a window skips: the library's reason (true for any
// caller), and where the command line can say how to run the asset instead, the command to type.
import type { Plan, SkippedAsset } from "../../api/session/index.js";
import type { Session, SessionPlanOptions } from "../../api/session/index.js";
import { PartitionError } from "../../errors.js";
import { nothingToRun, NothingToRunError } from "../../runner/staged-plan.js";

/** One line per selected asset the window gives nothing to run. */
export function skippedLines(skipped: readonly SkippedAsset[]): string[] {
  return skipped.map((s) => `Skipping ${skippedReason(s)}`);
}

/** The session's plan, whose error when the window gives nothing to run says what the skipped lines would. */
export async function planOnCommandLine(session: Session, options: SessionPlanOptions): Promise<Plan> {
  try {
    return await session.plan(options);
  } catch (error) {
    if (!(error instanceof NothingToRunError)) throw error;
    throw new PartitionError(nothingToRun(error.window, error.skipped.map(skippedReason)), { cause: error });
  }
}

/** An asset and why it is skipped, with the command that runs a list asset a window of time skips. */
function skippedReason(s: SkippedAsset): string {
  return `${s.asset}: ${s.reason}${s.listValues ? `: ${howToRunList(s.asset)}` : ""}${s.holding ? `: ${howToRunHolding(s.asset, s.holding)}` : ""}`;
}

/** A rollup whose period is longer than the window runs on its own, over the periods holding it. */
function howToRunHolding(asset: string, holding: readonly string[]): string {
  const [first, last] = holding as [string, string?];
  return `run \`interloper materialize ${asset} ${last === undefined ? `-p ${first}` : `-w ${first}..${last}`}\``;
}

/** A list asset a window of time skips runs on its own, over all its values or one of them. */
function howToRunList(asset: string): string {
  return `run \`interloper materialize ${asset}\` for all its values, or add --partition VALUE`;
}
