import type { Command } from "commander";
import { flagsOf } from "./options.js";

/** Declares `interloper check`; its module is loaded only when it runs. */
export function declareCheck(program: Command): void {
  program
    .command("check")
    .description(
      "load the config and validate every asset, edge and destination without running or connecting to anything: each problem on a line and exit 2, else one OK line",
    )
    .action(async (options: object, command: Command) => {
      const { checkCommand } = await import("../commands/check.js");
      process.exitCode = await checkCommand(flagsOf(options, command));
    });
}
