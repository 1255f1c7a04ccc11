import { createHash } from "node:crypto";
import { ListPartitionConfig } from "../../partitioning/index.js";
import { TableData, type Row } from "../../representation/index.js";
import type { FieldSpec } from "../../schema/index.js";
import { HISTORY_KEPT } from "../destination.js";
import { IOContext } from "../io-context.js";
import { checkedMaterialization, parseMaterialization, type Materialization } from "../provenance/materialization.js";
import { entryOf, PARTITION_ENTRY, PARTITION_TABLE, partitionTableContext } from "./partition-table.js";
import {
  currentRecordsStatement,
  ENDED,
  forgetTableStatement,
  HISTORY_TABLE,
  historyStatement,
  latestStatement,
  pruneStatement,
  RECORD,
  SLOT,
} from "./provenance-statements.js";
import type { SqlDialect } from "./sql-dialect.js";
import type { SqlDriver } from "./sql-driver.js";

/*
 * The materialization records of a built-in SQL backend (issue 34). The current record of each
 * stored partition is a column of its row in the partition table (`record`, JSON; null for a row
 * an older version wrote: provenance unknown), and every write also adds a row to the dataset's
 * history table (`_interloper_materializations`). Both are written in the write's transaction,
 * after the data, so a record never outlives or precedes its data, and a write the database
 * rolls back (a failure, a MySQL deadlock's victim run again) leaves no record of its own: each
 * attempt builds its record afresh. An unpartitioned asset's record has the entry [table, null].
 */

const ENTRY = PARTITION_ENTRY;
/** The partition table as built-in backends keep it: the entry, and the record of the write that stored it. */
const RECORDS_FIELDS: readonly FieldSpec[] = [
  { name: ENTRY, type: "string", nullable: false },
  { name: RECORD, type: "json", nullable: true },
];
const HISTORY_FIELDS: readonly FieldSpec[] = [
  { name: SLOT, type: "string", nullable: false },
  { name: ENTRY, type: "string", nullable: false },
  { name: ENDED, type: "integer", nullable: false },
  { name: RECORD, type: "json", nullable: false },
];
/** Up to this many partitions, a window's records are asked for by entry; past it, the table's are read and filtered. */
const IN_LIST_LIMIT = 1000;

/** The partition table's context with its record column: an older table gains it on its next write (ADD COLUMN). */
export function recordsTableContext(dataset: string | null): IOContext {
  return partitionTableContext(dataset, RECORDS_FIELDS);
}

/**
 * The history table's context. It is list-partitioned by slot as far as the tables know, so that
 * its slot column is created as an exact, indexable text column and indexed, as a list
 * partition column is: pruning and a partition's history find its rows by that index.
 */
export function historyTableContext(dataset: string | null): IOContext {
  return new IOContext({
    asset: {
      key: HISTORY_TABLE,
      table: HISTORY_TABLE,
      dataset,
      partitioning: new ListPartitionConfig({ column: SLOT, values: [SLOT] }),
      description: "interloper: the records of past partition writes of each table of this dataset",
    },
    schema: HISTORY_FIELDS,
  });
}

/** A fixed-length digest of an entry, which MySQL can index (it indexes no TEXT column whole). */
const slotOf = (entry: string): string => createHash("sha1").update(entry).digest("hex");

/** The key an entry of `table` names (null: the unpartitioned asset's), or undefined for an entry of another table or none. */
function keyOfEntry(entry: unknown, table: string): string | null | undefined {
  if (typeof entry !== "string") return undefined;
  try {
    const parsed = JSON.parse(entry) as unknown;
    if (!Array.isArray(parsed) || parsed.length !== 2 || parsed[0] !== table) return undefined;
    return typeof parsed[1] === "string" || parsed[1] === null ? (parsed[1] as string | null) : undefined;
  } catch {
    return undefined;
  }
}

/** A stored record as the driver gives it: JSON text (SQLite, MariaDB), or parsed (PostgreSQL's jsonb, MySQL's JSON). */
function storedRecord(value: unknown): Materialization | null {
  if (typeof value === "string") return parseMaterialization(value);
  if (value instanceof Uint8Array) return parseMaterialization(Buffer.from(value).toString("utf8"));
  return typeof value === "object" && value !== null ? checkedMaterialization(value) : null;
}

/** Records read back: by partition key ("" for an unpartitioned asset), and how many could not be read. */
export interface ReadRecords<T> {
  readonly records: T;
  readonly damaged: number;
}

/** What SqlProvenance works through, each asked at its use (MySQL's dialect follows its server). */
export interface ProvenanceOwner {
  readonly dialect: () => SqlDialect;
  readonly driver: () => SqlDriver;
  /** A table's columns as last read; read afresh when `fresh`. */
  readonly columnsOf: (table: string, dataset: string | null, fresh: boolean) => Promise<ReadonlyMap<string, string> | null>;
  /** Deletes entries of the partition table, locking it as the destination's deletes do. */
  readonly deleteEntries: (dataset: string | null, entries: readonly string[]) => Promise<void>;
  /** Inside a write's transaction, locks a table against other writers where the dialect does. */
  readonly lock: (table: string, dataset: string | null) => Promise<void>;
}

/** The records of a SqlDestination: written with the data, read in one statement per asset and window, dropped with the asset. */
export class SqlProvenance {
  constructor(private readonly owner: ProvenanceOwner) {}

