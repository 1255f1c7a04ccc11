import type { Command } from "commander";
import { flagsOf, jsonOption, queueOption } from "./options.js";

/** Declares `interloper backfills`; its module is loaded only when it runs. */
export function declareBackfills(program: Command): void {
  program
    .command("backfills")
    .argument("[id]", "one backfill (as materialize --queue printed it); none lists them all")
    .description("show the progress of backfills on a work queue: queued, running (with the worker), completed, failed (with errors)")
    .addOption(queueOption())
    .addOption(jsonOption("print JSON"))
    .option("--retry-failed", "send the backfill's failed jobs back to the queue")
    .option("--cancel", "cancel the backfill: no job of it starts any more (running ones finish)")
    .addHelpText(
      "after",
      `\nExamples:\n  $ interloper backfills --queue postgres://localhost/jobs\n  $ interloper backfills 6f1c… --retry-failed --queue postgres://localhost/jobs`,
    )
    .action(async (id: string | undefined, options: object, command: Command) => {
      const { backfillsCommand } = await import("../commands/backfills.js");
      process.exitCode = await backfillsCommand(id, flagsOf(options, command));
    });
}
