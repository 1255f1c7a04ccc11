import {
  checkFullRefreshOptions,
  type MaterializeOutcome,
  type Plan,
  type Session,
  type SessionPlanOptions,
  type Shard,
} from "../../api/session/index.js";
import { ConfigError } from "../../errors.js";
import { eventToJson, type EventHandler } from "../../runner/events.js";
import { DEFAULT_GRACE_MS, formatLimit } from "../../runner/limits.js";
import type { GlobalOptions } from "../main.js";
import { openCommandSession } from "../command-session.js";
import { commandNow } from "../now.js";
import { printable, terminalJson } from "../printable.js";
import { exitLeavingAbandonedWork, guardEscapedErrors } from "../process-guards.js";
import { loadTerminalViews } from "../ink-runtime.js";
import { PlainReporter } from "../reporters/plain.js";
import { summaryLines } from "../reporters/summary.js";
import { timingLines } from "../reporters/timings.js";
import { checkSummaryLines } from "../reporters/check-tally.js";
import { debugging } from "../errors.js";
import type { LogLevel } from "../../runner/events.js";
import { RunTracker } from "../reporters/tracker.js";
import { describeDryRun, dryRunLines } from "./dry-run.js";
import { planOnCommandLine, skippedLines } from "./skipped.js";
import { checkYes, confirmAndDrop, dryRunDropLines, type FullRefreshFlags } from "./full-refresh.js";
import { assetsRead, driverProblems } from "./drivers.js";
import { checkCopyFlags, copyMissingCommand } from "./copy-missing.js";
import { checkQueueOnlyFlags, enqueueCommand, type EnqueueFlags } from "./enqueue.js";
import { queueUrl, type QueueFlags } from "./queue-flags.js";
import { planOptions, rangeEnd, rangeEndNeedsMissing, refuseNotBegun, type SelectionFlags } from "./selection.js";
import { parseDuration, shardFromFlags, type ShardFlags } from "./shard.js";

/** Flags of `interloper materialize`. */
export interface MaterializeFlags extends GlobalOptions, SelectionFlags, ShardFlags, FullRefreshFlags, QueueFlags, EnqueueFlags {
  readonly processes?: number;
  readonly timeout?: string;
  readonly grace?: string;
  readonly order?: "newest" | "oldest";
  readonly concurrency?: number;
  readonly failFast?: boolean;
  readonly dryRun?: boolean;
  readonly json?: boolean;
  readonly missing?: boolean;
  readonly until?: string;
  readonly includeCurrent?: boolean;
  readonly includeEmpty?: boolean;
  readonly stale?: boolean;
  readonly from?: string;
}

// Every line holds names, keys or messages from the project and its data: printed printable.
const out = (line: string) => process.stdout.write(`${printable(line)}\n`);
const err = (line: string) => process.stderr.write(`${printable(line)}\n`);

/** `interloper materialize`: returns the exit code. */
export async function materializeCommand(assets: readonly string[], flags: MaterializeFlags): Promise<number> {
  const unguard = guardEscapedErrors(flags.verbose);
  try {
    return await materializeGuarded(assets, flags);
  } finally {
    unguard();
  }
}

async function materializeGuarded(assets: readonly string[], flags: MaterializeFlags): Promise<number> {
  const session = await openCommandSession(flags);
  const { options, shard, limits } = materializeOptions(session, assets, flags);
  if (flags.from !== undefined) return copyMissingCommand(session, options, flags);
  let plan = await planOnCommandLine(session, options);
  refuseNotBegun(plan, options.now!, flags);
  if ((flags.missing || flags.stale || shard) && plan.runs.length === 0) {
    // A script reading --dry-run --json gets its object, with no runs, whatever the case.
    if (flags.dryRun && flags.json) out(terminalJson(JSON.stringify(await describeDryRun(session, plan))));
    err(
      `Nothing to do: no partition ${flags.missing ? "is missing" : flags.stale ? "is stale" : "falls to this shard"}${plan.window ? ` in ${String(plan.window)}` : ""}.`,
    );
    return 0;
  }
  // Every destination is checked (and described) before anything is dropped; everything dropped
  // is rebuilt: a window leaving stored partitions out is widened to them.
  const { targets: refresh, scope } = flags.fullRefresh ? await session.fullRefreshScope(plan, options) : { targets: null, scope: null };
  if (scope?.widenedFrom) plan = await planOnCommandLine(session, scope.options);
  if (flags.dryRun) {
    const dryRun = await describeDryRun(session, plan);
    if (flags.json) out(terminalJson(JSON.stringify(refresh ? { ...dryRun, drops: refresh } : dryRun)));
    else for (const line of [...(refresh ? dryRunDropLines(refresh, plan, scope) : []), ...dryRunLines(dryRun, plan.skipped)]) out(line);
    return 0;
  }
  const queue = queueUrl(flags);
  if (queue !== undefined) return enqueueCommand(queue, session.project, plan, flags);
  // A driver missing here would fail every partition of the run one by one: refused at once.
  const missingDrivers = await driverProblems(assetsRead(session.project.dag, plan.assets));
  if (missingDrivers.length > 0) {
    for (const line of missingDrivers) err(`interloper: ${line}`);
    return 2;
  }
  if (refresh) {
    const stop = await confirmAndDrop(session, refresh, plan, flags, scope);
    if (stop !== null) return stop;
  }
  if (!flags.quiet) for (const line of skippedLines(plan.skipped)) err(line);
  return runPlan(session, plan, assets, flags, limits);
}

