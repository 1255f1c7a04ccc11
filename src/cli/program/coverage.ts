import type { Command } from "commander";
import { Option } from "./commander.js";
import {
  assetSelection,
  flagsOf,
  includeCurrentOption,
  jsonOption,
  lookbackOption,
  lookbackQualifiers,
  missingOption,
  partitionOption,
  untilOption,
  valuesOption,
  windowOption,
} from "./options.js";

const EXAMPLES = `\nExamples:\n  $ interloper coverage orders\n  $ interloper coverage -i\n  $ interloper coverage orders -w 2026-01-01..2026-03-31 --json\n  $ interloper coverage orders --until 2026-03-31\n  $ interloper coverage tag:finance --exclude daily_revenue\n  $ interloper coverage --html coverage.html --fail-on-missing\n  $ interloper coverage tag:finance --fail-on-stale
  $ interloper coverage stock --values region=eu`;

/** Declares `interloper coverage`; its module is loaded only when it runs. */
export function declareCoverage(program: Command): void {
  const command = assetSelection(program.command("coverage"), "every partitioned asset; one asset key shows that asset in detail")
    .description("which partitions are materialized, empty, missing or stale, and how many rows each holds")
    .addOption(partitionOption("only this partition: a time key or a list value"))
    .addOption(windowOption("only these partitions"))
    .addOption(lookbackOption("only the trailing window of n complete partitions (the one in progress with --include-current)"))
    .addOption(valuesOption());
  lookbackQualifiers(command)
    // Not a flag of coverage: accepted (unlisted) so that the command can point to materialize --missing.
    .addOption(missingOption("").hideHelp())
    .addOption(jsonOption("print the computed coverage as JSON"))
    .option("--html <file>", "also write a self-contained HTML report")
    .option("--fail-on-missing", "exit 1 when any expected partition is missing (a CI gate); the period in progress never counts")
    .option(
      "--fail-on-stale",
      "exit 1 when any expected partition is stale: stored, but an upstream it read or its asset's code changed since (a CI gate)",
    )
    .addOption(
      untilOption(
        "end the expected range at this partition, inclusive (default: the last complete period; the current one is shown in progress)",
      ),
    )
    .addOption(includeCurrentOption("expect the current period too"))
    .addOption(
      new Option(
        "-i, --interactive",
        "explore in the terminal: arrow keys move between assets and periods, enter shows a partition, m materializes, / filters, q quits",
      ),
    )
    .addHelpText("after", EXAMPLES)
    .action(async (selectors: string[], options: object, command: Command) => {
      const { coverageCommand } = await import("../commands/coverage.js");
      process.exitCode = await coverageCommand(selectors, flagsOf(options, command));
    });
}