  /**
   * Inside the write's transaction, after the data: each partition's entry with its record in
   * the partition table (the entries replaced), a history row each, and the history of those
   * partitions past its newest HISTORY_KEPT rows deleted.
   */
  async record(table: string, dataset: string | null, records: readonly Materialization[]): Promise<void> {
    const entries = records.map((record) => entryOf(table, record.partition));
    const slots = entries.map(slotOf);
    const driver = this.owner.driver();
    await this.owner.deleteEntries(dataset, entries);
    const current = records.map((record, i): Row => ({ [ENTRY]: entries[i], [RECORD]: record }));
    await driver.load(PARTITION_TABLE, dataset, RECORDS_FIELDS, TableData.from(current)!);
    const latest = await this.latest(dataset, slots);
    const past = records.map((record, i): Row => ({
      [SLOT]: slots[i],
      [ENTRY]: entries[i],
      // After every write of its partition already stored, whatever the writer's clock says (a
      // host a day ahead wrote before it): ordered as they committed, the current one never pruned.
      [ENDED]: Math.max(Date.parse(record.endedAt), (latest.get(slots[i]!) ?? -Infinity) + 1),
      [RECORD]: record,
    }));
    await driver.load(HISTORY_TABLE, dataset, HISTORY_FIELDS, TableData.from(past)!);
    for (let start = 0; start < slots.length; start += IN_LIST_LIMIT) {
      const { sql, params } = pruneStatement(this.owner.dialect(), dataset, slots.slice(start, start + IN_LIST_LIMIT), HISTORY_KEPT);
      await driver.run(sql, params);
    }
  }

  /** The latest order stored for each slot that has history rows (inside the write's transaction, under its partitions' locks). */
  private async latest(dataset: string | null, slots: readonly string[]): Promise<Map<string, number>> {
    const latest = new Map<string, number>();
    // Asked afresh when none was known: another process may have made the table since.
    const columns =
      (await this.owner.columnsOf(HISTORY_TABLE, dataset, false)) ?? (await this.owner.columnsOf(HISTORY_TABLE, dataset, true));
    if (!columns) return latest;
    for (let start = 0; start < slots.length; start += IN_LIST_LIMIT) {
      const { sql, params } = latestStatement(this.owner.dialect(), dataset, slots.slice(start, start + IN_LIST_LIMIT));
      for (const row of await this.owner.driver().run(sql, params)) latest.set(String(row[SLOT]), Number(row["latest"]));
    }
    return latest;
  }

  /**
   * The current record of each of `keys` (null in it: the unpartitioned asset's) that has one,
   * or of every partition key of the table when `keys` is null; one statement. A partition
   * table of an older version, without the record column, has none.
   */
  async current(
    table: string,
    dataset: string | null,
    keys: readonly (string | null)[] | null,
  ): Promise<ReadRecords<Record<string, Materialization>>> {
    const records: Record<string, Materialization> = Object.create(null);
    let columns = await this.owner.columnsOf(PARTITION_TABLE, dataset, false);
    // Another process may have added the column since this one last looked.
    if (columns && !columns.has(RECORD)) columns = await this.owner.columnsOf(PARTITION_TABLE, dataset, true);
    if (!columns?.has(RECORD)) return { records, damaged: 0 };
    const byEntry = keys !== null && keys.length <= IN_LIST_LIMIT ? keys.map((key) => entryOf(table, key)) : null;
    const { sql, params } = currentRecordsStatement(this.owner.dialect(), table, dataset, byEntry);
    const wanted = keys === null ? null : new Set(keys);
    let damaged = 0;
    for (const row of await this.owner.driver().run(sql, params)) {
      const key = keyOfEntry(row[ENTRY], table);
      if (key === undefined || (wanted ? !wanted.has(key) : key === null)) continue;
      const record = storedRecord(row[RECORD]);
      if (record === null || record.partition !== key) damaged++;
      else records[key ?? ""] = record;
    }
    return { records, damaged };
  }

  /** The newest `limit` records of one partition's writes (null: the unpartitioned asset's), or of every partition's (undefined). */
  async history(
    table: string,
    dataset: string | null,
    key: string | null | undefined,
    limit: number,
  ): Promise<ReadRecords<Materialization[]>> {
    if (limit === 0 || !(await this.owner.columnsOf(HISTORY_TABLE, dataset, false))) return { records: [], damaged: 0 };
    const entry = key === undefined ? null : entryOf(table, key);
    const one = entry === null ? null : { slot: slotOf(entry), entry };
    const { sql, params } = historyStatement(this.owner.dialect(), table, dataset, one, limit);
    const records: Materialization[] = [];
    let damaged = 0;
    for (const row of await this.owner.driver().run(sql, params)) {
      const stored = keyOfEntry(row[ENTRY], table);
      if (stored === undefined) continue;
      const record = storedRecord(row[RECORD]);
      if (record === null || record.partition !== stored) damaged++;
      else records.push(record);
    }
    // In the statement's order, by end then insertion: two writes of one partition ending in the
    // same millisecond keep the order they committed in (their ids, which newestFirst would
    // compare then, are random).
    return { records, damaged };
  }

  /** Inside the drop's transaction: every entry of the table in the partition table and the history (tables that exist). */
  async forget(table: string, dataset: string | null): Promise<void> {
    for (const internal of [PARTITION_TABLE, HISTORY_TABLE]) {
      if (!(await this.owner.columnsOf(internal, dataset, false))) continue;
      await this.owner.lock(internal, dataset);
      const { sql, params } = forgetTableStatement(this.owner.dialect(), internal, table, dataset);
      await this.owner.driver().run(sql, params);
    }
  }
}
