import type { PlanOptions } from "../../api/session/index.js";
import { resolvePlanOptions } from "../../api/session/options.js";
import { openCommandSession } from "../command-session.js";
import type { GlobalOptions } from "../main.js";
import { commandNow } from "../now.js";
import { printable, terminalJson } from "../printable.js";
import { planOnCommandLine, skippedLines } from "./skipped.js";
import { planOptions, rangeEnd, rangeEndNeedsMissing, refuseNotBegun, type SelectionFlags } from "./selection.js";
import { count } from "../../text/english.js";
import { MultiPartitionConfig } from "../../partitioning/index.js";

/** Flags of `interloper plan`. */
export interface PlanFlags extends GlobalOptions, SelectionFlags {
  readonly order?: "newest" | "oldest";
  readonly json?: boolean;
  readonly missing?: boolean;
  readonly stale?: boolean;
  readonly until?: string;
  readonly includeCurrent?: boolean;
  readonly shards?: number;
}

/** `interloper plan`: prints the runs a materialize would make; returns the exit code. */
export async function planCommand(assets: readonly string[], flags: PlanFlags): Promise<number> {
  const session = await openCommandSession(flags);
  let options: PlanOptions = { ...planOptions(session, assets, flags), now: commandNow(), order: flags.order ?? "newest" };
  rangeEndNeedsMissing(flags);
  // What is missing is read once, for the plan and each of its shards.
  if (flags.missing || flags.stale)
    options = await resolvePlanOptions(session.project, {
      ...options,
      ...(flags.missing ? { missing: rangeEnd(flags) } : {}),
      ...(flags.stale ? { stale: true } : {}),
    });
  // Keys and names are the project's text; JSON lines come through terminalJson.
  const print = (line: string) => process.stdout.write(`${printable(line)}\n`);
  const plan = await planOnCommandLine(session, options);
  refuseNotBegun(plan, options.now!, flags);
  if (flags.shards !== undefined) {
    const shards = [];
    for (let i = 0; i < flags.shards; i++) {
      const shard = { index: i + 1, count: flags.shards };
      shards.push({
        shard: `${shard.index}/${shard.count}`,
        partitions: (await planOnCommandLine(session, { ...options, shard })).partitions,
      });
    }
    if (flags.json) print(terminalJson(JSON.stringify({ include: shards })));
    else
      for (const { shard, partitions } of shards)
        print(
          `shard ${shard}: ${count(partitions.length, "partition")}${partitions.length ? ` (${partitions.slice(0, 6).join(", ")}${partitions.length > 6 ? ", ..." : ""})` : ""}`,
        );
    return 0;
  }
  const multis = plan.assets.flatMap((a) =>
    a.partitioning instanceof MultiPartitionConfig ? [{ qualifiedKey: a.qualifiedKey, config: a.partitioning }] : [],
  );
  if (flags.json) {
    print(
      terminalJson(
        JSON.stringify({
          mode: plan.mode,
          window: plan.window ? String(plan.window) : null,
          order: plan.order,
          assets: plan.assets.map((a) => a.qualifiedKey),
          runs: plan.runs,
          // How the keys of multi-partitioned assets read: their dimensions' names in key order.
          ...(multis.length > 0
            ? { dimensions: Object.fromEntries(multis.map((a) => [a.qualifiedKey, a.config.dimensions.map((d) => d.name)])) }
            : {}),
          // The library's reasons, in its own terms: a script reads them, and runs what it chooses.
          skipped: plan.skipped.map((s) => ({ asset: s.asset, reason: s.reason })),
        }),
      ),
    );
    return 0;
  }
  if (plan.runs.length === 0 && (flags.missing || flags.stale)) {
    // As materialize says it: a plan of nothing to do is no backfill.
    print(`Nothing to do: no partition ${flags.missing ? "is missing" : "is stale"}${plan.window ? ` in ${String(plan.window)}` : ""}.`);
    for (const line of skippedLines(plan.skipped)) print(line);
    return 0;
  }
  print(
    `${plan.mode === "backfill" ? `Backfill of ${count(plan.runs.length, "run")}, ${plan.order} first` : "One run"}${plan.window ? ` over ${String(plan.window)}` : ""}:`,
  );
  for (const multi of multis) print(`Keys of ${multi.qualifiedKey} are ${multi.config.shape}: ${multi.config.describe()}`);
  for (const line of skippedLines(plan.skipped)) print(line);
  plan.runs.forEach((run, index) =>
    print(
      `${String(index + 1).padStart(String(plan.runs.length).length)}. ${run.partition ?? "(unpartitioned)"}  ${run.assets.join(", ")}`,
    ),
  );
  return 0;
}
