// MySQLDestination's sessions: every connection it uses talks utf8mb4 and runs a strict
// sql_mode whatever the server's defaults, and the tables it creates hold utf8mb4 text, so a
// value a column cannot hold is refused rather than truncated, clamped or mangled. Nothing here
// changes a global setting: a non-strict latin1 session is made by hand, and a MyISAM table shows
// what the server's own STRICT_TRANS_TABLES lets through.
import mysql from "mysql2/promise";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DatabaseError } from "../../src/destination/database/index.js";
import { SESSION_SETUP } from "../../src/destination/database/mysql/mysql-dialect.js";
import { IOContext, type AssetRef } from "../../src/destination/index.js";
import { TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import type { FieldSpec } from "../../src/schema/index.js";
import { isolatedMySQL, MYSQL_CONNECTION, mysqlAvailable } from "./servers.js";

const daily = new TimePartitionConfig({ column: "date", allowWindow: true });
const notes: AssetRef = { key: "shop.notes", table: "notes", dataset: "shop", partitioning: daily };
const schema: FieldSpec[] = [
  { name: "date", type: "date", nullable: false },
  { name: "note", type: "string", nullable: true },
  { name: "n", type: "integer", nullable: true },
];
const jan1 = new TimePartitionWindow("2026-01-01", "2026-01-01");
const ctx = () => new IOContext({ asset: notes, window: jan1, schema, metadata: { runId: "r" } });
const modes = (text: unknown) => new Set(String(text).split(",").filter(Boolean));
const quote = (name: string) => `\`${name.replaceAll("`", "``")}\``;

describe.skipIf(!(await mysqlAvailable()))("MySQLDestination sessions (MariaDB)", () => {
  let raw: mysql.Connection;
  let h: ReturnType<typeof isolatedMySQL>;
  /** The destination's own statement runner, on the connection it would use. */
  const run = (sql: string) => (h.destination as unknown as { run(sql: string): Promise<Array<Record<string, unknown>>> }).run(sql);

  beforeEach(async () => {
    raw = await mysql.createConnection({ ...MYSQL_CONNECTION });
    h = isolatedMySQL();
  });
  afterEach(async () => {
    await raw.end();
    await h.cleanup();
  });

  it("the setup statement makes a non-strict latin1 session strict and utf8mb4, keeping the server's modes that change nothing stored", async () => {
    await raw.query(
      "SET NAMES latin1, SESSION sql_mode = 'EMPTY_STRING_IS_NULL,ORACLE,NO_BACKSLASH_ESCAPES,ANSI_QUOTES,ALLOW_INVALID_DATES,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO'",
    );
    const [[before]] = (await raw.query("SELECT @@SESSION.sql_mode AS mode, @@character_set_client AS client")) as unknown as [
      Array<Record<string, unknown>>,
    ];
    expect(before!["client"]).toBe("latin1");
    expect(modes(before!["mode"]).has("STRICT_ALL_TABLES")).toBe(false);

    await raw.query(SESSION_SETUP);
    const [[after]] = (await raw.query(
      "SELECT @@SESSION.sql_mode AS mode, @@character_set_client AS client, @@character_set_connection AS connection, @@character_set_results AS results",
    )) as unknown as [Array<Record<string, unknown>>];
    const now = modes(after!["mode"]);
    for (const mode of ["STRICT_ALL_TABLES", "NO_ENGINE_SUBSTITUTION", "NO_ZERO_DATE", "ERROR_FOR_DIVISION_BY_ZERO"])
      expect(now.has(mode), mode).toBe(true);
    for (const mode of ["EMPTY_STRING_IS_NULL", "ORACLE", "NO_BACKSLASH_ESCAPES", "ANSI_QUOTES", "ALLOW_INVALID_DATES"])
      expect(now.has(mode), mode).toBe(false);
    expect([after!["client"], after!["connection"], after!["results"]]).toEqual(["utf8mb4", "utf8mb4", "utf8mb4"]);

    // From no mode at all, too.
    await raw.query("SET SESSION sql_mode = ''");
    await raw.query(SESSION_SETUP);
    const [[empty]] = (await raw.query("SELECT @@SESSION.sql_mode AS mode")) as unknown as [Array<Record<string, unknown>>];
    expect(modes(empty!["mode"])).toEqual(new Set(["STRICT_ALL_TABLES", "NO_ENGINE_SUBSTITUTION"]));
  });

  it("sets up every connection it uses: plain statements, write transactions and read snapshots, several at once", async () => {
    const [[server]] = (await raw.query("SELECT @@GLOBAL.sql_mode AS mode")) as unknown as [Array<Record<string, unknown>>];
    // The server's default lacks STRICT_ALL_TABLES, so finding it proves the setup ran.
    expect(modes(server!["mode"]).has("STRICT_ALL_TABLES")).toBe(false);
    const probe =
      "SELECT CONNECTION_ID() AS id, @@SESSION.sql_mode AS mode, @@character_set_client AS client, @@character_set_results AS results";
    const seen = await Promise.all([
      ...Array.from({ length: 8 }, () => run(probe)),
      h.destination.transaction(() => run(probe)),
      h.destination.snapshot(() => run(probe)),
    ]);
    for (const [row] of seen) {
      expect(modes(row!["mode"]).has("STRICT_ALL_TABLES")).toBe(true);
      expect(modes(row!["mode"]).has("NO_ENGINE_SUBSTITUTION")).toBe(true);
      expect([row!["client"], row!["results"]]).toEqual(["utf8mb4", "utf8mb4"]);
    }
    expect(new Set(seen.map(([row]) => row!["id"])).size).toBeGreaterThan(1);
  });

  it("creates utf8mb4 text columns in a latin1 database, and stores any Unicode in them", async () => {
    const database = h.iso.rename("shop");
    await raw.query(`CREATE DATABASE ${quote(database)} CHARACTER SET latin1`);
    const rows = [{ date: "2026-01-01", note: "🚀 日本 € ß", n: 1 }];
    await h.destination.write(ctx(), rows);
    expect(await h.destination.read(ctx())).toEqual(rows);
    const [columns] = (await raw.query(
      "SELECT COLUMN_NAME AS name, CHARACTER_SET_NAME AS charset FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'notes' AND CHARACTER_SET_NAME IS NOT NULL",
      [database],
    )) as unknown as [Array<Record<string, unknown>>];
    expect(columns).toEqual([{ name: "note", charset: "utf8mb4" }]);
  });

  describe("refuses what a column cannot hold, where the server's own mode would store it changed", () => {
    // A MyISAM table: the server's STRICT_TRANS_TABLES stops a bad value only in the first row
    // of a statement, and stores later ones truncated, clamped or as "?". The table is one a
    // user made, in the shape the destination would have made it, its note latin1.
    let table: string;
    beforeEach(async () => {
      const database = h.iso.rename("shop");
      await raw.query(`CREATE DATABASE ${quote(database)} CHARACTER SET latin1`);
      table = `${quote(database)}.${quote("notes")}`;
      await raw.query(
        `CREATE TABLE ${table} (${quote("_interloper_row")} BIGINT AUTO_INCREMENT PRIMARY KEY, ${quote("date")} DATE, ${quote("note")} TEXT CHARACTER SET latin1, ${quote("n")} BIGINT) ENGINE=MyISAM`,
      );
    });

    const ok = { date: "2026-01-01", note: "fine", n: 1 };
    it.each([
      ["text over TEXT's 65,535 bytes", { date: "2026-01-01", note: "x".repeat(70_000), n: 2 }, /Data too long for column 'note'/],
      ["an integer beyond BIGINT", { date: "2026-01-01", note: "big", n: 2n ** 64n }, /Out of range value for column 'n'/],
      ["text latin1 has no form for", { date: "2026-01-01", note: "日本", n: 3 }, /Incorrect string value: .* for column .*note/],
    ])("%s, in a later row of the insert", async (_label, bad, refused) => {
      // Through a session in the server's own mode, the same insert stores the value changed.
      await raw.query("SET NAMES utf8mb4");
      const [result] = (await raw.query(
        `INSERT INTO ${table} (${quote("date")}, ${quote("note")}, ${quote("n")}) VALUES (?, ?, ?), (?, ?, ?)`,
        [ok.date, ok.note, ok.n, bad.date, bad.note, String(bad.n)],
      )) as unknown as [{ warningStatus: number }];
      expect(result.warningStatus).toBeGreaterThan(0);
      await raw.query(`DELETE FROM ${table}`);

      const error = await h.destination.write(ctx(), [ok, bad]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DatabaseError);
      expect((error as Error).message).toMatch(refused);
      // Nothing stored changed: no row holds the bad value cut short, clamped or mangled.
      const [stored] = (await raw.query(`SELECT ${quote("note")} AS note, CAST(${quote("n")} AS CHAR) AS n FROM ${table}`)) as unknown as [
        Array<Record<string, unknown>>,
      ];
      for (const row of stored) expect([row["note"], row["n"]]).toEqual([ok.note, String(ok.n)]);
    });
  });
});
