import type { Row } from "./table-data.js";

/** Rows arriving over time: an iterable or async iterable of rows or of row batches. */
export type RowStream = AsyncIterable<Row | Row[]> | Iterable<Row | Row[]>;

const BATCH = 5_000;

/**
 * Whether an asset returned a stream of rows rather than a table: an async iterable, or a sync
 * iterator such as a generator. Arrays, strings, Maps and Sets are values, not streams.
 */
export function isRowStream(data: unknown): data is RowStream {
  if (typeof data !== "object" || data === null || Array.isArray(data)) return false;
  if (data instanceof Map || data instanceof Set || ArrayBuffer.isView(data)) return false;
  if (Symbol.asyncIterator in data) return true;
  return Symbol.iterator in data && typeof (data as { next?: unknown }).next === "function";
}

/** The stream as batches of rows: batches pass through, single rows are grouped. */
export async function* batchesOf(stream: RowStream, size = BATCH): AsyncGenerator<Row[]> {
  let pending: Row[] = [];
  for await (const item of stream as AsyncIterable<Row | Row[]>) {
    if (Array.isArray(item)) {
      if (pending.length) {
        yield pending;
        pending = [];
      }
      if (item.length) yield item;
    } else {
      pending.push(item);
      if (pending.length >= size) {
        yield pending;
        pending = [];
      }
    }
  }
  if (pending.length) yield pending;
}

/** Collects a stream into one array of rows. */
export async function collectRows(batches: AsyncIterable<Row[]>): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const batch of batches) for (const row of batch) rows.push(row);
  return rows;
}
