import type { Command } from "commander";
import { DEFAULT_GRACE_MS, formatLimit } from "../../runner/limits.js";
import { concurrencyOption, flagsOf, graceOption, integer, jsonOption, processesOption, queueOption, timeoutOption } from "./options.js";

/** Declares `interloper worker`; its module is loaded only when it runs. */
export function declareWorker(program: Command): void {
  program
    .command("worker")
    .description(
      "run the jobs of backfills enqueued with materialize --queue, partition by partition, until stopped (SIGTERM: running partitions finish)",
    )
    .addOption(queueOption())
    .addOption(concurrencyOption("partitions at once (default 1)", 1000))
    .addOption(
      processesOption(
        "run partitions in n child processes, each loading the config once (as materialize --processes); sets --concurrency to n",
        1000,
      ),
    )
    .option("--max-jobs <n>", "stop after running n jobs", integer("--max-jobs", 1))
    .option("--idle-exit <seconds>", "exit 0 when nothing ran and the queue had nothing for this long (for CI)", integer("--idle-exit", 0))
    .addOption(timeoutOption("fail a partition whose run takes longer (90s, 5m, 1h); the job retries"))
    .addOption(
      graceOption(
        `after a second SIGINT or SIGTERM, how long running partitions may take to finish (default ${formatLimit(DEFAULT_GRACE_MS)})`,
      ),
    )
    .option("--poll <duration>", "how often an idle worker asks the queue for jobs (default 2s)")
    .option(
      "--supervise-every <duration>",
      "how often this worker looks for expired jobs (those of dead workers) and sends them back (default 1m)",
    )
    .option("--reconnect <duration>", "how long to keep trying a queue server that went away before exiting 1 (default 1m)")
    .addOption(jsonOption("write the events and each job's start and end as JSON lines on stdout"))
    .addHelpText(
      "after",
      `\nExamples:\n  $ interloper worker --queue postgres://localhost/jobs --concurrency 2\n  $ INTERLOPER_QUEUE_URL=postgres://localhost/jobs interloper worker --idle-exit 30`,
    )
    .action(async (options: object, command: Command) => {
      const { workerCommand } = await import("../commands/worker.js");
      process.exitCode = await workerCommand(flagsOf(options, command));
    });
}
