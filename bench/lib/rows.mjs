// Deterministic benchmark rows: date (ISO string), order_id (integer), customer (string),
// amount (float), status (string). The same (day, index) always gives the same row, so the
// framework workload and its baseline write byte-identical data.

const STATUSES = ["paid", "paid", "paid", "refunded", "pending"];

/** The 10-digit day number of an ISO date ("2025-03-07" -> 20250307). */
export function dayNumber(day) {
  return Number(day.slice(0, 4)) * 10_000 + Number(day.slice(5, 7)) * 100 + Number(day.slice(8, 10));
}

/** Rows `from` (inclusive) to `to` (exclusive) of a day. */
export function rowsOf(day, from, to) {
  const seed = dayNumber(day);
  const rows = new Array(to - from);
  for (let i = from; i < to; i++) {
    const mix = (Math.imul(i, 0x9e3779b1) + seed * 31) >>> 0;
    rows[i - from] = {
      date: day,
      order_id: seed * 10_000_000 + i,
      customer: `c${String(mix % 5_000).padStart(5, "0")}`,
      amount: ((mix % 1_000_000) + 1) / 100 + 0.005,
      status: STATUSES[mix % STATUSES.length],
    };
  }
  return rows;
}

/** All rows of a day at once. */
export function rowsForDay(day, count) {
  return rowsOf(day, 0, count);
}

/** A day's rows as an async iterable of batches (the streaming shape). */
export async function* rowBatches(day, count, batch = 10_000) {
  for (let from = 0; from < count; from += batch) yield rowsOf(day, from, Math.min(count, from + batch));
}

/** The ISO days of a year, or `count` consecutive days from `start`. */
export function days(start, count) {
  const out = [];
  const t0 = Date.parse(`${start}T00:00:00Z`);
  for (let i = 0; i < count; i++) out.push(new Date(t0 + i * 86_400_000).toISOString().slice(0, 10));
  return out;
}

export const COLUMNS = ["date", "order_id", "customer", "amount", "status"];
