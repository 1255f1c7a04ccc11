import { createRequire } from "node:module";
import type { Command } from "commander";
import { CHILD_KILL_DELAY_MS, DEFAULT_GRACE_MS, formatLimit } from "../runner/limits.js";
import { closeCommandSessions, commandRunsUnderWay } from "./command-session.js";
import { applyColorChoice, colorChoice } from "./color.js";
import { reportError } from "./errors.js";
import { packageVersion } from "./version.js";
import { printable } from "./printable.js";
import { dropOutputOnceClosed } from "./closed-output.js";

// Loaded as CommonJS, which commander is: through its ES module wrapper Node would first scan
// its source for export names, a cost every command pays at start-up.
const {
  Command: CommandClass,
  CommanderError,
  InvalidArgumentError,
  Option,
} = createRequire(import.meta.url)("commander") as typeof import("commander");

// Each command's module is imported only when that command runs, so `--help` and `list` do
// not pay for ink, react or the runner.

/** Options every command takes. */
export interface GlobalOptions {
  readonly config?: string;
  readonly verbose?: boolean;
  /** Only errors and the lines that say how the command ended (see `--quiet`). */
  readonly quiet?: boolean;
  /** --color (true), --no-color (false), neither (undefined). */
  readonly color?: boolean;
}

function integer(name: string, min: number, max = 1_000_000) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^[+]?\d+$/.test(value.trim()) || n < min || n > max) {
      throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max.toLocaleString("en-US")}, got "${value}"`);
    }
    return n;
  };
}

const SELECTORS =
  "assets to work on: orders or shop.orders (an asset), shop or source:shop (a source's assets), tag:NAME, +orders (and everything upstream), orders+ (and everything downstream); several are a union";

/** The positional selectors and `--exclude` (repeatable), shared by materialize, plan, coverage and list. */
function assetSelection(command: Command, none: string): Command {
  return command
    .argument("[selectors...]", `${SELECTORS}; none means ${none}`)
    .option(
      "--exclude <selector>",
      "leave out what this selector names (repeatable; same syntax)",
      (value: string, previous: string[] = []) => [...previous, value],
    );
}

function selectionOptions(command: Command): Command {
  return command
    .option(
      "-p, --partition <key>",
      "one partition: a time key (2026-01-15, 2026-01, 2026-W03, 2026-Q1, 2026, 2026-01-15T13) or a list value",
    )
    .option("-w, --window <start..end>", "an inclusive window of partitions (a single key is a window of one)")
    .option("--lookback <n>", "the trailing window of n partitions", integer("--lookback", 1))
    .option("--offset <n>", "with --lookback: end n partitions before the current one (default 0)", integer("--offset", 0))
    .option("--tz <zone>", "with --lookback: the IANA time zone whose calendar days follow (default UTC)");
}

/** Builds the command-line program. */
export function buildProgram(): Command {
  const program = new CommandClass("interloper")
    .description("Define, materialize and inspect partitioned data assets.")
    .option(
      "-c, --config <path>",
      'the config file (default: $INTERLOPER_CONFIG, else the nearest interloper.config.*, .interloperrc*, .config/interloperrc* or package.json "interloper" key from here upward)',
    )
    .option("--verbose", "print stack traces of errors; with list, where each destination keeps its data")
    .option(
      "-q, --quiet",
      "print only errors and how the command ended: no progress, no skipped or next-step lines (data that list, show, plan and coverage print is kept)",
    )
    .option("--color", "colour the output even when it is not a terminal (over NO_COLOR and FORCE_COLOR)")
    .option(
      "--no-color",
      "never colour the output (over FORCE_COLOR); without either flag: FORCE_COLOR, then NO_COLOR, then colour only on a terminal",
    )
    .version(packageVersion(), "-V, --version", "print the version of interloper")
    .hook("preAction", (command) => applyColorChoice(colorChoice(command.opts<GlobalOptions>().color, process.env)))
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ outputError: () => undefined });

  selectionOptions(assetSelection(program.command("materialize"), "every materializable asset"))
    .description("run assets for a partition, a window or a backfill and write them to their destinations")
    .addOption(new Option("--order <order>", "which end of a backfill runs first").choices(["newest", "oldest"]).default("newest"))
    .option("--concurrency <n>", "assets (or backfill partitions) at once (default: the config's, else 4)", integer("--concurrency", 1))
    .option(
      "--fail-fast",
      "stop a backfill at its first failure: no partition starts after it (default: every partition runs, every failure is reported)",
    )
    .option("--no-fail-fast", "keep going after a failure (the default)")
    .option(
      "--processes <n>",
      "run the backfill's partitions in n worker processes, each loading the config once",
      integer("--processes", 1),
    )
    .option(
      "--timeout <duration>",
      `fail a partition whose run takes longer (90s, 5m, 1h): it is abandoned, nothing more of it is written, the backfill goes on; ` +
        `with --processes the worker fails it itself, and is sent SIGTERM at the limit, then SIGKILL ${CHILD_KILL_DELAY_MS / 1000} s later`,
    )
    .option(
      "--grace <duration>",
      `after SIGINT or SIGTERM, how long running partitions may take to finish before they are abandoned (default ${formatLimit(DEFAULT_GRACE_MS)}; 0: at once)`,
    )
    .option("--shard <i/n>", "run shard i of n of the backfill (every n-th partition, newest first)")
    .option(
      "--shard-index-env <VAR>",
      "read the shard from a 0-based worker index in VAR (JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX)",
    )
    .option("--shard-count <n>", "with --shard-index-env: how many shards there are", integer("--shard-count", 1))
    .option("--missing", "only the partitions coverage reports missing (newest first): resumes an interrupted backfill")
    .option("--include-empty", "with --missing: also the partitions written with 0 rows")
    .option("--until <key>", "with --missing and no window: look up to this partition, inclusive (default: the last complete period)")
    .option(
      "--include-current",
      "with --missing and no window: also the current period (default: left to finish); without --missing: let a window reach periods that have not begun",
    )
    .option("--dry-run", "print what would run, and the stored partitions and rows it would replace; write nothing")
    .option(
      "--full-refresh",
      "first drop everything the destinations hold of the selected assets (a folder, a table, a prefix of objects), then rebuild: the way out of a schema change",
    )
    .option("-y, --yes", "with --full-refresh: drop without asking (required when no terminal can be asked)")
    .option("--json", "write the event stream as JSON lines on stdout (with --dry-run: the dry run as one JSON object)")
    .option(
      "--queue <url>",
      "enqueue the backfill on this PostgreSQL work queue (postgres://…; ?schema=NAME picks its schema) instead of running it, and print its id; workers run it (default: $INTERLOPER_QUEUE_URL)",
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
    )
    .addHelpText(
      "after",
      `
