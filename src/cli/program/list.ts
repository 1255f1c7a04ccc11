import type { Command } from "commander";
import { assetSelection, flagsOf, jsonOption } from "./options.js";

/** Declares `interloper list`; its module is loaded only when it runs. */
export function declareList(program: Command): void {
  assetSelection(program.command("list"), "every asset")
    .description(
      "list assets: source, partitioning, destinations, dependencies, tags and schema (--verbose: and where each destination keeps its data)",
    )
    .addOption(jsonOption("print JSON"))
    .action(async (selectors: string[], options: object, command: Command) => {
      const { listCommand } = await import("../commands/list.js");
      process.exitCode = await listCommand(selectors, flagsOf(options, command));
    });
}
