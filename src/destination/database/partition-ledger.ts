import type { PartitionWindow } from "../../partitioning/index.js";
import { TableData } from "../../representation/index.js";
import type { FieldSpec } from "../../schema/index.js";
import { IOContext } from "../io-context.js";
import type { DatabaseHooks } from "./hooks.js";

/** The table, one per dataset, recording which partitions of which table were written. */
export const LEDGER_TABLE = "_interloper_partitions";
/** Its one column: an entry per partition written. */
export const LEDGER_ENTRY = "entry";
const ENTRY = LEDGER_ENTRY;
const LEDGER_SCHEMA: readonly FieldSpec[] = [{ name: ENTRY, type: "string", nullable: false }];

// A partition written with no rows leaves nothing in its table, yet it was written: reading it
// must give an empty table and counting it 0, while a partition never written is missing. The
// ledger tells them apart, through the same four hooks, so a dialect knows nothing about it.
// An entry is the JSON text of [table, key]: unambiguous whatever characters either holds.
const entryOf = (table: string, key: string): string => JSON.stringify([table, key]);

function keyOfEntry(entry: unknown, table: string): string | null {
  if (typeof entry !== "string") return null;
  try {
    const parsed = JSON.parse(entry) as unknown;
    return Array.isArray(parsed) && parsed[0] === table && typeof parsed[1] === "string" ? parsed[1] : null;
  } catch {
    return null;
  }
}

/** The context a dialect is given to create the ledger table. */
export function ledgerContext(dataset: string | null): IOContext {
  return new IOContext({
    asset: {
      key: LEDGER_TABLE,
      table: LEDGER_TABLE,
      dataset,
      partitioning: null,
      description: "interloper: the partitions written to each table of this dataset",
    },
    schema: LEDGER_SCHEMA,
  });
}

/** Records the window's partitions as written (inside the caller's transaction). */
export async function recordWritten(hooks: DatabaseHooks, table: string, dataset: string | null, window: PartitionWindow): Promise<void> {
  const entries = window.partitions.map((p) => entryOf(table, p.key));
  await hooks.delete(LEDGER_TABLE, dataset, { column: ENTRY, values: entries });
  await hooks.insert(LEDGER_TABLE, dataset, entries.map((entry) => ({ [ENTRY]: entry })), ledgerContext(dataset));
}

/** Which of `keys` the ledger records as written. */
export async function writtenAmong(hooks: DatabaseHooks, table: string, dataset: string | null, keys: readonly string[]): Promise<Set<string>> {
  const selected = await hooks.select(LEDGER_TABLE, dataset, { column: ENTRY, values: keys.map((key) => entryOf(table, key)) });
  const rows = selected === null ? [] : (TableData.from(selected)?.rows ?? []);
  return new Set(rows.map((row) => keyOfEntry(row[ENTRY], table)).filter((key): key is string => key !== null));
}

/** Every partition key of `table` the ledger records. */
export async function writtenKeys(hooks: DatabaseHooks, table: string, dataset: string | null): Promise<string[]> {
  const counts = await hooks.count(LEDGER_TABLE, dataset, ENTRY);
  return Object.keys(counts)
    .map((entry) => keyOfEntry(entry, table))
    .filter((key): key is string => key !== null);
}

/** Removes every entry of `table` from the ledger (inside the caller's transaction), a bounded number per statement. */
export async function forgetTable(hooks: DatabaseHooks, table: string, dataset: string | null): Promise<void> {
  const entries = (await writtenKeys(hooks, table, dataset)).map((key) => entryOf(table, key));
  for (let start = 0; start < entries.length; start += 1000) {
    await hooks.delete(LEDGER_TABLE, dataset, { column: ENTRY, values: entries.slice(start, start + 1000) });
  }
}
