// MySQL/MariaDB list partitions whose values differ only in case, accents or trailing spaces are
// distinct partitions. They were once one value to the delete, the count and the ledger (the
// server's default collation, utf8mb4_general_ci): writing 3 rows to each of eu, EU, café, cafe,
// x and "x " one at a time left { EU: 3, cafe: 3, x: 0, "x ": 3 }, and reading x gave the rows
// of "x ". And a table an older version made with that collation is converted on the next write
// when nothing stored depends on it, else the write is refused with the statement to run.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asset } from "../../src/asset/definition.js";
import { IOContext } from "../../src/destination/index.js";
import { MySQLDestination } from "../../src/destination/database/index.js";
import { SchemaError } from "../../src/errors.js";
import { ListPartition, ListPartitionConfig } from "../../src/partitioning/index.js";
import { fieldSpecs } from "../../src/schema/index.js";
import { source } from "../../src/source/source.js";
import { MYSQL_CONNECTION, mysqlAvailable } from "../database/servers.js";

const VALUES = ["eu", "EU", "café", "cafe", "x", "x "] as const;
const SCHEMA = z.object({ region: z.string(), n: z.number().int(), tag: z.string() });
const regions = new ListPartitionConfig({ column: "region", values: [...VALUES] });
const rowsOf = (value: string, count = 3, tag = "first") =>
  Array.from({ length: count }, (_, n) => ({ region: value, n, tag: `${tag}:${value}` }));
const partition = (value: string) => new ListPartition(value, regions);

let available = false;
let admin: MySQLDestination;
const datasets: string[] = [];
beforeAll(async () => {
  available = await mysqlAvailable();
  admin = new MySQLDestination({ connection: MYSQL_CONNECTION });
});
afterAll(async () => {
  for (const dataset of datasets) await sql(`DROP DATABASE IF EXISTS \`${dataset}\``);
  await admin.close();
});

/** Runs a statement of the test's own on the server. */
function sql(statement: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  return (admin as unknown as { run(s: string, p: unknown[]): Promise<Record<string, unknown>[]> }).run(statement, params);
}

function freshDataset(): string {
  const dataset = `il_rel_coll_${randomBytes(4).toString("hex")}`;
  datasets.push(dataset);
  return dataset;
}

function context(dataset: string, table: string, value: string | null): IOContext {
  return new IOContext({
    asset: { key: `rel.${table}`, table, dataset, partitioning: regions },
    window: value === null ? null : partition(value),
    schema: fieldSpecs(SCHEMA),
  });
}

async function collation(dataset: string, table: string, column: string): Promise<unknown> {
  const rows = await sql(
    "SELECT COLLATION_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = ?",
    [dataset, table, column],
  );
  return rows[0]?.["c"];
}