/** How long a partition may run, and how long it may finish once interrupted or timed out. */
interface RunLimits {
  readonly timeoutMs: number | undefined;
  readonly graceMs: number;
}

/**
 * The plan's options from the flags, every combination of flags checked first: a mistaken
 * command line is refused before anything is planned, dropped or run.
 */
function materializeOptions(
  session: Session,
  assets: readonly string[],
  flags: MaterializeFlags,
): { options: SessionPlanOptions; shard: Shard | undefined; limits: RunLimits } {
  const shard = shardFromFlags(flags);
  let options: SessionPlanOptions = {
    ...planOptions(session, assets, flags),
    now: commandNow(),
    order: flags.order ?? "newest",
    ...(shard ? { shard } : {}),
  };
  const timeoutMs = flags.timeout !== undefined ? parseDuration(flags.timeout, "--timeout") : undefined;
  const graceMs = flags.grace !== undefined ? parseDuration(flags.grace, "--grace", { allowZero: true }) : DEFAULT_GRACE_MS;
  checkCopyFlags(flags);
  if (flags.includeEmpty && !flags.missing) throw new ConfigError("--include-empty only applies with --missing");
  rangeEndNeedsMissing(flags);
  checkYes(flags);
  checkQueueOnlyFlags(flags, queueUrl(flags));
  if (flags.fullRefresh) checkFullRefreshOptions({ only: flags.missing || undefined, shard });
  if (flags.fullRefresh && flags.stale)
    throw new ConfigError(
      "--full-refresh drops whole assets and rebuilds them: it cannot be combined with --stale, which rebuilds some partitions",
    );
  if (flags.missing) options = { ...options, missing: { includeEmpty: flags.includeEmpty ?? false, ...rangeEnd(flags) } };
  if (flags.stale) options = { ...options, stale: true };
  return { options, shard, limits: { timeoutMs, graceMs } };
}

/** Runs the plan in this process, shown by the chosen reporter; returns the exit code. */
async function runPlan(
  session: Session,
  plan: Plan,
  assets: readonly string[],
  flags: MaterializeFlags,
  limits: RunLimits,
): Promise<number> {
  const reporter = await chooseReporter(plan, flags);
  const interrupt = interruptOnSignals(session, reporter, limits.graceMs);
  let outcome: MaterializeOutcome;
  try {
    // The plan shown (and checked) above is the one that runs: it is not made again.
    outcome = await session.materialize({
      plan,
      ...(flags.concurrency ? { concurrency: flags.concurrency } : {}),
      failFast: flags.failFast ?? false,
      ...(flags.processes ? { processes: flags.processes } : {}),
      ...(limits.timeoutMs ? { timeoutMs: limits.timeoutMs } : {}),
      graceMs: limits.graceMs,
      onEvent: reporter.onEvent,
      signal: interrupt.signal,
    });
    await reporter.stop(closingLines(outcome, reporter.tracker, assets, flags));
  } finally {
    // After an error the view is released all the same (stop is once only).
    await reporter.stop([]);
    interrupt.release();
  }
  const code = outcome.status === "completed" ? 0 : interrupt.signalCode() || 1;
  if (session.abandonedStillRunning > 0) return exitLeavingAbandonedWork(code, session.abandonedSettled());
  return code;
}

