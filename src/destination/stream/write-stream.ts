import type { PartitionError } from "../../errors.js";
import { MultiPartitionWindow, type Partition } from "../../partitioning/index.js";
import type { Row } from "../../representation/index.js";
import type { Destination } from "../destination.js";
import { outsideWindow, type IOContext } from "../io-context.js";
import { Channel } from "./channel.js";

/**
 * Writes a stream of row batches over a context's window. A destination with a
 * `writePartitionStream` hook gets each partition's rows as they arrive (one writer per
 * partition, fed through a bounded channel); any other destination gets each partition
 * collected, through `writePartition`. Partitions that receive no rows are written empty, and
 * a row outside the window fails the write before any partition is replaced.
 */
export async function writeStream(destination: Destination, context: IOContext, batches: AsyncIterable<Row[]>): Promise<void> {
  const window = context.window;
  if (!window || window.length === 1) {
    const partition = context.partitions[0] ?? null;
    const checked = window ? checkedBatches(context, batches) : batches;
    if (destination.writePartitionStream) return destination.writePartitionStream(context, partition, checked);
    const rows: Row[] = [];
    for await (const batch of checked) for (const row of batch) rows.push(row);
    await destination.writePartition(context, partition, rows);
    return;
  }
  const keyOf = rowKeyOf(context);
  const byKey = new Map(window.partitions.map((p) => [p.key, p]));
  const routes = new Map<string, { channel: Channel<Row[]> | null; rows: Row[]; done: Promise<void> | null }>();
  const route = (partition: Partition) => {
    let found = routes.get(partition.key);
    if (!found) {
      const channel = destination.writePartitionStream ? new Channel<Row[]>() : null;
      const done = channel ? Promise.resolve(destination.writePartitionStream!(context, partition, channel)) : null;
      // A writer that fails stops its channel, so routing fails at the next push instead of
      // waiting forever on a consumer that is gone.
      done?.catch((error: unknown) => channel!.fail(error));
      found = { channel, rows: [], done };
      routes.set(partition.key, found);
    }
    return found;
  };
  try {
    for await (const batch of batches) {
      const split = new Map<string, Row[]>();
      for (const row of batch) {
        const key = keyOf(row);
        if (key === null) throw outside(context, row);
        const list = split.get(key) ?? [];
        list.push(row);
        split.set(key, list);
      }
      for (const [key, rows] of split) {
        const target = route(byKey.get(key)!);
        if (target.channel) await target.channel.push(rows);
        else for (const row of rows) target.rows.push(row);
      }
    }
  } catch (error) {
    for (const target of routes.values()) target.channel?.fail(error);
    await Promise.allSettled([...routes.values()].map((t) => t.done));
    throw error;
  }
  for (const target of routes.values()) target.channel?.close();
  await Promise.all([...routes.values()].map((t) => t.done));
  for (const partition of window.partitions) {
    const target = routes.get(partition.key);
    if (!target) await destination.writePartition(context, partition, []);
    else if (!target.channel) await destination.writePartition(context, partition, target.rows);
  }
}

async function* checkedBatches(context: IOContext, batches: AsyncIterable<Row[]>): AsyncGenerator<Row[]> {
  const columns = context.partitionColumns();
  const keyOf = rowKeyOf(context);
  for await (const batch of batches) {
    for (const row of batch) {
      // A single partition's rows may leave the columns out; when they carry one, they must fit.
      if (columns.some((column) => Object.hasOwn(row, column)) && keyOf(row) === null) throw outside(context, row);
    }
    yield batch;
  }
}

/** The key of the window's partition a row belongs to, by its partition column (every dimension's, for a multi window). */
function rowKeyOf(context: IOContext): (row: Row) => string | null {
  const window = context.window!;
  if (window instanceof MultiPartitionWindow) return (row) => window.keyOf(row);
  const column = context.partitionColumn();
  return (row) => window.keyOf(row[column]);
}

function outside(context: IOContext, row: Row): PartitionError {
  const columns = context.partitionColumns();
  const value = columns.length === 1 ? row[columns[0]!] : Object.fromEntries(columns.map((c) => [c, row[c] ?? null]));
  return outsideWindow(context.asset.key, "a row has", columns, context.window!, [value]);
}
