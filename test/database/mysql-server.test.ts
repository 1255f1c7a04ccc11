// What MySQLDestination makes of its server: the collation of exact text (partition columns,
// the ledger) and the isolation level of writes, from one question per pool; the locks a write
// takes; the statements that convert an older table's column.
import { tracingChannel } from "node:diagnostics_channel";
import { describe, expect, it } from "vitest";
import { IOContext } from "../../src/destination/index.js";
import { collisionGroups, wantedCollation } from "../../src/destination/database/mysql/exact-text.js";
import { mysqlDialect } from "../../src/destination/database/mysql/mysql-dialect.js";
import { serverFacts } from "../../src/destination/database/mysql/mysql-server.js";
import { convertStatement, SERVER_QUERY } from "../../src/destination/database/mysql/mysql-statements.js";
import { partitionLocks } from "../../src/destination/database/mysql/write-locks.js";
import { ConfigError, SchemaError } from "../../src/errors.js";
import { ListPartition, ListPartitionConfig, TimePartition, TimePartitionConfig } from "../../src/partitioning/index.js";
import { isolatedMySQL, mysqlAvailable } from "./servers.js";

describe("serverFacts", () => {
  const row = (overrides: Record<string, unknown>) => ({
    version: "10.11.6-MariaDB",
    db: "test",
    logBin: 0,
    binlogFormat: "MIXED",
    collations: "utf8mb4_nopad_bin",
    ...overrides,
  });

  it("takes MariaDB's utf8mb4_nopad_bin and MySQL 8's utf8mb4_0900_bin; none on an older server", () => {
    expect(serverFacts(row({})).exactCollation).toBe("utf8mb4_nopad_bin");
    expect(serverFacts(row({ version: "8.0.36", collations: "utf8mb4_0900_bin" })).exactCollation).toBe("utf8mb4_0900_bin");
    expect(serverFacts(row({ version: "5.7.44", collations: null })).exactCollation).toBeNull();
  });

  it("writes at READ COMMITTED, except where the binary log is statement-based (which refuses it)", () => {
    expect(serverFacts(row({})).writeIsolation).toBe("READ COMMITTED");
    expect(serverFacts(row({ logBin: 1, binlogFormat: "ROW" })).writeIsolation).toBe("READ COMMITTED");
    expect(serverFacts(row({ logBin: 0, binlogFormat: "STATEMENT" })).writeIsolation).toBe("READ COMMITTED");
    expect(serverFacts(row({ logBin: 1, binlogFormat: "STATEMENT" })).writeIsolation).toBe("REPEATABLE READ");
  });

  it("the database is the connection's default, or null", () => {
    expect(serverFacts(row({})).database).toBe("test");
    expect(serverFacts(row({ db: null })).database).toBeNull();
  });
});

describe("the MySQL dialect's exact text", () => {
  it("exact text (a list partition column, the ledger's entry) takes the binary NO PAD collation; other text keeps the default", () => {
    const dialect = mysqlDialect("utf8mb4_nopad_bin", "10.11");
    expect(dialect.columnType("string", true, true)).toBe("VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin");
    expect(dialect.columnType("string", false, true)).toBe("TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin");
    expect(dialect.columnType("string", true, false)).toBe("VARCHAR(255) CHARACTER SET utf8mb4");
    expect(dialect.columnType("string", false, false)).toBe("TEXT CHARACTER SET utf8mb4");
    expect(dialect.columnType("zoned", true, false)).toBe("VARCHAR(64) CHARACTER SET utf8mb4");
    expect(dialect.columnType("date", true, true)).toBe("DATE");
  });

  it("a server without one refuses exact text with a ConfigError naming the server and what is needed", () => {
    const dialect = mysqlDialect(null, "5.7.44");
    expect(dialect.columnType("string", false, false)).toBe("TEXT CHARACTER SET utf8mb4");
    expect(() => dialect.columnType("string", true, true)).toThrow(ConfigError);
    expect(() => dialect.columnType("string", true, true)).toThrow(
      /MySQL server 5\.7\.44 has no binary NO PAD collation .*expected MariaDB 10\.2 or later, or MySQL 8\.0\.17 or later/,
    );
  });
});