describe("MySQL: list values that differ only in case, accents or trailing spaces", () => {
  it("through the destination: one at a time, each is its own partition; a rewrite of one leaves the others", async () => {
    if (!available) return;
    const dataset = freshDataset();
    const destination = new MySQLDestination({ connection: MYSQL_CONNECTION });
    try {
      for (const value of VALUES) await destination.writePartition(context(dataset, "regions", value), partition(value), rowsOf(value));
      expect(await destination.partitionRowCounts(context(dataset, "regions", null))).toEqual(
        Object.fromEntries(VALUES.map((v) => [v, 3])),
      );
      for (const value of VALUES)
        expect(await destination.readPartition(context(dataset, "regions", value), partition(value)), JSON.stringify(value)).toEqual(
          rowsOf(value),
        );

      await destination.writePartition(context(dataset, "regions", "x"), partition("x"), rowsOf("x", 2, "second"));
      expect(await destination.partitionRowCounts(context(dataset, "regions", null))).toEqual({
        ...Object.fromEntries(VALUES.map((v) => [v, 3])),
        x: 2,
      });
      for (const value of VALUES) {
        expect(await destination.readPartition(context(dataset, "regions", value), partition(value)), JSON.stringify(value)).toEqual(
          value === "x" ? rowsOf("x", 2, "second") : rowsOf(value),
        );
      }
      // The ledger tells written-and-empty from never written, per exact value and per exact table name.
      await destination.writePartition(context(dataset, "Regions", "eu"), partition("eu"), []);
      expect(await destination.readPartition(context(dataset, "Regions", "eu"), partition("eu"))).toEqual([]);
      await destination.writePartition(context(dataset, "regions", "eu"), partition("eu"), rowsOf("eu", 1, "third"));
      expect(await destination.partitionRowCounts(context(dataset, "Regions", null))).toEqual({ eu: 0 });
      expect(await destination.readPartition(context(dataset, "Regions", "eu"), partition("eu"))).toEqual([]);
      expect(await collation(dataset, "regions", "region")).toMatch(/^utf8mb4_(nopad|0900)_bin$/);
      expect(await collation(dataset, "_interloper_partitions", "entry")).toMatch(/^utf8mb4_(nopad|0900)_bin$/);
    } finally {
      await destination.close();
    }
  }, 60_000);

  it("through a list-partitioned asset: one materialize per value, counts and reads exact", async () => {
    if (!available) return;
    const dataset = freshDataset();
    const destination = new MySQLDestination({ connection: MYSQL_CONNECTION });
    let tag = "first";
    const regional = asset({ key: "regional", partitioning: regions, schema: SCHEMA, run: (ctx) => rowsOf(ctx.partition!.key, 3, tag) });
    try {
      const stored = source({ key: "rel", dataset, assets: [regional] })({ destinations: destination }).assets.regional!;
      for (const value of VALUES) await stored.materialize(partition(value));
      expect(await stored.partitionRowCounts()).toEqual(Object.fromEntries(VALUES.map((v) => [v, 3])));
      for (const value of VALUES) expect(await stored.read(partition(value)), JSON.stringify(value)).toEqual(rowsOf(value));
      tag = "second";
      await stored.materialize(partition("EU"));
      for (const value of VALUES)
        expect(await stored.read(partition(value)), JSON.stringify(value)).toEqual(rowsOf(value, 3, value === "EU" ? "second" : "first"));
      expect(await stored.partitionRowCounts()).toEqual(Object.fromEntries(VALUES.map((v) => [v, 3])));
    } finally {
      await destination.close();
    }
  }, 60_000);
});