Examples:
  $ interloper materialize --partition 2026-01-15
  $ interloper materialize orders --window 2026-01-01..2026-01-31
  $ interloper materialize +daily_revenue -p 2026-01-15      # and everything upstream
  $ interloper materialize shop --exclude tag:slow -p 2026-01-15
  $ interloper materialize --lookback 3 --offset 1 --tz Europe/Paris
  $ interloper materialize --window 2025-01-01..2025-12-31 --dry-run
  $ interloper materialize orders --missing
  $ interloper materialize orders --window 2026-01-01..2026-01-31 --full-refresh --dry-run
  $ interloper materialize --window 2024-01-01..2024-12-31 --processes 2 --timeout 10m
  $ interloper materialize --window 2024-01-01..2024-12-31 --shard 2/4
  $ interloper materialize --window 2024-01-01..2024-12-31 --queue postgres://localhost/jobs`,
    )
    .action(async (assets: string[], options: object, command: Command) => {
      const { materializeCommand } = await import("./commands/materialize.js");
      process.exitCode = await materializeCommand(assets, { ...command.optsWithGlobals(), ...options });
    });

  selectionOptions(assetSelection(program.command("plan"), "every materializable asset"))
    .description("print the runs a materialize would make, in order")
    .addOption(new Option("--order <order>", "which end of a backfill runs first").choices(["newest", "oldest"]).default("newest"))
    .option("--missing", "only the partitions coverage reports missing now")
    .option("--until <key>", "with --missing and no window: look up to this partition, inclusive (default: the last complete period)")
    .option(
      "--include-current",
      "with --missing and no window: also the current period (default: left to finish); without --missing: let a window reach periods that have not begun",
    )
    .option("--shards <n>", "split the backfill into n shards; with --json, print a GitHub Actions matrix", integer("--shards", 1, 10_000))
    .option("--json", "print the plan as JSON")
    .addHelpText(
      "after",
      `\nExamples:\n  $ interloper plan --window 2025-01-01..2025-12-31\n  $ interloper plan --window 2025-01-01..2025-12-31 --shards 4 --json   # {"include":[{"shard":"1/4",...}]}`,
    )
    .action(async (assets: string[], options: object, command: Command) => {
      const { planCommand } = await import("./commands/plan.js");
      process.exitCode = await planCommand(assets, { ...command.optsWithGlobals(), ...options });
    });

  assetSelection(program.command("list"), "every asset")
    .description(
      "list assets: source, partitioning, destinations, dependencies, tags and schema (--verbose: and where each destination keeps its data)",
    )
    .option("--json", "print JSON")
    .action(async (selectors: string[], options: object, command: Command) => {
      const { listCommand } = await import("./commands/list.js");
      process.exitCode = await listCommand(selectors, { ...command.optsWithGlobals(), ...options });
    });

  program
    .command("show")
    .argument("<asset>", "the asset key")
    .description("read an asset back from its first destination (or --destination) and print it")
    .option("-p, --partition <key>", "one partition")
    .option("-w, --window <start..end>", "an inclusive window")
    .option("--limit <n>", "at most n rows (default 20; 0 for all)", integer("--limit", 0), 20)
    .addOption(new Option("--format <format>", "output format").choices(["table", "json", "csv"]).default("table"))
    .option("--destination <name>", "read from this destination of the asset (its key, as `list` shows it; default: the first)")
    .addHelpText(
      "after",
      `\nExamples:\n  $ interloper show orders -p 2026-01-15\n  $ interloper show orders -w 2026-01-01..2026-01-07 --format csv --limit 0\n  $ interloper show events -p 2026-01-15 --destination warehouse`,
    )
    .action(async (asset: string, options: object, command: Command) => {
      const { showCommand } = await import("./commands/show.js");
      process.exitCode = await showCommand(asset, { ...command.optsWithGlobals(), ...options });
    });

  assetSelection(program.command("coverage"), "every partitioned asset; one asset key shows that asset in detail")
    .description("which partitions are materialized, empty or missing, and how many rows each holds")
    .option("-p, --partition <key>", "only this partition: a time key or a list value")
    .option("-w, --window <start..end>", "only these partitions")
    .option("--lookback <n>", "only the trailing window of n partitions", integer("--lookback", 1))
    .option("--offset <n>", "with --lookback: end n partitions before the current one (default 0)", integer("--offset", 0))
    .option("--tz <zone>", "with --lookback: the IANA time zone whose calendar days follow (default UTC)")
    .addOption(new Option("--missing").hideHelp())
    .option("--json", "print the computed coverage as JSON")
    .option("--html <file>", "also write a self-contained HTML report")
    .option("--fail-on-missing", "exit 1 when any expected partition is missing (a CI gate); the period in progress never counts")
    .option(
      "--until <key>",
      "end the expected range at this partition, inclusive (default: the last complete period; the current one is shown in progress)",
    )
    .option("--include-current", "expect the current period too")
    .option(
      "-i, --interactive",
      "explore in the terminal: arrow keys move between assets and periods, enter shows a partition, m materializes, / filters, q quits",
    )
    .addHelpText(
      "after",
      `\nExamples:\n  $ interloper coverage orders\n  $ interloper coverage -i\n  $ interloper coverage orders -w 2026-01-01..2026-03-31 --json\n  $ interloper coverage orders --until 2026-03-31\n  $ interloper coverage tag:finance --exclude daily_revenue\n  $ interloper coverage --html coverage.html --fail-on-missing`,
    )
    .action(async (selectors: string[], options: object, command: Command) => {
      const { coverageCommand } = await import("./commands/coverage.js");
      process.exitCode = await coverageCommand(selectors, { ...command.optsWithGlobals(), ...options });
    });

  program
    .command("worker")
    .description(
      "run the jobs of backfills enqueued with materialize --queue, partition by partition, until stopped (SIGTERM: running partitions finish)",
    )
    .option("--queue <url>", "the PostgreSQL work queue (default: $INTERLOPER_QUEUE_URL)")
    .option("--concurrency <n>", "partitions at once (default 1)", integer("--concurrency", 1, 1000))
    .option(
      "--processes <n>",
      "run partitions in n child processes, each loading the config once (as materialize --processes); sets --concurrency to n",
      integer("--processes", 1, 1000),
    )
    .option("--max-jobs <n>", "stop after running n jobs", integer("--max-jobs", 1))
    .option("--idle-exit <seconds>", "exit 0 when nothing ran and the queue had nothing for this long (for CI)", integer("--idle-exit", 0))
    .option("--timeout <duration>", "fail a partition whose run takes longer (90s, 5m, 1h); the job retries")
    .option(
      "--grace <duration>",
      `after a second SIGINT or SIGTERM, how long running partitions may take to finish (default ${formatLimit(DEFAULT_GRACE_MS)})`,
    )
    .option("--poll <duration>", "how often an idle worker asks the queue for jobs (default 2s)")
    .option(
      "--supervise-every <duration>",
      "how often this worker looks for expired jobs (those of dead workers) and sends them back (default 1m)",
    )
    .option("--reconnect <duration>", "how long to keep trying a queue server that went away before exiting 1 (default 1m)")
    .option("--json", "write the events and each job's start and end as JSON lines on stdout")
    .addHelpText(
      "after",
      `\nExamples:\n  $ interloper worker --queue postgres://localhost/jobs --concurrency 2\n  $ INTERLOPER_QUEUE_URL=postgres://localhost/jobs interloper worker --idle-exit 30`,
    )
    .action(async (options: object, command: Command) => {
      const { workerCommand } = await import("./commands/worker.js");
      process.exitCode = await workerCommand({ ...command.optsWithGlobals(), ...options });
    });

  program
    .command("backfills")
    .argument("[id]", "one backfill (as materialize --queue printed it); none lists them all")
    .description("show the progress of backfills on a work queue: queued, running (with the worker), completed, failed (with errors)")
    .option("--queue <url>", "the PostgreSQL work queue (default: $INTERLOPER_QUEUE_URL)")
    .option("--json", "print JSON")
    .option("--retry-failed", "send the backfill's failed jobs back to the queue")
    .option("--cancel", "cancel the backfill: no job of it starts any more (running ones finish)")
    .addHelpText(
      "after",
      `\nExamples:\n  $ interloper backfills --queue postgres://localhost/jobs\n  $ interloper backfills 6f1c… --retry-failed --queue postgres://localhost/jobs`,
    )
    .action(async (id: string | undefined, options: object, command: Command) => {
      const { backfillsCommand } = await import("./commands/backfills.js");
      process.exitCode = await backfillsCommand(id, { ...command.optsWithGlobals(), ...options });
    });

  program
    .command("init")
    .description(
      "start a project here: write interloper.config.ts (one source, one daily asset with a zod schema, CSV files in ./data) and add ./data to .gitignore; never overwrites a config",
    )
    .addHelpText("after", `\nExamples:\n  $ interloper init && interloper check && interloper materialize --lookback 1 --offset 1`)
    .action(async (options: object, command: Command) => {
      const { initCommand } = await import("./commands/init.js");
      process.exitCode = await initCommand({ ...command.optsWithGlobals(), ...options });
    });

  program
    .command("check")
    .description(
      "load the config and validate every asset, edge and destination without running or connecting to anything: each problem on a line and exit 2, else one OK line",
    )
    .action(async (options: object, command: Command) => {
      const { checkCommand } = await import("./commands/check.js");
      process.exitCode = await checkCommand({ ...command.optsWithGlobals(), ...options });
    });

  program
    .command("completion")
    .argument("<shell>", "bash, zsh or fish")
    .description("print a shell completion script: commands, options, and asset keys read from the config when you press Tab")
    .addHelpText(
      "after",
      `\nExamples:\n  $ source <(interloper completion bash)              # in ~/.bashrc\n  $ interloper completion zsh > "\${fpath[1]}/_interloper"\n  $ interloper completion fish > ~/.config/fish/completions/interloper.fish`,
    )
    .action(async (shell: string) => {
      const { completionCommand } = await import("./commands/completion.js");
      process.exitCode = completionCommand(shell, program);
    });

  program
    .command("__complete", { hidden: true })
    .argument("[word]", "the word being completed")
    .description("print the asset keys, sources and tags for shell completion, one a line")
    .action(async (word: string | undefined, options: object, command: Command) => {
      const { completeAssets } = await import("./commands/completion.js");
      process.exitCode = await completeAssets(word ?? "", { ...command.optsWithGlobals(), ...options });
    });

  return program;
}