/**
 * SIGINT and SIGTERM during a run: the first lets running partitions finish (for up to the
 * grace) and starts no new ones, a second stops at once. `signalCode` is the exit code the
 * signal asks for (0 when none came); `release` stops listening.
 */
function interruptOnSignals(
  session: Session,
  reporter: ActiveReporter,
  graceMs: number,
): { readonly signal: AbortSignal; signalCode(): number; release(): void } {
  const interrupt = new AbortController();
  let signalCode = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    const code = signal === "SIGINT" ? 130 : 143;
    if (interrupt.signal.aborted) {
      session.killWorkers();
      process.exit(code);
    }
    signalCode = code;
    reporter.notice(
      `${signal} received: finishing running partitions (for up to ${formatLimit(graceMs)}, then they are abandoned), starting no new ones (press Ctrl-C again to stop at once)`,
    );
    // The reason names the signal: assets see it on context.signal, abandoned ones in their message.
    interrupt.abort(new DOMException(signal, "AbortError"));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    signal: interrupt.signal,
    signalCode: () => signalCode,
    release: () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

interface ActiveReporter {
  readonly onEvent: EventHandler;
  readonly tracker: RunTracker;
  /** A line of the command itself (the interrupt), shown where the reporter shows things. */
  notice(text: string): void;
  /** Ends the view with the closing lines (once; later calls do nothing). */
  stop(closing: readonly string[]): Promise<void>;
}

/**
 * What closes a run: the per-asset timing table, then the summary (with --quiet, the verdict
 * alone when it completed, else the whole summary; with --json, nothing: the events say it).
 */
function closingLines(outcome: MaterializeOutcome, tracker: RunTracker, assets: readonly string[], flags: MaterializeFlags): string[] {
  if (flags.json) return [];
  const [verdict, ...rest] = summaryLines(outcome, tracker.rows, { assets, exclude: flags.exclude, config: flags.config });
  // The failed checks in a section of their own, below the verdict.
  const summary = [verdict!, ...checkSummaryLines(tracker.checks.failed), ...rest];
  if (flags.quiet) return outcome.status === "completed" ? summary.slice(0, 1) : summary;
  const checked = new Set(outcome.plan.assets.filter((asset) => asset.checks.length > 0).map((asset) => asset.qualifiedKey));
  const table = timingLines(tracker.timings.values(), { tally: tracker.checks, checked });
  return table.length ? ["", ...table, "", ...summary] : summary;
}

/** The quietest log level shown: debug with DEBUG=interloper, info with --verbose, else warnings and errors. */
function logLevel(flags: MaterializeFlags): LogLevel {
  if (debugging(false)) return "debug";
  return flags.verbose ? "info" : "warn";
}

/** A reporter that prints its notices and closing lines as plain lines on stderr. */
function printing(onEvent: EventHandler, tracker: RunTracker): ActiveReporter {
  let stopped = false;
  return {
    onEvent,
    tracker,
    notice: (text) => {
      err("");
      err(text);
    },
    stop: async (closing) => {
      if (stopped) return;
      stopped = true;
      for (const line of closing) err(line);
    },
  };
}

/** JSON lines with --json; the ink view in a terminal; plain lines in CI and pipes. */
async function chooseReporter(plan: Plan, flags: MaterializeFlags): Promise<ActiveReporter> {
  if (flags.json) {
    const tracker = new RunTracker(plan.mode);
    return printing((event) => {
      tracker.apply(event);
      out(terminalJson(eventToJson(event)));
    }, tracker);
  }
  if (flags.quiet) {
    const tracker = new RunTracker(plan.mode);
    return printing((event) => void tracker.apply(event), tracker);
  }
  const title = `${plan.mode === "backfill" ? "Backfilling" : "Materializing"} ${plan.assets.map((a) => a.qualifiedKey).join(", ")}${plan.window ? ` for ${String(plan.window)}` : ""}`;
  if (process.stdout.isTTY && process.stderr.isTTY && !process.env["CI"]) {
    const { InkReporter } = await loadTerminalViews(() => import("../reporters/ink-reporter.js"));
    const ink = new InkReporter(plan.mode, title, logLevel(flags));
    return { onEvent: ink.onEvent, tracker: ink.tracker, notice: (text) => ink.notice(text), stop: (closing) => ink.stop(closing) };
  }
  err(title);
  const plain = new PlainReporter(plan.mode, err, logLevel(flags));
  return printing(plain.onEvent, plain.tracker);
}
