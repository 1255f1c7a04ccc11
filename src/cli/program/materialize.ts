import type { Command } from "commander";
import { CHILD_KILL_DELAY_MS, DEFAULT_GRACE_MS, formatLimit } from "../../runner/limits.js";
import {
  assetSelection,
  concurrencyOption,
  flagsOf,
  graceOption,
  includeCurrentOption,
  integer,
  jsonOption,
  missingOption,
  staleOption,
  orderOption,
  processesOption,
  queueOption,
  selectionOptions,
  timeoutOption,
  untilOption,
} from "./options.js";

const EXAMPLES = `
Examples:
  $ interloper materialize --partition 2026-01-15
  $ interloper materialize orders --window 2026-01-01..2026-01-31
  $ interloper materialize +daily_revenue -p 2026-01-15      # and everything upstream
  $ interloper materialize shop --exclude tag:slow -p 2026-01-15
  $ interloper materialize --lookback 3 --offset 1 --tz Europe/Paris
  $ interloper materialize --window 2025-01-01..2025-12-31 --dry-run
  $ interloper materialize orders --missing
  $ interloper materialize --missing --from warehouse          # fill a new destination from warehouse
  $ interloper materialize orders --window 2026-01-01..2026-01-31 --full-refresh --dry-run
  $ interloper materialize --window 2024-01-01..2024-12-31 --processes 2 --timeout 10m
  $ interloper materialize --window 2024-01-01..2024-12-31 --shard 2/4
  $ interloper materialize --window 2024-01-01..2024-12-31 --queue postgres://localhost/jobs`;

/** `interloper materialize`: how a run is spread (concurrency, processes, shards) and bounded in time. */
function runOptions(command: Command): Command {
  return command
    .addOption(orderOption())
    .addOption(concurrencyOption("assets (or backfill partitions) at once (default: the config's, else 4)"))
    .option(
      "--fail-fast",
      "stop a backfill at its first failure: no partition starts after it (default: every partition runs, every failure is reported)",
    )
    .option("--no-fail-fast", "keep going after a failure (the default)")
    .addOption(processesOption("run the backfill's partitions in n worker processes, each loading the config once"))
    .addOption(
      timeoutOption(
        `fail a partition whose run takes longer (90s, 5m, 1h): it is abandoned, nothing more of it is written, the backfill goes on; ` +
          `with --processes the worker fails it itself, and is sent SIGTERM at the limit, then SIGKILL ${CHILD_KILL_DELAY_MS / 1000} s later`,
      ),
    )
    .addOption(
      graceOption(
        `after SIGINT or SIGTERM, how long running partitions may take to finish before they are abandoned (default ${formatLimit(DEFAULT_GRACE_MS)}; 0: at once)`,
      ),
    )
    .option("--shard <i/n>", "run shard i of n of the backfill (every n-th partition, newest first)")
    .option(
      "--shard-index-env <VAR>",
      "read the shard from a 0-based worker index in VAR (JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX)",
    )
    .option("--shard-count <n>", "with --shard-index-env: how many shards there are", integer("--shard-count", 1));
}

/** `interloper materialize`: which partitions (missing ones, a refresh) and what is printed. */
function scopeOptions(command: Command): Command {
  return command
    .addOption(missingOption("only the partitions coverage reports missing (newest first): resumes an interrupted backfill"))
    .option("--include-empty", "with --missing: also the partitions written with 0 rows")
    .option(
      "--from <destination>",
      "with --missing: run nothing, copy each partition a destination lacks from this one (its key, as `list` shows it), with its record, so nothing that read it becomes stale: fills a destination added to a project",
    )
    .addOption(
      staleOption(
        "only the stored partitions that are out of date (an upstream partition they read was rebuilt, their codeVersion changed), and what rebuilding them makes out of date downstream, in one run",
      ),
    )
    .addOption(untilOption())
    .addOption(includeCurrentOption())
    .option("--dry-run", "print what would run, and the stored partitions and rows it would replace; write nothing")
    .option(
      "--full-refresh",
      "first drop everything the destinations hold of the selected assets (a folder, a table, a prefix of objects), then rebuild: the way out of a schema change",
    )
    .option("-y, --yes", "with --full-refresh: drop without asking (required when no terminal can be asked)")
    .addOption(jsonOption("write the event stream as JSON lines on stdout (with --dry-run: the dry run as one JSON object)"));
}

/** `interloper materialize --queue`: the backfill goes to a work queue instead of running here. */
function queueOptions(command: Command): Command {
  return command
    .addOption(
      queueOption(
        "enqueue the backfill on this PostgreSQL work queue (postgres://…; ?schema=NAME picks its schema) instead of running it, and print its id; workers run it (default: $INTERLOPER_QUEUE_URL)",
      ),
    )
    .option(
      "--retries <n>",
      "with --queue: attempts after the first before a partition's job stays failed (default 2)",
      integer("--retries", 0, 100),
    )
    .option("--retry-delay <duration>", "with --queue: the wait before the first retry, doubling after each (default 10s)")
    .option(
      "--job-expiry <duration>",
      "with --queue: how long a job outlives its worker's last heartbeat before it goes back to the queue (default 5m)",
    );
}

/** Declares `interloper materialize`; its module is loaded only when it runs. */
export function declareMaterialize(program: Command): void {
  const command = selectionOptions(assetSelection(program.command("materialize"), "every materializable asset")).description(
    "run assets for a partition, a window or a backfill and write them to their destinations",
  );
  queueOptions(scopeOptions(runOptions(command)))
    .addHelpText("after", EXAMPLES)
    .action(async (assets: string[], options: object, command: Command) => {
      const { materializeCommand } = await import("../commands/materialize.js");
      process.exitCode = await materializeCommand(assets, flagsOf(options, command));
    });
}
