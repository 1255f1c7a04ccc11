// How the options of a command name partitions of multi-partitioned assets: a key
// (`2026-01-05|eu`, `date=2026-01-05,region=eu`), a window as a multi window prints itself
// (`2026-01-01..2026-01-07|eu,us`), a range of time crossed with every value, and `values`,
// which narrows the lists of whatever window is given.
import type { Asset } from "../asset/asset.js";
import { ConfigError, PartitionError } from "../errors.js";
import {
  checkedValues,
  MultiPartitionConfig,
  MultiPartitionWindow,
  parseMultiKey,
  parseMultiValues,
  TimePartitionWindow,
  TimeWindowMapping,
  type MultiValues,
} from "../partitioning/index.js";

/** The subset of `values` naming list dimensions of `config` (the others belong to other assets). */
export function valuesFor(config: MultiPartitionConfig, values: MultiValues | undefined): MultiValues {
  if (!values) return {};
  return Object.fromEntries(Object.entries(values).filter(([name]) => config.listDimensions.some((d) => d.name === name)));
}

/**
 * Checks `values` against the selection: each name must be a list dimension of a selected
 * multi-partitioned asset, and each value one it declares; ConfigError or PartitionError naming
 * what was given and what is expected.
 */
export function checkValues(assets: readonly Asset[], values: MultiValues | undefined): void {
  if (values === undefined) return;
  if (typeof values !== "object" || values === null || Array.isArray(values))
    throw new ConfigError((o) => `${o("values")}: expected lists of values by dimension, such as { region: ["eu", "us"] }`);
  const multis = multiConfigsOf(assets);
  const names = [...new Set(multis.flatMap((c) => c.listDimensions.map((d) => d.name)))];
  for (const name of Object.keys(values)) {
    if (!names.includes(name)) {
      throw new ConfigError(
        (o) =>
          `${o("values")} names "${name}", which is no list dimension of the selected assets: expected ${names.length > 0 ? `one of ${names.map((n) => `"${n}"`).join(", ")}` : "a selection holding a multi-partitioned asset"}`,
      );
    }
  }
  // Each asset reads its own share; a value it does not declare fails here, before anything runs.
  for (const config of multis) checkedValues(config, valuesFor(config, values));
}

function multiConfigsOf(assets: readonly Asset[]): MultiPartitionConfig[] {
  return assets.map((a) => a.partitioning).filter((c): c is MultiPartitionConfig => c instanceof MultiPartitionConfig);
}

/**
 * The window a partition or window text names for a multi partitioning, when it is one of its
 * own forms (it holds "|", or "=" for a partition); null when it is not (a range of time, read
 * as the other kinds read it).
 */
export function multiScope(config: MultiPartitionConfig, text: string, partition: boolean, values: MultiValues | undefined) {
  if (!text.includes("|") && !(partition && text.includes("="))) return null;
  if (partition) {
    if (values !== undefined)
      throw new ConfigError(
        (o) => `${o("values")} narrows a window; ${o("partition")} ${JSON.stringify(text)} already names one combination`,
      );
    return parseMultiKey(config, text).window;
  }
  const parts = text.split("|");
  const dims = config.dimensions;
  if (parts.length !== dims.length)
    throw new PartitionError(
      `window ${JSON.stringify(text)} has ${parts.length} parts: expected ${dims.length} joined by "|" (${config.shape}), e.g. "${example(config)}"`,
    );
  const given: Record<string, string[]> = {};
  let time: TimePartitionWindow | null = null;
  dims.forEach((d, i) => {
    if (d.kind === "list") given[d.name] = parts[i]!.split(",");
    else time = timeWindowOf(config, parts[i]!);
  });
  const narrowed = { ...given, ...valuesFor(config, values) };
  return new MultiPartitionWindow(config, time, narrowed);
}

function example(config: MultiPartitionConfig): string {
  const g = config.granularity;
  const [first, last] = [new Date(Date.UTC(2026, 0, 1)), new Date(Date.UTC(2026, 2, 1))];
  return config.dimensions
    .map((d) =>
      d.kind === "time"
        ? `${g!.format(first)}..${g!.format(last)}`
        : config.listDimensions
            .find((l) => l.name === d.name)!
            .config.values.slice(0, 2)
            .join(","),
    )
    .join("|");
}

/** The time window of `text` in the time dimension's granularity; PartitionError naming the dimension. */
function timeWindowOf(config: MultiPartitionConfig, text: string): TimePartitionWindow {
  const time = config.timeDimension!;
  const range = TimePartitionWindow.parse(text);
  if (range.granularity !== time.config.granularity)
    throw new PartitionError(
      `window ${JSON.stringify(text)}: the time dimension "${time.name}" is by ${time.config.granularity.name}, but was given ${range.granularity.name} keys`,
    );
  return range;
}

/**
 * The multi window a range of time gives a multi-partitioned asset: its periods covering the
 * range (a month for some of its days) crossed with the values (all, unless narrowed); null
 * for a partitioning without a time dimension, which a range of time does not name.
 */
export function multiOverTime(config: MultiPartitionConfig, range: TimePartitionWindow, values: MultiValues | undefined) {
  const time = config.timeDimension;
  if (!time) return null;
  const own = range.granularity === time.config.granularity ? range : new TimeWindowMapping().map(range, time.config);
  return config.over(own, valuesFor(config, values));
}

/**
 * The values `--values` texts name (`region=eu,us`, repeatable), each read by the selected
 * multi-partitioned asset that has that list dimension; ConfigError for a name none has.
 */
export function parseValues(assets: readonly Asset[], texts: readonly string[]): MultiValues {
  const multis = multiConfigsOf(assets);
  const values: Record<string, string[]> = {};
  for (const text of texts) {
    const name = typeof text === "string" && text.includes("=") ? text.slice(0, text.indexOf("=")).trim() : "";
    const config = multis.find((c) => c.listDimensions.some((d) => d.name === name)) ?? multis[0];
    if (!config)
      throw new ConfigError((o) => `${o("values")} ${JSON.stringify(text)}: no selected asset is partitioned by several dimensions`);
    for (const [dimension, picked] of Object.entries(parseMultiValues(config, [text])))
      values[dimension] = [...new Set([...(values[dimension] ?? []), ...picked])];
  }
  return values;
}
