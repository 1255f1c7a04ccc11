// DuckDB, an external reader, opens the hive folders the local backend writes and sees the
// asset's rows and types, partition column included, and that column only once: from the path.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalObjectStoreDestination } from "../../src/destination/index.js";
import { inferFieldSpecs } from "../../src/schema/index.js";
import { makeTempDir } from "../contract/temp-dir.js";
import { useDuckDB } from "../support/duckdb.js";
import { ctx, days, orders, orderSchema } from "./helpers.js";

const duckdb = useDuckDB();
let dir: { path: string; remove(): Promise<void> };

beforeEach(async () => {
  dir = await makeTempDir("interloper-duckdb-");
});
afterEach(async () => {
  await dir.remove();
});

function rows(): Record<string, unknown>[] {
  return [
    { date: "2026-01-01", id: 1, amount: 9.5, paid: true, note: "first", at: new Date(Date.UTC(2026, 0, 1, 8)), tags: ["a"] },
    { date: "2026-01-01", id: 2, amount: null, paid: false, note: null, at: null, tags: null },
    {
      date: "2026-01-02",
      id: 9007199254740993n,
      amount: -1.25,
      paid: null,
      note: 'ünï, "q"',
      at: new Date(Date.UTC(1969, 11, 31, 23, 59)),
      tags: { k: 1 },
    },
    { date: "2026-01-03", id: 4, amount: 0.5, paid: true, note: "", at: new Date(Date.UTC(2026, 0, 3)), tags: [] },
  ];
}

/** What DuckDB gives back, as JSON-friendly values: one array per row, in id order, plus the column types. */
async function query(sql: string): Promise<{ types: Record<string, string>; rows: unknown[][] }> {
  const reader = await duckdb().runAndReadAll(sql);
  const names = reader.columnNames();
  const types = Object.fromEntries(names.map((name, i) => [name, reader.columnTypes()[i]!.toString()]));
  return { types, rows: reader.getRowsJson() as unknown[][] };
}

async function writeAll(format: "parquet" | "jsonl" | "csv"): Promise<string> {
  const dest = new LocalObjectStoreDestination({ basePath: dir.path, format });
  await dest.write(ctx(orders, days("2026-01-01", "2026-01-03")), rows());
  return `${dir.path}/shop/orders/*/data.${format}`.replaceAll("\\", "/");
}

const COLUMNS = `"date", "id", "amount", "paid", "note", "at", "tags"`;

