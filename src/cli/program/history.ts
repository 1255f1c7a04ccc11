import type { Command } from "commander";
import { flagsOf, integer, jsonOption, partitionOption } from "./options.js";

/** Declares `interloper history`; its module is loaded only when it runs. */
export function declareHistory(program: Command): void {
  program
    .command("history")
    .argument("<asset>", "the asset key")
    .description("how an asset's partitions were made: each write's run, time, rows, code version and what it read, newest first")
    .addOption(partitionOption("one partition's writes (default: every partition's)"))
    .option("--limit <n>", "at most n writes (default 10)", integer("--limit", 1), 10)
    .addOption(jsonOption("print the records as a JSON array"))
    .addHelpText("after", `\nExamples:\n  $ interloper history revenue -p 2026-01-15\n  $ interloper history orders --limit 50 --json`)
    .action(async (asset: string, options: object, command: Command) => {
      const { historyCommand } = await import("../commands/history.js");
      process.exitCode = await historyCommand(asset, flagsOf(options, command));
    });
}
