import { SchemaError } from "../../../errors.js";
import type { CatalogColumn } from "./exact-text.js";
import { EXACT_COLLATIONS, type WriteIsolation } from "./mysql-server.js";

// MySQL's statements beyond the SqlDialect's: what its driver sends to learn its server, to
// open units of work and to lock partitions, and what exact-text.ts runs to align a collation.

/** What a destination asks a server once per pool (one statement, no value from a user). */
export const SERVER_QUERY =
  "SELECT VERSION() AS version, DATABASE() AS db, @@log_bin AS logBin, @@SESSION.binlog_format AS binlogFormat, " +
  `(SELECT GROUP_CONCAT(COLLATION_NAME) FROM information_schema.COLLATIONS WHERE COLLATION_NAME IN (${EXACT_COLLATIONS.map((c) => `'${c}'`).join(", ")})) AS collations`;

/** Sets the isolation level of the next transaction only, whatever the server's default. */
export function isolationStatement(level: WriteIsolation): string {
  return `SET TRANSACTION ISOLATION LEVEL ${level}`;
}

/** Starts a read's snapshot (after `isolationStatement("REPEATABLE READ")`). */
export const START_READ = "START TRANSACTION READ ONLY";

/** Takes `count` user-level locks, each a bound name, each waited for up to lock_wait_timeout; 1 in `l0`, `l1`... when taken. */
export function getLocksQuery(count: number): string {
  return `SELECT ${Array.from({ length: count }, (_, i) => `GET_LOCK(?, @@lock_wait_timeout) AS l${i}`).join(", ")}`;
}

/** Releases `count` user-level locks, each a bound name. */
export function releaseLocksQuery(count: number): string {
  return `SELECT ${Array.from({ length: count }, (_, i) => `RELEASE_LOCK(?) AS r${i}`).join(", ")}`;
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
 * column's values, and its partitions in the partition table (when `partitions` is given; the table's name,
 * bound, is compared byte for byte). Each row is one group of such values, as comma-separated
 * hex of their UTF-8 text; at most `limit` groups.
 */
export function collisionQuery(
  qualified: string,
  column: string,
  catalog: CatalogColumn,
  partitions: { qualified: string; entry: string } | null,
  limit = 3,
): string {
  const text = (expression: string) =>
    `CONVERT(${expression} USING ${word(catalog.charset, "the character set")}) COLLATE ${word(catalog.collation, "the collation")}`;
  const part = (i: number) =>
    `CASE WHEN JSON_VALID(${partitions?.entry}) THEN JSON_UNQUOTE(JSON_EXTRACT(${partitions?.entry}, '$[${i}]')) END`;
  const fromPartitionTable = partitions
    ? ` UNION ALL SELECT ${text(part(1))} FROM ${partitions.qualified} WHERE CAST(${part(0)} AS BINARY) = CAST(? AS BINARY)`
    : "";
  return (
    `SELECT GROUP_CONCAT(DISTINCT HEX(CONVERT(v USING utf8mb4)) SEPARATOR ',') AS members` +
    ` FROM (SELECT ${text(column)} AS v FROM ${qualified} WHERE ${column} IS NOT NULL${fromPartitionTable}) AS stored` +
    ` GROUP BY v HAVING COUNT(DISTINCT CAST(v AS BINARY)) > 1 LIMIT ${limit}`
  );
}