describe("DuckDB reads the hive folders", () => {
  it("Parquet: same rows and types, the partition column from the path", async () => {
    const glob = await writeAll("parquet");
    const source = `read_parquet('${glob}', hive_partitioning = true, hive_types = {'date': DATE})`;
    const { types } = await query(`SELECT ${COLUMNS} FROM ${source} LIMIT 0`);
    expect(types).toEqual({
      date: "DATE",
      id: "BIGINT",
      amount: "DOUBLE",
      paid: "BOOLEAN",
      note: "VARCHAR",
      at: "TIMESTAMP WITH TIME ZONE",
      // DuckDB reads Parquet's JSON columns as text; `tags::JSON` makes them JSON values.
      tags: "VARCHAR",
    });
    // Instants as epoch milliseconds: the client renders TIMESTAMPTZ in the process's zone.
    const result = await query(`SELECT "date", "id", "amount", "paid", "note", epoch_ms("at") AS "at", "tags" FROM ${source} ORDER BY id`);
    expect(result.rows).toEqual([
      ["2026-01-01", "1", 9.5, true, "first", String(Date.UTC(2026, 0, 1, 8)), '["a"]'],
      ["2026-01-01", "2", null, false, null, null, null],
      ["2026-01-03", "4", 0.5, true, "", String(Date.UTC(2026, 0, 3)), "[]"],
      ["2026-01-02", "9007199254740993", -1.25, null, 'ünï, "q"', String(Date.UTC(1969, 11, 31, 23, 59)), '{"k":1}'],
    ]);
  });

  it("Parquet: the partition column is typed DATE by hive type detection alone", async () => {
    const glob = await writeAll("parquet");
    const result = await query(
      `SELECT date, count(*) AS n FROM read_parquet('${glob}', hive_partitioning = true) GROUP BY date ORDER BY date`,
    );
    expect(result.types["date"]).toBe("DATE");
    expect(result.rows).toEqual([
      ["2026-01-01", "2"],
      ["2026-01-02", "1"],
      ["2026-01-03", "1"],
    ]);
  });

  it("JSONL: same rows, numbers and booleans typed, the partition column from the path", async () => {
    const glob = await writeAll("jsonl");
    const result = await query(`SELECT ${COLUMNS} FROM read_json_auto('${glob}', hive_partitioning = true) ORDER BY id`);
    expect(result.types).toMatchObject({ date: "DATE", id: "BIGINT", amount: "DOUBLE", paid: "BOOLEAN", note: "VARCHAR" });
    expect(result.rows.map((row) => row.slice(0, 5))).toEqual([
      ["2026-01-01", "1", 9.5, true, "first"],
      ["2026-01-01", "2", null, false, null],
      ["2026-01-03", "4", 0.5, true, ""],
      ["2026-01-02", "9007199254740993", -1.25, null, 'ünï, "q"'],
    ]);
  });

  it("CSV: same rows, typed by DuckDB's sniffer, the partition column from the path", async () => {
    const glob = await writeAll("csv");
    const result = await query(`SELECT date, id, amount, paid, note FROM read_csv_auto('${glob}', hive_partitioning = true) ORDER BY id`);
    expect(result.types).toMatchObject({ date: "DATE", id: "BIGINT", amount: "DOUBLE", paid: "BOOLEAN", note: "VARCHAR" });
    // DuckDB reads an empty field as null, and by default (allow_quoted_nulls) the empty quoted
    // one that holds "" too; interloper reads that one back as "".
    expect(result.rows).toEqual([
      ["2026-01-01", "1", 9.5, true, "first"],
      ["2026-01-01", "2", null, false, null],
      ["2026-01-03", "4", 0.5, true, null],
      ["2026-01-02", "9007199254740993", -1.25, null, 'ünï, "q"'],
    ]);
  });

  it.each(["parquet", "jsonl", "csv"] as const)(
    "%s: sees the partition column once, from the path, for an asset with no declared schema",
    async (format) => {
      const dest = new LocalObjectStoreDestination({ basePath: dir.path, format });
      const plain = [
        { date: "2026-01-01", id: 1 },
        { date: "2026-01-02", id: 2 },
      ];
      // The schema conform infers for rows without a declared one: the dates typed as strings.
      await dest.write(ctx(orders, days("2026-01-01", "2026-01-02"), inferFieldSpecs(plain)), plain);
      const glob = `${dir.path}/shop/orders/*/data.${format}`.replaceAll("\\", "/");
      const reader = { parquet: "read_parquet", jsonl: "read_json_auto", csv: "read_csv_auto" }[format];
      const inFile = await query(`SELECT * FROM ${reader}('${glob}', hive_partitioning = false) LIMIT 0`);
      expect(Object.keys(inFile.types)).toEqual(["id"]);
      const result = await query(`SELECT * FROM ${reader}('${glob}', hive_partitioning = true) ORDER BY id`);
      expect(Object.keys(result.types).sort()).toEqual(["date", "id"]);
      expect(result.types["date"]).toBe("DATE");
      expect(result.rows.map((row) => row.map(String))).toEqual(
        ["2026-01-01", "2026-01-02"].map((day, i) => (Object.keys(result.types)[0] === "id" ? [String(i + 1), day] : [day, String(i + 1)])),
      );
    },
  );

  it("reads back through interloper what DuckDB reads", async () => {
    await writeAll("parquet");
    const dest = new LocalObjectStoreDestination({ basePath: dir.path });
    expect(await dest.read(ctx(orders, days("2026-01-01", "2026-01-03"), orderSchema))).toEqual([
      rows()[0],
      rows()[1],
      rows()[2],
      rows()[3],
    ]);
  });
});
