import type { Command } from "commander";
import { closeCommandSessions, commandRunsUnderWay } from "./command-session.js";
import { applyColorChoice, colorChoice } from "./color.js";
import { reportError } from "./errors.js";
import { packageVersion } from "../package-root.js";
import { printable } from "./printable.js";
import { dropOutputOnceClosed } from "./closed-output.js";
import { printUnheardWarnings } from "./unheard-warnings.js";
import { Command as CommandClass, CommanderError } from "./program/commander.js";
import { declareBackfills } from "./program/backfills.js";
import { declareCheck } from "./program/check.js";
import { declareCompletion } from "./program/completion.js";
import { declareCoverage } from "./program/coverage.js";
import { declareHistory } from "./program/history.js";
import { declareInit } from "./program/init.js";
import { declareList } from "./program/list.js";
import { declareMaterialize } from "./program/materialize.js";
import { declarePlan } from "./program/plan.js";
import { declareShow } from "./program/show.js";
import { declareVerify } from "./program/verify.js";
import { declareWorker } from "./program/worker.js";

// Each command is declared in src/cli/program/ (its arguments, options and help) and runs from
// src/cli/commands/, whose module is imported only when that command runs, so `--help` and
// `list` do not pay for ink, react or the runner.

/** Options every command takes. */
export interface GlobalOptions {
  readonly config?: string;
  readonly verbose?: boolean;
  /** Only errors and the lines that say how the command ended (see `--quiet`). */
  readonly quiet?: boolean;
  /** --color (true), --no-color (false), neither (undefined). */
  readonly color?: boolean;
}

/** The commands in the order `--help` lists them. */
const COMMANDS = [
  declareMaterialize,
  declarePlan,
  declareList,
  declareShow,
  declareCoverage,
  declareHistory,
  declareVerify,
  declareWorker,
  declareBackfills,
  declareInit,
  declareCheck,
  declareCompletion,
];

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
  for (const declare of COMMANDS) declare(program);
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
  const unroute = printUnheardWarnings(argv.includes("--json"));
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
    unroute();
  }
}