/** Runs the CLI; sets `process.exitCode` (0 done, 1 a run failed, 2 bad input or configuration). */
export async function main(argv: readonly string[] = process.argv): Promise<void> {
  dropOutputOnceClosed(process.stdout);
  dropOutputOnceClosed(process.stderr);
  const program = buildProgram();
  // An event loop that drains before the command ends means it waits on a promise nothing can
  // settle: the process would exit 0 as if all went well. A run under way fails what stalled
  // and ends with its summary (src/runner/watchdog.ts); anything else ends here, with exit 1.
  let finished = false;
  const unfinished = () => {
    if (finished) return;
    process.exitCode = 1;
    if (commandRunsUnderWay()) return;
    finished = true;
    process.stderr.write("interloper: the command stopped before it finished: it waited on a promise that nothing could settle any more\n");
  };
  process.on("beforeExit", unfinished);
  try {
    await program.parseAsync(argv as string[]);
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0 || error.code === "commander.helpDisplayed" || error.code === "commander.version") {
        process.exitCode = 0;
        return;
      }
      if (error.code === "commander.help") {
        process.exitCode = 0;
        return;
      }
      process.stderr.write(`interloper: ${printable(error.message.replace(/^error:\s*/i, "").replace(/\s*\n\s*/g, " "))}\n`);
      process.exitCode = 2;
      return;
    }
    process.exitCode = reportError(error, argv.includes("--verbose"));
  } finally {
    finished = true;
    process.off("beforeExit", unfinished);
    // Database pools and clients would keep the process alive after the work is done.
    await closeCommandSessions();
  }
}
