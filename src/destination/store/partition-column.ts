import { MultiPartition, type Partition, TimeGranularity, TimePartition } from "../../partitioning/index.js";
import type { IOContext } from "../io-context.js";
import { type Row, setOwn } from "../../representation/index.js";
import { type FieldSpec, formatIsoDate, inferFieldSpecs, isDateObjectField, reconcileRows } from "../../schema/index.js";

/** No value the partition could give back: the column stays in the file. */
const NONE: unique symbol = Symbol("no restorable value");
type Restored = unknown | typeof NONE;

/**
 * The partition column of one partition: the value a read gives back for it, and whether the
 * rows written can leave it out of the file. It lives in the path (`{column}={key}`), so the
 * file drops it whenever the partition alone gives every row's value back exactly, in the type
 * the rows hold it: a day's ISO date string or UTC-midnight Date, a list value, an hour's
 * instant, or the key itself (a week, month, quarter or year carried as its key). Where rows
 * hold values the partition cannot restore (a monthly partition of daily dates, an hourly one
 * of instants inside the hour), the column stays in the file and comes back from it.
 */
export class PartitionColumn {
  /** The value the partition restores for every row, in the rows' type; NONE when it restores none. */
  private readonly restored: Restored;

  constructor(
    readonly name: string,
    private readonly partition: Partition,
    private readonly spec: FieldSpec | undefined,
  ) {
    this.restored = spec ? restorable(partition, spec) : NONE;
  }

  /**
   * Whether the file of `rows` can leave the column out: every row holds the value the
   * partition restores. With a field spec that value is the spec's type; without one (a
   * destination called with no schema) the first row's type decides between the key and a Date.
   */
  droppable(rows: readonly Readonly<Row>[]): boolean {
    const value = this.spec ? this.restored : rows.length > 0 ? untypedRestorable(this.partition, rows[0]![this.name]) : this.partition.key;
    if (value === NONE) return false;
    for (const row of rows) if (!sameValue(row[this.name], value)) return false;
    return true;
  }

  /**
   * The rows with the column back, at its place in the schema: the partition's value where the
   * file left it out, the file's own value restored otherwise. Without a schema a column the file
   * holds stays where it is stored, and one only in the path comes last (as hive readers put it).
   */
  attach(rows: readonly Row[], schema: readonly FieldSpec[] | null): Row[] {
    if (!schema && rows.every((row) => Object.hasOwn(row, this.name))) return [...rows];
    const position = schema ? schema.findIndex((spec) => spec.name === this.name) : -1;
    const fromPath =
      this.restored !== NONE ? this.restored : this.spec ? restore(storedText(this.partition, this.spec), this.spec) : this.partition.key;
    return rows.map((row) => {
      const own = Object.hasOwn(row, this.name);
      const value = own ? (this.spec ? restore(row[this.name], this.spec) : row[this.name]) : fromPath;
      const out: Row = {};
      let index = 0;
      for (const key of Object.keys(row)) {
        if (key === this.name) continue;
        if (index++ === position) setOwn(out, this.name, value);
        setOwn(out, key, row[key]);
      }
      if (!Object.hasOwn(out, this.name)) setOwn(out, this.name, value);
      return out;
    });
  }
}

/** Whether a granularity's partitions are single instants a Date can stand for exactly. */
function instantGranularity(partition: TimePartition): boolean {
  return partition.granularity === TimeGranularity.DAY || partition.granularity === TimeGranularity.HOUR;
}

/**
 * The one value of the field's type that every row of the partition holds when the partition
 * gives it back: the key as text, a day as its ISO date or UTC-midnight Date, an hour as its
 * instant. NONE when rows of that type may hold other values (a monthly date column).
 */
function restorable(partition: Partition, spec: FieldSpec): Restored {
  if (spec.type === "string") return partition.key;
  if (!(partition instanceof TimePartition)) return NONE;
  const start = partition.value;
  const asDate = isDateObjectField(spec);
  if (spec.type === "date") {
    if (partition.granularity !== TimeGranularity.DAY) return NONE;
    return asDate ? new Date(start.getTime()) : formatIsoDate(start);
  }
  if (spec.type === "datetime" && instantGranularity(partition)) return asDate ? new Date(start.getTime()) : start.toISOString();
  return NONE;
}

/** `restorable` for a value of no declared type: the key as a string, a day's or hour's start as a Date. */
function untypedRestorable(partition: Partition, sample: unknown): Restored {
  if (typeof sample === "string") return partition.key;
  if (sample instanceof Date && partition instanceof TimePartition && instantGranularity(partition))
    return new Date(partition.value.getTime());
  return NONE;
}

/**
 * The text a file without the column (written by another tool) is read as: the period's start
 * for a date or datetime field, the key otherwise.
 */
function storedText(partition: Partition, spec: FieldSpec): string {
  if (partition instanceof TimePartition) {
    if (spec.type === "date") return formatIsoDate(partition.value);
    if (spec.type === "datetime") return partition.value.toISOString();
  }
  return partition.key;
}

/** One value in the field's canonical type; the value itself when it cannot be restored. */
function restore(value: unknown, spec: FieldSpec): unknown {
  try {
    return reconcileRows([{ [spec.name]: value }], [spec])[0]![spec.name];
  } catch {
    return value;
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return Object.is(a, b);
}

/** A partition's columns: its one column, or each dimension's of a multi partition (with that dimension's partition). */
export function partitionColumnsOf(context: IOContext, partition: Partition): PartitionColumn[] {
  const spec = (name: string) => context.schema?.find((field) => field.name === name);
  if (partition instanceof MultiPartition)
    return partition.dimensions.map((d) => new PartitionColumn(d.column, d.partition, spec(d.column)));
  const name = context.partitionColumn();
  return [new PartitionColumn(name, partition, spec(name))];
}

/**
 * The columns of a partition's file: the context's schema, or the one inferred from the rows,
 * plus any field a row holds that the schema does not declare, so nothing written is silently
 * lost; less each partition column the path gives back exactly (each dimension's, of a multi
 * partition).
 */
export function fileFields(context: IOContext, partition: Partition | null, rows: readonly Row[]): FieldSpec[] {
  const schema = context.schema;
  const inferred = inferFieldSpecs(rows);
  let fields = inferred;
  if (schema) {
    const declared = new Set(schema.map((spec) => spec.name));
    fields = [...schema, ...inferred.filter((spec) => !declared.has(spec.name))];
  }
  for (const column of partition ? partitionColumnsOf(context, partition) : []) {
    if (column.droppable(rows)) fields = fields.filter((spec) => spec.name !== column.name);
  }
  return fields;
}
