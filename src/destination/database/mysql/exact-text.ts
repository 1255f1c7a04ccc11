import { SchemaError } from "../../../errors.js";
import type { Row } from "../../../representation/index.js";
import { PARTITION_ENTRY, PARTITION_TABLE } from "../partition-table.js";
import type { SqlDialect } from "../sql-dialect.js";
import { collisionQuery, convertStatement } from "./mysql-statements.js";

// Tables made before partition columns and the partition table had a binary NO PAD collation compare
// text with the database's default (utf8mb4_general_ci, or whatever a user chose), under which
// `eu`/`EU`, `café`/`cafe` and `x`/`x ` are one value. A write that finds such a column converts
// it in place when that is known to be right, and refuses otherwise:
//
// - A collation never changed a stored value, only which stored values a statement matched: an
//   older write of a partition deleted the rows of every partition its collation merged with,
//   and (for case and accents; the partition table's JSON entries keep trailing spaces apart) their
//   partition table entries, then inserted its own. So when no two values stored for the table (in its
//   rows, or as its partitions in the partition table) are one under the old collation, every partition
//   still stored holds what its own last write inserted, and one an older write wiped out is
//   absent from rows and partition table alike: missing, which `--missing` writes again. Converting is
//   then exact.
// - When two stored values are one under the old collation, what they hold cannot be told from
//   the table: `x` recorded as written with no row left may have been emptied by a write of
//   `x `. Converting would report it as written and empty forever; the write refuses instead,
//   naming the values and the statement that converts the column, after which the user writes
//   those partitions again.
// - The partition table alone is always converted: its entries are exact JSON, and which of them survive
//   is the question the table's own check answers.

/** What the catalog says of a column, beyond its type. */
export interface CatalogColumn {
  /** COLUMN_TYPE, as it would be restated (`varchar(255)`, `text`). */
  readonly type: string;
  readonly charset: string | null;
  readonly collation: string | null;
  readonly nullable: boolean;
}

/** The collation a column definition asks for (`... COLLATE utf8mb4_nopad_bin`), or null. */
export function wantedCollation(definition: string): string | null {
  return /\bCOLLATE (\w+)$/.exec(definition)?.[1] ?? null;
}

/** The values of each group a collisionQuery returned. */
export function collisionGroups(rows: readonly Record<string, unknown>[]): string[][] {
  return rows.map((row) =>
    String(row["members"] ?? "")
      .split(",")
      .filter((hex) => hex.length > 0 && hex.length % 2 === 0)
      .map((hex) => Buffer.from(hex, "hex").toString("utf8")),
  );
}

/** The refusal of a write to a table whose old collation made stored values one. */
export function collisionError(
  where: string,
  column: string,
  catalog: CatalogColumn,
  groups: readonly string[][],
  convert: string,
): SchemaError {
  const listed = groups.map((group) => group.map((value) => JSON.stringify(value)).join(" and ")).join("; ");
  return new SchemaError(
    `MySQL: column ${JSON.stringify(column)} of table ${where} compares text with collation ${catalog.collation}, under which the stored partitions ${listed} are one value, so a write of one may have replaced the rows of another; expected every distinct value to be its own partition: convert the column (${convert}), then write those partitions again`,
  );
}

/** What `alignCollation` works through: the driver's statements and what its catalog read last said. */
export interface CatalogAccess {
  run(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  readColumns(table: string, dataset: string | null): Promise<Map<string, string> | null>;
  /** What the last read of the table's columns said of this one, beyond its type. */
  catalogColumn(table: string, dataset: string | null, column: string): CatalogColumn | undefined;
}

/**
 * Converts exact text that an older version created with another collation than `definition`
 * asks for, after checking that nothing stored depends on the old one (see the top of this
 * file for why this is safe, and when the write refuses instead); true when it converted.
 */
export async function alignCollation(
  access: CatalogAccess,
  dialect: SqlDialect,
  [table, dataset]: readonly [string, string | null],
  field: string,
  definition: string,
): Promise<boolean> {
  const collation = wantedCollation(definition);
  const catalog = access.catalogColumn(table, dataset, field);
  if (collation === null || !catalog || catalog.collation === null || catalog.collation === collation) return false;
  const qualified = dialect.table(table, dataset);
  const column = dialect.quote(field);
  const convert = convertStatement(qualified, column, catalog, collation);
  if (table !== PARTITION_TABLE) {
    const partitions = (await access.readColumns(PARTITION_TABLE, dataset))?.has(PARTITION_ENTRY)
      ? { qualified: dialect.table(PARTITION_TABLE, dataset), entry: dialect.quote(PARTITION_ENTRY) }
      : null;
    const groups = collisionGroups(await access.run(collisionQuery(qualified, column, catalog, partitions), partitions ? [table] : []));
    if (groups.length > 0) throw collisionError(dataset === null ? table : `${dataset}.${table}`, field, catalog, groups, convert);
  }
  await access.run(convert);
  return true;
}