describe("partition locks", () => {
  it("one per exact key, sorted, names at most 64 characters; a whole-table write has one of its own", () => {
    const locks = partitionLocks("db", "orders", ["x", "x ", "eu", "EU", "eu"]);
    expect(locks.map((lock) => lock.partition).sort()).toEqual(["EU", "eu", "x", "x "]);
    expect(locks.map((lock) => lock.name)).toEqual([...locks.map((lock) => lock.name)].sort());
    for (const lock of locks) expect(lock.name.length).toBeLessThanOrEqual(64);
    expect(partitionLocks("db", "Orders", ["eu"])[0]!.name).not.toBe(partitionLocks("db", "orders", ["eu"])[0]!.name);
    expect(partitionLocks("db", "orders", null)).toEqual([{ name: expect.stringMatching(/^interloper:[0-9a-f]{40}$/), partition: null }]);
  });
});

describe("converting an older table's column", () => {
  const catalog = { type: "varchar(255)", charset: "utf8mb4", collation: "utf8mb4_general_ci", nullable: true };

  it("restates the type and nullability, with the wanted collation", () => {
    expect(wantedCollation("VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin")).toBe("utf8mb4_nopad_bin");
    expect(wantedCollation("TEXT CHARACTER SET utf8mb4")).toBeNull();
    expect(convertStatement("`d`.`t`", "`c`", catalog, "utf8mb4_nopad_bin")).toBe(
      "ALTER TABLE `d`.`t` MODIFY COLUMN `c` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL",
    );
    expect(convertStatement("`d`.`t`", "`c`", { ...catalog, type: "text", nullable: false }, "utf8mb4_0900_bin")).toBe(
      "ALTER TABLE `d`.`t` MODIFY COLUMN `c` text CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_bin NOT NULL",
    );
    expect(() => convertStatement("`d`.`t`", "`c`", { ...catalog, type: "varchar(255); DROP" }, "utf8mb4_nopad_bin")).toThrow(SchemaError);
  });

  it("reads the colliding values back from their hex", () => {
    const hex = (text: string) => Buffer.from(text, "utf8").toString("hex").toUpperCase();
    expect(collisionGroups([{ members: `${hex("x")},${hex("x ")}` }, { members: `${hex("café")},${hex("CAFE")}` }])).toEqual([
      ["x", "x "],
      ["café", "CAFE"],
    ]);
  });
});

describe.skipIf(!(await mysqlAvailable()))("MySQLDestination and its server (MariaDB)", () => {
  it("asks the server once per pool, however many writes", async () => {
    const h = isolatedMySQL();
    const regions = new ListPartitionConfig({ column: "region", values: ["eu", "EU", "us"] });
    const asked: string[] = [];
    const subscriber = { start: (message: unknown) => void asked.push(String((message as { query: string }).query)) };
    const channels = [tracingChannel("mysql2:query"), tracingChannel("mysql2:execute")];
    for (const channel of channels) channel.subscribe(subscriber as never);
    try {
      for (const value of ["eu", "EU", "us"]) {
        const partition = new ListPartition(value, regions);
        const context = new IOContext({
          asset: { key: "r", table: "r", dataset: "d", partitioning: regions },
          window: partition,
          schema: [{ name: "region", type: "string", nullable: false }],
        });
        await h.destination.writePartition(context, partition, [{ region: value }]);
      }
      expect(asked.filter((sql) => sql === SERVER_QUERY)).toHaveLength(1);
    } finally {
      for (const channel of channels) channel.unsubscribe(subscriber as never);
      await h.cleanup();
    }
  });

  it("only text compared with = takes the exact collation: a list partition column, not a time partition's text", async () => {
    const h = isolatedMySQL();
    const run = (sql: string, params: unknown[]) =>
      (h.destination as unknown as { run(s: string, p: unknown[]): Promise<Record<string, unknown>[]> }).run(sql, params);
    const daily = new TimePartitionConfig({ column: "day" });
    const day = TimePartition.fromKey("2024-01-02");
    try {
      const context = new IOContext({
        asset: { key: "t", table: "t", dataset: "d", partitioning: daily },
        window: day,
        schema: [{ name: "day", type: "string", nullable: false }],
      });
      await h.destination.writePartition(context, day, [{ day: "2024-01-02T10:00:00Z" }]);
      const [column] = await run(
        "SELECT COLLATION_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 't' AND COLUMN_NAME = 'day'",
        [h.iso.rename("d")],
      );
      expect(column?.["c"]).not.toMatch(/_bin$/);
      expect(await h.destination.partitionRowCounts(context)).toEqual({ "2024-01-02": 1 });
    } finally {
      await h.cleanup();
    }
  });
});
