import type { Command } from "commander";
import {
  assetSelection,
  flagsOf,
  includeCurrentOption,
  integer,
  jsonOption,
  missingOption,
  staleOption,
  orderOption,
  selectionOptions,
  untilOption,
} from "./options.js";

/** Declares `interloper plan`; its module is loaded only when it runs. */
export function declarePlan(program: Command): void {
  selectionOptions(assetSelection(program.command("plan"), "every materializable asset"))
    .description("print the runs a materialize would make, in order")
    .addOption(orderOption())
    .addOption(missingOption("only the partitions coverage reports missing now"))
    .addOption(staleOption("only the stored partitions that are out of date, and what rebuilding them makes out of date downstream"))
    .addOption(untilOption())
    .addOption(includeCurrentOption())
    .option("--shards <n>", "split the backfill into n shards; with --json, print a GitHub Actions matrix", integer("--shards", 1, 10_000))
    .addOption(jsonOption("print the plan as JSON"))
    .addHelpText(
      "after",
      `\nExamples:\n  $ interloper plan --window 2025-01-01..2025-12-31\n  $ interloper plan --window 2025-01-01..2025-12-31 --shards 4 --json   # {"include":[{"shard":"1/4",...}]}`,
    )
    .action(async (assets: string[], options: object, command: Command) => {
      const { planCommand } = await import("../commands/plan.js");
      process.exitCode = await planCommand(assets, flagsOf(options, command));
    });
}
