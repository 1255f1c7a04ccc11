import { SchemaError } from "../../../errors.js";

// Tables made before partition columns and the ledger had a binary NO PAD collation compare
// text with the database's default (utf8mb4_general_ci, or whatever a user chose), under which
// `eu`/`EU`, `café`/`cafe` and `x`/`x ` are one value. A write that finds such a column converts
// it in place when that is known to be right, and refuses otherwise:
//
// - A collation never changed a stored value, only which stored values a statement matched: an
//   older write of a partition deleted the rows of every partition its collation merged with,
//   and (for case and accents; the ledger's JSON entries keep trailing spaces apart) their
//   ledger entries, then inserted its own. So when no two values stored for the table (in its
//   rows, or as its partitions in the ledger) are one under the old collation, every partition
//   still stored holds what its own last write inserted, and one an older write wiped out is
//   absent from rows and ledger alike: missing, which `--missing` writes again. Converting is
//   then exact.
// - When two stored values are one under the old collation, what they hold cannot be told from
//   the table: `x` recorded as written with no row left may have been emptied by a write of
//   `x `. Converting would report it as written and empty forever; the write refuses instead,
//   naming the values and the statement that converts the column, after which the user writes
//   those partitions again.
// - The ledger alone is always converted: its entries are exact JSON, and which of them survive
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

/** A catalog name that may appear in SQL text unquoted (charsets and collations are words). */
function word(name: string | null, what: string): string {
  if (name === null || !/^\w+$/.test(name))
    throw new SchemaError(`MySQL: the catalog gave ${what} ${JSON.stringify(name)}; expected a name of letters, digits and underscores`);
  return name;
}

/** The statement converting a column to `collation`, its type and nullability restated. */
export function convertStatement(qualified: string, column: string, catalog: CatalogColumn, collation: string): string {
  if (!/^[a-z]+(\(\d+\))?$/i.test(catalog.type))
    throw new SchemaError(`MySQL: the catalog gave the text type ${JSON.stringify(catalog.type)}; expected a type such as varchar(255)`);
  return `ALTER TABLE ${qualified} MODIFY COLUMN ${column} ${catalog.type} CHARACTER SET utf8mb4 COLLATE ${word(collation, "the collation")} ${catalog.nullable ? "NULL" : "NOT NULL"}`;
}

/**
 * The query finding values stored for a table that its column's collation makes one: the
 * column's values, and its partitions in the ledger (when `ledger` is given; the table's name,
 * bound, is compared byte for byte). Each row is one group of such values, as comma-separated
 * hex of their UTF-8 text; at most `limit` groups.
 */
export function collisionQuery(
  qualified: string,
  column: string,
  catalog: CatalogColumn,
  ledger: { qualified: string; entry: string } | null,
  limit = 3,
): string {
  const text = (expression: string) =>
    `CONVERT(${expression} USING ${word(catalog.charset, "the character set")}) COLLATE ${word(catalog.collation, "the collation")}`;
  const part = (i: number) => `CASE WHEN JSON_VALID(${ledger?.entry}) THEN JSON_UNQUOTE(JSON_EXTRACT(${ledger?.entry}, '$[${i}]')) END`;
  const fromLedger = ledger
    ? ` UNION ALL SELECT ${text(part(1))} FROM ${ledger.qualified} WHERE CAST(${part(0)} AS BINARY) = CAST(? AS BINARY)`
    : "";
  return (
    `SELECT GROUP_CONCAT(DISTINCT HEX(CONVERT(v USING utf8mb4)) SEPARATOR ',') AS members` +
    ` FROM (SELECT ${text(column)} AS v FROM ${qualified} WHERE ${column} IS NOT NULL${fromLedger}) AS stored` +
    ` GROUP BY v HAVING COUNT(DISTINCT CAST(v AS BINARY)) > 1 LIMIT ${limit}`
  );
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
