import { PartitionError } from "../../errors.js";
import type { Partition } from "../../partitioning/index.js";
import type { Row } from "../../representation/index.js";
import type { Destination } from "../destination.js";
import type { IOContext } from "../io-context.js";
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
  const column = context.partitionColumn();
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
        const key = window.keyOf(row[column]);
        if (key === null) throw outside(context, row[column]);
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
  const window = context.window!;
  const column = context.partitionColumn();
  for await (const batch of batches) {
    for (const row of batch) {
      // A single partition's rows may leave the column out; when they carry it, it must fit.
      if (Object.hasOwn(row, column) && window.keyOf(row[column]) === null) throw outside(context, row[column]);
    }
    yield batch;
  }
}

function outside(context: IOContext, value: unknown): PartitionError {
  const shown = value instanceof Date ? value.toISOString() : JSON.stringify(value);
  return new PartitionError(
    `asset "${context.asset.key}": a row has a "${context.partitionColumn()}" value outside the window ${String(context.window)} (${shown}); rows must carry their partition's value`,
  );
}
