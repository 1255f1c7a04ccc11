import type { Command, Option as OptionType, OptionValues } from "commander";
import { InvalidArgumentError, Option } from "./commander.js";

// The flags several commands take, each spelled and parsed here once. Where commands word a
// flag's help differently (coverage's `--window` narrows what is shown, materialize's picks what
// runs), the command passes its own description; the flag, its value and its checks stay one.

/** A parser for a flag's integer value, from min to max inclusive; its error names the flag. */
export function integer(name: string, min: number, max = 1_000_000) {
  return (value: string): number => {
    const n = Number(value);
    // Digits only: a sign or a space is a slip of quoting or of the keyboard, not part of a count.
    if (!/^\d+$/.test(value) || n < min || n > max) {
      throw new InvalidArgumentError(
        `${name} must be an integer from ${min} to ${max.toLocaleString("en-US")}, digits only, got ${JSON.stringify(value)}`,
      );
    }
    return n;
  };
}

const SELECTORS =
  "assets to work on: orders or shop.orders (an asset), shop or source:shop (a source's assets), tag:NAME, +orders (and everything upstream), orders+ (and everything downstream); several are a union";

/** The positional selectors and `--exclude` (repeatable), shared by materialize, plan, coverage and list. */
export function assetSelection(command: Command, none: string): Command {
  return command
    .argument("[selectors...]", `${SELECTORS}; none means ${none}`)
    .option(
      "--exclude <selector>",
      "leave out what this selector names (repeatable; same syntax)",
      (value: string, previous: string[] = []) => [...previous, value],
    );
}

export const partitionOption = (description: string): OptionType => new Option("-p, --partition <key>", description);

export const windowOption = (description: string): OptionType => new Option("-w, --window <start..end>", description);

export const lookbackOption = (description: string): OptionType =>
  new Option("--lookback <n>", description).argParser(integer("--lookback", 1));

/** `--offset` and `--tz`, which only qualify `--lookback`. */
export function lookbackQualifiers(command: Command): Command {
  return command
    .addOption(
      new Option("--offset <n>", "with --lookback: end n partitions before the current one (default 1: the last complete one)").argParser(
        integer("--offset", 0),
      ),
    )
    .addOption(new Option("--tz <zone>", "with --lookback: the IANA time zone whose calendar days follow (default UTC)"));
}

/** `--values region=eu,us` (repeatable): narrows the list dimensions of multi-partitioned assets. */
export const valuesOption = (): OptionType =>
  new Option(
    "--values <name=values>",
    "of assets partitioned by several dimensions: only these values of a list dimension, comma-separated (region=eu,us; repeatable, once per dimension)",
  ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);

/** Which partitions to run, shared by materialize and plan. */
export function selectionOptions(command: Command): Command {
  return lookbackQualifiers(
    command
      .addOption(
        partitionOption(
          'one partition: a time key (2026-01-15, 2026-01, 2026-W03, 2026-Q1, 2026, 2026-01-15T13), a list value, or one of each dimension ("2026-01-15|eu", date=2026-01-15,region=eu)',
        ),
      )
      .addOption(windowOption("an inclusive window of partitions (a single key is a window of one)"))
      .addOption(lookbackOption("the trailing window of n complete partitions (the one in progress with --include-current)"))
      .addOption(valuesOption()),
  );
}

export const jsonOption = (description: string): OptionType => new Option("--json", description);

export const orderOption = (): OptionType =>
  new Option("--order <order>", "which end of a backfill runs first").choices(["newest", "oldest"]).default("newest");

export const missingOption = (description: string): OptionType => new Option("--missing", description);

export const staleOption = (description: string): OptionType => new Option("--stale", description);

export const untilOption = (
  description = "with --missing and no window: look up to this partition, inclusive (default: the last complete period)",
): OptionType => new Option("--until <key>", description);

export const includeCurrentOption = (
  description = "with --missing and no window, or with --lookback: also the current period (default: left to finish); otherwise: let a window reach periods that have not begun",
): OptionType => new Option("--include-current", description);

export const concurrencyOption = (description: string, max?: number): OptionType =>
  new Option("--concurrency <n>", description).argParser(integer("--concurrency", 1, max));

export const processesOption = (description: string, max?: number): OptionType =>
  new Option("--processes <n>", description).argParser(integer("--processes", 1, max));

export const timeoutOption = (description: string): OptionType => new Option("--timeout <duration>", description);

export const graceOption = (description: string): OptionType => new Option("--grace <duration>", description);

export const queueOption = (description = "the PostgreSQL work queue (default: $INTERLOPER_QUEUE_URL)"): OptionType =>
  new Option("--queue <url>", description);

/** What a command's action is given: its own flags over the program's (`-c`, `--verbose`, ...). */
export function flagsOf(options: object, command: Command): OptionValues {
  return { ...command.optsWithGlobals(), ...options };
}
