import type { Command } from "commander";
import { flagsOf } from "./options.js";

/** Declares `interloper init`; its module is loaded only when it runs. */
export function declareInit(program: Command): void {
  program
    .command("init")
    .description(
      "start a project here: write interloper.config.ts (one source, one daily asset with a zod schema, CSV files in ./data) and add ./data to .gitignore; never overwrites a config",
    )
    .addHelpText("after", `\nExamples:\n  $ interloper init && interloper check && interloper materialize --lookback 1 --offset 1`)
    .action(async (options: object, command: Command) => {
      const { initCommand } = await import("../commands/init.js");
      process.exitCode = await initCommand(flagsOf(options, command));
    });
}
