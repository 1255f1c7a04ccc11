import type { Command } from "commander";
import { assetSelection, flagsOf, jsonOption, partitionOption, valuesOption, windowOption } from "./options.js";

/** Declares `interloper verify`; its module is loaded only when it runs. */
export function declareVerify(program: Command): void {
  assetSelection(program.command("verify"), "every asset")
    .description(
      "run the assets' checks against their stored partitions in each destination, writing nothing; exit 1 when an error check fails or a partition cannot be read",
    )
    .addOption(partitionOption("one stored partition"))
    .addOption(windowOption("the stored partitions of an inclusive window (default: every stored partition)"))
    .addOption(valuesOption())
    .option("--destination <name>", "verify only this destination of the assets (its key, as `list` shows it; default: every destination)")
    .addOption(jsonOption("print each asset's partitions with every check's verdict as JSON"))
    .addHelpText(
      "after",
      `\nExamples:\n  $ interloper verify\n  $ interloper verify orders -w 2026-01-01..2026-01-31 --json\n  $ interloper verify events --destination warehouse`,
    )
    .action(async (selectors: string[], options: object, command: Command) => {
      const { verifyCommand } = await import("../commands/verify.js");
      process.exitCode = await verifyCommand(selectors, flagsOf(options, command));
    });
}
