import { ListPartition, type Partition, TimeGranularity, TimePartition } from "../../partitioning/index.js";
import { type Row, setOwn } from "../../representation/index.js";
import { type FieldSpec, formatIsoDate, reconcileRows } from "../../schema/index.js";

/**
 * The partition column of one partition: the value a read gives back for it, and whether the
 * rows written can leave it out of the file. It lives in the path (`{column}={key}`), so the
 * file drops it whenever the partition alone gives every row's value back exactly; a monthly
 * partition of daily dates, or an hourly one of instants, keeps the column in the file, since
 * the partition could only restore the period's start.
 */
export class PartitionColumn {
  /** The column's value for every row of the partition, typed as the field says. */
  readonly value: unknown;
  private readonly determined: boolean;

  constructor(
    readonly name: string,
    private readonly partition: Partition,
    private readonly spec: FieldSpec | undefined,
  ) {
    this.value = spec ? restore(storedText(partition, spec), spec) : partition.key;
    // With a field spec the decision follows the partitioning, not the data, so every file of
    // an asset has the same columns; without one there is no shape to keep and the data decides.
    this.determined =
      spec === undefined ||
      partition instanceof ListPartition ||
      (partition instanceof TimePartition && partition.granularity === TimeGranularity.DAY && spec.type === "date");
  }

  /** Whether the file of `rows` can leave the column out: the partition restores each value. */
  droppable(rows: readonly Readonly<Row>[]): boolean {
    if (!this.determined) return false;
    for (const row of rows) if (!sameValue(row[this.name], this.value)) return false;
    return true;
  }

  /**
   * The rows with the column back, at its place in the schema (last without one): the
   * partition's value where the file left it out, the file's own value restored otherwise.
   */
  attach(rows: readonly Row[], schema: readonly FieldSpec[] | null): Row[] {
    const position = schema ? schema.findIndex((spec) => spec.name === this.name) : -1;
    return rows.map((row) => {
      const own = Object.hasOwn(row, this.name);
      const value = own ? (this.spec ? restore(row[this.name], this.spec) : row[this.name]) : this.value;
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

/** The stored form a partition gives its column: "YYYY-MM-DD", an ISO instant, or the key. */
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