describe("MySQL: a table an older version made with the server's default collation", () => {
  /** The table and ledger (null: none yet) as an older version created them, with the old default collation. */
  async function oldTables(
    dataset: string,
    rows: ReadonlyArray<readonly [string, number]>,
    ledger: readonly string[] | null,
  ): Promise<void> {
    await sql(`CREATE DATABASE \`${dataset}\` CHARACTER SET utf8mb4`);
    await sql(
      `CREATE TABLE \`${dataset}\`.\`regions\` (\`_interloper_row\` BIGINT AUTO_INCREMENT PRIMARY KEY, \`region\` VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci, \`n\` BIGINT, \`tag\` TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci)`,
    );
    await sql(`CREATE INDEX \`il_idx_old\` ON \`${dataset}\`.\`regions\` (\`region\`)`);
    for (const [value, count] of rows)
      for (const row of rowsOf(value, count, "old"))
        await sql(`INSERT INTO \`${dataset}\`.\`regions\` (region, n, tag) VALUES (?, ?, ?)`, [row.region, row.n, row.tag]);
    if (ledger === null) return;
    await sql(
      `CREATE TABLE \`${dataset}\`.\`_interloper_partitions\` (\`_interloper_row\` BIGINT AUTO_INCREMENT PRIMARY KEY, \`entry\` TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci)`,
    );
    for (const value of ledger)
      await sql(`INSERT INTO \`${dataset}\`.\`_interloper_partitions\` (entry) VALUES (?)`, [JSON.stringify(["regions", value])]);
  }

  it("is converted in place when no two stored values collide: old partitions kept, merged-away ones missing", async () => {
    if (!available) return;
    const dataset = freshDataset();
    // What writing eu then EU then cafe left: EU's write deleted eu's rows and ledger entry.
    await oldTables(
      dataset,
      [
        ["EU", 3],
        ["cafe", 3],
      ],
      ["EU", "cafe"],
    );
    const destination = new MySQLDestination({ connection: MYSQL_CONNECTION });
    try {
      await destination.writePartition(context(dataset, "regions", "eu"), partition("eu"), rowsOf("eu"));
      expect(await collation(dataset, "regions", "region")).toMatch(/^utf8mb4_(nopad|0900)_bin$/);
      expect(await collation(dataset, "_interloper_partitions", "entry")).toMatch(/^utf8mb4_(nopad|0900)_bin$/);
      // Only the converted partition column: other text keeps its collation.
      expect(await collation(dataset, "regions", "tag")).toBe("utf8mb4_general_ci");
      expect(await destination.partitionRowCounts(context(dataset, "regions", null))).toEqual({ eu: 3, EU: 3, cafe: 3 });
      expect(await destination.readPartition(context(dataset, "regions", "EU"), partition("EU"))).toEqual(rowsOf("EU", 3, "old"));
      await destination.writePartition(context(dataset, "regions", "café"), partition("café"), rowsOf("café"));
      expect(await destination.partitionRowCounts(context(dataset, "regions", null))).toEqual({ eu: 3, EU: 3, café: 3, cafe: 3 });
    } finally {
      await destination.close();
    }
  }, 60_000);

  it("is refused, one line naming the values and the statement to run, when stored values collide; nothing is written", async () => {
    if (!available) return;
    const dataset = freshDataset();
    // What writing x then "x " left: "x "'s delete took x's rows; the ledger kept both entries.
    await oldTables(dataset, [["x ", 3]], ["x", "x "]);
    const destination = new MySQLDestination({ connection: MYSQL_CONNECTION });
    try {
      const error = await destination.writePartition(context(dataset, "regions", "eu"), partition("eu"), rowsOf("eu")).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SchemaError);
      const message = (error as Error).message;
      expect(message).not.toContain("\n");
      expect(message).toContain(`"x" and "x "`);
      expect(message).toContain("utf8mb4_general_ci");
      expect(await collation(dataset, "regions", "region")).toBe("utf8mb4_general_ci");
      expect(await sql(`SELECT COUNT(*) AS n FROM \`${dataset}\`.\`regions\` WHERE region = 'eu'`)).toEqual([{ n: "0" }]);

      // The statement the message gives converts the column; the partitions named are then written again.
      const convert = /convert the column \((ALTER TABLE .*)\), then write those partitions again$/.exec(message)?.[1];
      expect(convert).toBeDefined();
      await sql(convert!);
      for (const value of ["x", "x ", "eu"])
        await destination.writePartition(context(dataset, "regions", value), partition(value), rowsOf(value));
      expect(await destination.partitionRowCounts(context(dataset, "regions", null))).toEqual({ eu: 3, x: 3, "x ": 3 });
      expect(await destination.readPartition(context(dataset, "regions", "x"), partition("x"))).toEqual(rowsOf("x"));
    } finally {
      await destination.close();
    }
  }, 60_000);

  it("with no ledger yet: refused when its rows hold values that collide, converted when they do not", async () => {
    if (!available) return;
    const colliding = freshDataset();
    await oldTables(
      colliding,
      [
        ["café", 2],
        ["CAFE", 2],
      ],
      null,
    );
    const clean = freshDataset();
    await oldTables(clean, [["cafe", 2]], null);
    const destination = new MySQLDestination({ connection: MYSQL_CONNECTION });
    try {
      await expect(destination.writePartition(context(colliding, "regions", "eu"), partition("eu"), rowsOf("eu"))).rejects.toThrow(
        /the stored partitions ("café" and "CAFE"|"CAFE" and "café") are one value/,
      );
      expect(await collation(colliding, "regions", "region")).toBe("utf8mb4_general_ci");
      await destination.writePartition(context(clean, "regions", "café"), partition("café"), rowsOf("café"));
      expect(await collation(clean, "regions", "region")).toMatch(/^utf8mb4_(nopad|0900)_bin$/);
      expect(await destination.readPartition(context(clean, "regions", "cafe"), partition("cafe"))).toEqual(rowsOf("cafe", 2, "old"));
      expect(await destination.readPartition(context(clean, "regions", "café"), partition("café"))).toEqual(rowsOf("café"));
    } finally {
      await destination.close();
    }
  }, 60_000);
});
