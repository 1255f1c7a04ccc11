/**
 * The binary NO PAD collations, the first the server has wins: MariaDB (10.2+) names it
 * utf8mb4_nopad_bin, MySQL (8.0.17+) utf8mb4_0900_bin. Only these compare every distinct string
 * as distinct: the default `_ci` collations make `eu` and `EU`, `café` and `cafe` one value,
 * and every PAD SPACE collation (utf8mb4_bin too) makes `x` and `x ` one.
 */
export const EXACT_COLLATIONS = ["utf8mb4_nopad_bin", "utf8mb4_0900_bin"] as const;

/** The isolation level of a write transaction. */
export type WriteIsolation = "READ COMMITTED" | "REPEATABLE READ";

/** What the destination needs to know of its server. */
export interface ServerFacts {
  /** `VERSION()`, for messages. */
  readonly version: string;
  /** The connection's default database: the dataset of a table given none. */
  readonly database: string | null;
  /** The collation of text that a WHERE compares (partition columns, the partition table); null when the server has none. */
  readonly exactCollation: string | null;
  /** The isolation level writes run at. */
  readonly writeIsolation: WriteIsolation;
}

/** ServerFacts from the row SERVER_QUERY (mysql-statements.ts) returns. */
export function serverFacts(row: Readonly<Record<string, unknown>>): ServerFacts {
  const available = String(row["collations"] ?? "").split(",");
  const logBin = String(row["logBin"] ?? "0");
  return {
    version: String(row["version"] ?? "unknown"),
    database: row["db"] === null || row["db"] === undefined ? null : String(row["db"]),
    exactCollation: EXACT_COLLATIONS.find((name) => available.includes(name)) ?? null,
    // READ COMMITTED takes no gap locks, so writers of neighbouring partitions never wait on
    // each other. A server logging statements (binlog_format STATEMENT) refuses InnoDB writes
    // at that level: there writes stay at REPEATABLE READ, and deadlocks are retried.
    writeIsolation:
      (logBin === "1" || logBin === "ON") && String(row["binlogFormat"]).toUpperCase() === "STATEMENT"
        ? "REPEATABLE READ"
        : "READ COMMITTED",
  };
}
