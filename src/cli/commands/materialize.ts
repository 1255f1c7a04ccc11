import { currentRowCounts, materialize, type MaterializeOutcome } from "../../api/materialize.js";
import { planMaterialize, type Plan, type PlanOptions } from "../../api/plan.js";
import { missingPlanOptions } from "../../api/missing.js";
import { loadProject } from "../../api/project.js";
import { ConfigError } from "../../errors.js";
import { eventToJson, type EventHandler } from "../../runner/events.js";
import type { GlobalOptions } from "../main.js";
import { printable, terminalJson } from "../printable.js";
import { PlainReporter } from "../reporters/plain.js";
import { summaryLines } from "../reporters/summary.js";
import { formatCount } from "../reporters/tracker.js";
import { planOptions, type SelectionFlags } from "./selection.js";
import { parseDuration, shardFromFlags, type ShardFlags } from "./shard.js";

/** Flags of `interloper materialize`. */
export interface MaterializeFlags extends GlobalOptions, SelectionFlags, ShardFlags {
  readonly processes?: number;
  readonly timeout?: string;
  readonly backfillId?: string;
  readonly order?: "newest" | "oldest";
  readonly concurrency?: number;
  readonly failFast?: boolean;
  readonly dryRun?: boolean;
  readonly json?: boolean;
  readonly missing?: boolean;
  readonly includeEmpty?: boolean;
}

// Every line holds names, keys or messages from the project and its data: printed printable.
const out = (line: string) => process.stdout.write(`${printable(line)}\n`);
const err = (line: string) => process.stderr.write(`${printable(line)}\n`);

/** `interloper materialize`: returns the exit code. */
export async function materializeCommand(assets: readonly string[], flags: MaterializeFlags): Promise<number> {
  const project = await loadProject({ ...(flags.config ? { configPath: flags.config } : {}) });
  const shard = shardFromFlags(flags);
  let options: PlanOptions = { ...planOptions(assets, flags), order: flags.order ?? "newest", ...(shard ? { shard } : {}) };
  if (flags.timeout !== undefined && !flags.processes) throw new ConfigError("--timeout only applies with --processes");
  const timeoutMs = flags.timeout !== undefined ? parseDuration(flags.timeout) : undefined;
  if (flags.includeEmpty && !flags.missing) throw new ConfigError("--include-empty only applies with --missing");
  if (flags.missing) options = await missingPlanOptions(project, options, { includeEmpty: flags.includeEmpty ?? false });
  const plan = planMaterialize(project, options);
  if ((flags.missing || shard) && plan.runs.length === 0) {
    err(`Nothing to do: no partition ${flags.missing ? "is missing" : "falls to this shard"}${plan.window ? ` in ${String(plan.window)}` : ""}.`);
    return 0;
  }
  if (flags.dryRun) {
    for (const line of await dryRunLines(plan)) out(line);
    return 0;
  }

  const interrupt = new AbortController();
  let signalCode = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupt.signal.aborted) process.exit(signal === "SIGINT" ? 130 : 143);
    signalCode = signal === "SIGINT" ? 130 : 143;
    err("");
    err(`${signal} received: finishing running partitions, starting no new ones (press Ctrl-C again to stop at once)`);
    interrupt.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  const reporter = await chooseReporter(plan, flags);
  let outcome: MaterializeOutcome;
  try {
    outcome = await materialize(project, {
      ...options,
      ...(flags.concurrency ? { concurrency: flags.concurrency } : {}),
      failFast: flags.failFast ?? true,
      ...(flags.processes ? { processes: flags.processes } : {}),
      ...(timeoutMs ? { timeoutMs } : {}),
      ...(flags.backfillId ? { backfillId: flags.backfillId } : {}),
      onEvent: reporter.onEvent,
      signal: interrupt.signal,
    });
  } finally {
    await reporter.stop();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  if (!flags.json) for (const line of summaryLines(outcome, reporter.rows(), { assets, config: flags.config })) err(line);
  if (outcome.status === "completed") return 0;
  return signalCode || 1;
}

interface ActiveReporter {
  readonly onEvent: EventHandler;
  rows(): number;
  stop(): Promise<void>;
}

/** JSON lines with --json; the ink view in a terminal; plain lines in CI and pipes. */
async function chooseReporter(plan: Plan, flags: MaterializeFlags): Promise<ActiveReporter> {
  if (flags.json) {
    let rows = 0;
    return {
      onEvent: (event) => {
        if (event.type === "asset:completed") rows += event.rows ?? 0;
        out(terminalJson(eventToJson(event)));
      },
      rows: () => rows,
      stop: async () => undefined,
    };
  }
  const title = `${plan.mode === "backfill" ? "Backfilling" : "Materializing"} ${plan.assets.map((a) => a.qualifiedKey).join(", ")}${plan.window ? ` for ${String(plan.window)}` : ""}`;
  if (process.stdout.isTTY && process.stderr.isTTY && !process.env["CI"]) {
    const { InkReporter } = await import("../reporters/ink-reporter.js");
    const ink = new InkReporter(plan.mode, title);
    return { onEvent: ink.onEvent, rows: () => ink.tracker.rows, stop: () => ink.stop() };
  }
  err(title);
  const plain = new PlainReporter(plan.mode, err);
  return { onEvent: plain.onEvent, rows: () => plain.tracker.rows, stop: async () => undefined };
}

/** What a dry run prints: the runs, the destinations, and the row counts they would replace. */
async function dryRunLines(plan: Plan): Promise<string[]> {
  const counts = await currentRowCounts(plan);
  const lines = [`Dry run: nothing is written.`, `Would ${plan.mode === "backfill" ? `backfill ${plan.runs.length} runs (${plan.order} first)` : "run once"}${plan.window ? ` over ${String(plan.window)}` : ""}:`];
  for (const asset of plan.assets) {
    const destinations = asset.destinationKeys.map((key, i) => `${key} (${asset.destinations[i]!.displayName})`).join(", ") || "no destination";
    lines.push(`  ${asset.qualifiedKey} -> ${destinations}`);
    const existing = Object.entries(counts[asset.qualifiedKey] ?? {});
    if (existing.length > 0) {
      const total = existing.reduce((sum, [, n]) => sum + n, 0);
      const shown = existing.slice(0, 10).map(([key, n]) => `${key}: ${formatCount(n)}`).join(", ");
      lines.push(`    replaces ${existing.length} stored partition(s), ${formatCount(total)} rows (${shown}${existing.length > 10 ? ", ..." : ""})`);
    }
  }
  const runs = plan.runs.slice(0, 20).map((run) => `  ${run.partition ?? "(unpartitioned)"}: ${run.assets.join(", ")}`);
  return [...lines, "Runs, in order:", ...runs, ...(plan.runs.length > 20 ? [`  ... and ${plan.runs.length - 20} more`] : [])];
}
