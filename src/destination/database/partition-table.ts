import type { PartitionWindow } from "../../partitioning/index.js";
import { TableData } from "../../representation/index.js";
import type { FieldSpec } from "../../schema/index.js";
import { IOContext } from "../io-context.js";
import type { DatabaseHooks, PartitionRecords } from "./hooks.js";

/** The table, one per dataset, recording which partitions of which table were written. */
export const PARTITION_TABLE = "_interloper_partitions";
/** Its one column: an entry per partition written. */
export const PARTITION_ENTRY = "entry";
const ENTRY = PARTITION_ENTRY;
const PARTITION_TABLE_SCHEMA: readonly FieldSpec[] = [{ name: ENTRY, type: "string", nullable: false }];

// A partition written with no rows leaves nothing in its table, yet it was written: reading it
// must give an empty table and counting it 0, while a partition never written is missing. The
// partition table tells them apart. A backend may keep it itself (the optional `recordPartitions` and
// `writtenPartitions` hooks, which the built-in SQL backends implement over this table); for
// any other backend the base keeps this table through the four hooks, with `{ column, value }`
// filters only, so a backend that renders the documented filter shapes needs nothing more.
// An entry is the JSON text of [table, key]: unambiguous whatever characters either holds. A
// built-in SQL backend also keeps an entry [table, null] for an unpartitioned asset, holding its
// materialization record (see provenance-tables.ts): no key is read from it.
export const entryOf = (table: string, key: string | null): string => JSON.stringify([table, key]);

/** The text every entry of `table` starts with, and no entry of another table: `["orders",`. */
export const entryPrefix = (table: string): string => `${JSON.stringify([table]).slice(0, -1)},`;

function keyOfEntry(entry: unknown, table: string): string | null {
  if (typeof entry !== "string") return null;
  try {
    const parsed = JSON.parse(entry) as unknown;
    return Array.isArray(parsed) && parsed[0] === table && typeof parsed[1] === "string" ? parsed[1] : null;
  } catch {
    return null;
  }
}

/** The context a dialect is given to create the partition table (with `fields`: a built-in backend's adds the records). */
export function partitionTableContext(dataset: string | null, fields: readonly FieldSpec[] = PARTITION_TABLE_SCHEMA): IOContext {
  return new IOContext({
    asset: {
      key: PARTITION_TABLE,
      table: PARTITION_TABLE,
      dataset,
      partitioning: null,
      description: "interloper: the partitions written to each table of this dataset",
    },
    schema: fields,
  });
}

type Backend = DatabaseHooks & PartitionRecords;

/** Records the window's partitions as written (inside the caller's transaction). */
export async function recordWritten(backend: Backend, table: string, dataset: string | null, window: PartitionWindow): Promise<void> {
  const keys = window.partitions.map((p) => p.key);
  if (backend.recordPartitions) return backend.recordPartitions(table, dataset, keys);
  const entries = keys.map((key) => entryOf(table, key));
  for (const entry of entries) await backend.delete(PARTITION_TABLE, dataset, { column: ENTRY, value: entry });
  await backend.insert(
    PARTITION_TABLE,
    dataset,
    entries.map((entry) => ({ [ENTRY]: entry })),
    partitionTableContext(dataset),
  );
}

/** Which of `keys` the partition table records as written. */
export async function writtenAmong(backend: Backend, table: string, dataset: string | null, keys: readonly string[]): Promise<Set<string>> {
  const wanted = new Set(keys);
  const recorded = backend.writtenPartitions
    ? await backend.writtenPartitions(table, dataset, keys)
    : await countedKeys(backend, table, dataset);
  return new Set([...recorded].filter((key) => wanted.has(key)));
}

/** Every partition key of `table` the partition table records. */
export async function writtenKeys(backend: Backend, table: string, dataset: string | null): Promise<string[]> {
  return [
    ...(backend.writtenPartitions ? await backend.writtenPartitions(table, dataset, null) : await countedKeys(backend, table, dataset)),
  ];
}

/** The keys of `table` in the partition table, from one `count` of its entries. */
async function countedKeys(hooks: DatabaseHooks, table: string, dataset: string | null): Promise<string[]> {
  const counts = await hooks.count(PARTITION_TABLE, dataset, ENTRY);
  return Object.keys(counts)
    .map((entry) => keyOfEntry(entry, table))
    .filter((key): key is string => key !== null);
}

/** Removes every entry of `table` from the partition table (inside the caller's transaction). */
export async function forgetTable(backend: Backend, table: string, dataset: string | null): Promise<void> {
  if (backend.recordPartitions) return backend.forgetPartitions!(table, dataset);
  for (const key of await countedKeys(backend, table, dataset))
    await backend.delete(PARTITION_TABLE, dataset, { column: ENTRY, value: entryOf(table, key) });
}

/**
 * The partition table kept by a built-in SQL backend through its own hooks: one `IN` filter per
 * statement instead of one statement per partition.
 */
export const partitionTable = {
  async record(hooks: DatabaseHooks, table: string, dataset: string | null, keys: readonly string[]): Promise<void> {
    const entries = keys.map((key) => entryOf(table, key));
    await hooks.delete(PARTITION_TABLE, dataset, { column: ENTRY, values: entries });
    await hooks.insert(
      PARTITION_TABLE,
      dataset,
      entries.map((entry) => ({ [ENTRY]: entry })),
      partitionTableContext(dataset),
    );
  },

  async written(hooks: DatabaseHooks, table: string, dataset: string | null, keys: readonly string[] | null): Promise<string[]> {
    if (keys === null) return countedKeys(hooks, table, dataset);
    const selected = await hooks.select(PARTITION_TABLE, dataset, { column: ENTRY, values: keys.map((key) => entryOf(table, key)) });
    const rows = selected === null ? [] : (TableData.from(selected)?.rows ?? []);
    return rows.map((row) => keyOfEntry(row[ENTRY], table)).filter((key): key is string => key !== null);
  },
};
