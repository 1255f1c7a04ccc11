import type { CopiedPartition, CopyPlan, Session, SessionPlanOptions } from "../../api/session/index.js";
import { ConfigError } from "../../errors.js";
import { count } from "../../text/english.js";
import { printable, terminalJson } from "../printable.js";
import { driverProblems } from "./drivers.js";

/** The flags `materialize --missing --from` reads; every other run flag is refused with it. */
export interface CopyFlags {
  readonly from?: string;
  readonly missing?: boolean;
  readonly dryRun?: boolean;
  readonly json?: boolean;
  readonly quiet?: boolean;
}

// What runs the assets has nothing to do in a copy, which runs none: refused rather than ignored.
const RUN_FLAGS = {
  stale: "--stale",
  fullRefresh: "--full-refresh",
  includeEmpty: "--include-empty",
  processes: "--processes",
  concurrency: "--concurrency",
  timeout: "--timeout",
  grace: "--grace",
  failFast: "--fail-fast",
  shard: "--shard",
  shardIndexEnv: "--shard-index-env",
  queue: "--queue",
} as const;

/** Refuses `--from` without `--missing`, and with a flag of how assets run. */
export function checkCopyFlags(flags: CopyFlags & Partial<Record<keyof typeof RUN_FLAGS, unknown>>): void {
  if (flags.from === undefined) return;
  if (!flags.missing) throw new ConfigError("--from only applies with --missing: it fills the partitions a destination lacks");
  const given = Object.entries(RUN_FLAGS).find(([name]) => flags[name as keyof typeof RUN_FLAGS] !== undefined);
  if (given) throw new ConfigError(`--from copies stored partitions and runs no asset: it cannot be combined with ${given[1]}`);
}

const out = (line: string) => process.stdout.write(`${printable(line)}\n`);
const err = (line: string) => process.stderr.write(`${printable(line)}\n`);

/**
 * `interloper materialize --missing --from DESTINATION`: fills the partitions some destination
 * lacks from DESTINATION, records kept. Exit 0 when every missing partition was filled, 1 when
 * some could not be (printed, each with why), 2 for bad input or a missing driver.
 */
export async function copyMissingCommand(session: Session, options: SessionPlanOptions, flags: CopyFlags): Promise<number> {
  const plan = await session.copyPlan(flags.from!, options);
  if (flags.dryRun) {
    if (flags.json) out(terminalJson(JSON.stringify(plan)));
    else for (const copy of plan.copies) out(`would copy ${describe(copy, plan.from)}`);
  }
  if (!flags.json || !flags.dryRun) for (const left of plan.uncopied) err(`not copied: ${left.asset} ${left.partition}: ${left.reason}`);
  if (plan.copies.length === 0 && plan.uncopied.length === 0) {
    err("Nothing to do: no partition is missing.");
    return 0;
  }
  if (flags.dryRun) return 0;
  const assets = [...new Set(plan.copies.map((c) => c.asset))].map((key) => session.project.dag.find(key)!);
  const missingDrivers = await driverProblems(assets);
  if (missingDrivers.length > 0) {
    for (const line of missingDrivers) err(`interloper: ${line}`);
    return 2;
  }
  const copied = await session.copy(plan, (done) => {
    if (!flags.json && !flags.quiet) out(`copied ${describe(done, plan.from)}${rowsOf(done)}`);
  });
  if (flags.json) out(terminalJson(JSON.stringify({ from: plan.from, copied, uncopied: plan.uncopied })));
  err(summary(plan, copied));
  return plan.uncopied.length > 0 ? 1 : 0;
}

function describe(copy: { asset: string; partition: string; to: readonly string[] }, from: string): string {
  return `${copy.asset} ${copy.partition} from ${from} to ${copy.to.join(", ")}`;
}

function rowsOf(copied: CopiedPartition): string {
  return copied.rows === null ? "" : ` (${count(copied.rows, "row")})`;
}

function summary(plan: CopyPlan, copied: readonly CopiedPartition[]): string {
  const left = plan.uncopied.length > 0 ? `; ${count(plan.uncopied.length, "missing partition")} not copied (above)` : "";
  return `Copied ${count(copied.length, "partition")} from ${plan.from}${left}.`;
}
