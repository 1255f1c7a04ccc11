import type { Command } from "commander";
import { Option } from "./commander.js";
import { flagsOf, integer, partitionOption, valuesOption, windowOption } from "./options.js";

/** Declares `interloper show`; its module is loaded only when it runs. */
export function declareShow(program: Command): void {
  program
    .command("show")
    .argument("<asset>", "the asset key")
    .description("read an asset back from its first destination (or --destination) and print it")
    .addOption(partitionOption("one partition"))
    .addOption(windowOption("an inclusive window"))
    .addOption(valuesOption())
    .option("--limit <n>", "at most n rows (default 20; 0 for all)", integer("--limit", 0), 20)
    .addOption(new Option("--format <format>", "output format").choices(["table", "json", "csv"]).default("table"))
    .option("--destination <name>", "read from this destination of the asset (its key, as `list` shows it; default: the first)")
    .addHelpText(
      "after",
      `\nExamples:\n  $ interloper show orders -p 2026-01-15\n  $ interloper show orders -w 2026-01-01..2026-01-07 --format csv --limit 0\n  $ interloper show events -p 2026-01-15 --destination warehouse`,
    )
    .action(async (asset: string, options: object, command: Command) => {
      const { showCommand } = await import("../commands/show.js");
      process.exitCode = await showCommand(asset, flagsOf(options, command));
    });
}
