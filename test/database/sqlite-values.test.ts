// SQLite's load converts each field's values with a writer chosen once per load (not a switch per
// value) and fills each statement's parameters column by column; the catalog is asked again only
// when the schema cookie moved. These check what that must keep: every field type, nulls included,
// lands in its row and column across statement boundaries (100 rows a statement, the last one
// shorter); a refused value names its own row, whichever statement it falls in; and a table
// dropped or altered by another connection between two writes is seen as it is now.
import Database from "better-sqlite3";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SQLiteDestination } from "../../src/destination/database/index.js";
import { IOContext, type AssetRef } from "../../src/destination/index.js";
import { SchemaError } from "../../src/errors.js";
import { TimeGranularity, TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import type { Row } from "../../src/representation/index.js";
import type { FieldSpec } from "../../src/schema/index.js";
import { makeTempDir } from "../contract/temp-dir.js";

const orders: AssetRef = {
  key: "shop.orders",
  table: "orders",
  dataset: "shop",
  partitioning: new TimePartitionConfig({ column: "date", allowWindow: true }),
};
const schema: FieldSpec[] = [
  { name: "date", type: "date", nullable: false },
  { name: "s", type: "string", nullable: true },
  { name: "i", type: "integer", nullable: true },
  { name: "n", type: "number", nullable: true },
  { name: "b", type: "boolean", nullable: true },
  { name: "d", type: "date", nullable: true },
  { name: "t", type: "datetime", nullable: true },
  { name: "z", type: "datetime", nullable: true, asDate: false },
  { name: "j", type: "json", nullable: true },
];
const jan1 = new TimePartitionWindow("2026-01-01", "2026-01-01", TimeGranularity.DAY);
const ctx = (s: readonly FieldSpec[] = schema) => new IOContext({ asset: orders, window: jan1, schema: s, metadata: { runId: "values" } });

/** Row `k` of every type; every seventh field value is null, in a different field each row. */
function row(k: number): Row {
  const values: Row = {
    s: `text ${k}, "quoted" é ${"😀".repeat(k % 3)}`,
    i: k % 2 === 0 ? k * 1_000_003 - 500 : 9_007_199_254_740_993n + BigInt(k),
    n: k / 8 - 10.125,
    b: k % 3 === 0,
    d: `20${String(10 + (k % 15))}-0${1 + (k % 9)}-1${k % 10}`,
    t: new Date(Date.UTC(2020, k % 12, 1 + (k % 27), k % 24, k % 60, k % 60, k % 1000)),
    z: `2026-01-01T${String(k % 24).padStart(2, "0")}:30:00+05:30`,
    j: { k, list: [k, "x", null, { deep: k % 2 === 0 }] },
  };
  const names = Object.keys(values);
  values[names[k % 7]!] = null;
  return { date: "2026-01-01", ...values };
}

let base: { path: string; remove(): Promise<void> };
let file: string;
let destination: SQLiteDestination;
beforeEach(async () => {
  base = await makeTempDir("interloper-sqlite-values-");
  file = join(base.path, "values.sqlite");
  destination = new SQLiteDestination({ path: file });
});
afterEach(async () => {
  await destination.close();
  await base.remove();
});

describe("SQLite: values over many insert statements", () => {
  it("every field type round-trips, nulls included, in full statements and the short last one", async () => {
    const rows = Array.from({ length: 250 }, (_, k) => row(k));
    await destination.write(ctx(), rows);
    const back = (await destination.read(ctx())) as Row[];
    expect(back).toEqual(rows);
    expect(typeof back[3]!["i"]).toBe("bigint");
    expect(back[2]!["t"]).toBeInstanceOf(Date);
    expect(back[203]!["z"]).toBe("2026-01-01T11:30:00+05:30");
  });

  it.each([
    ["n", Number.NaN, 237, /SQLite stores NaN as NULL/],
    ["n", -0, 150, /so -0 would read back as 0/],
    ["s", "half a pair: \uD83D", 100, /lone UTF-16 surrogate/],
    ["j", { a: [Number.POSITIVE_INFINITY] }, 99, /the json value holds Infinity at \$\.a\[0\]/],
  ])("a refused %s value names its own row (%s at row %i), and nothing is written", async (field, value, at, reason) => {
    const old = [row(0)];
    await destination.write(ctx(), old);
    const rows = Array.from({ length: 250 }, (_, k) => row(k));
    rows[at] = { ...rows[at], [field]: value };
    const error = await destination.write(ctx(), rows).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaError);
    expect((error as Error).message).toMatch(new RegExp(`^SQLite: cannot write field "${field}" at row ${at}: `));
    expect((error as Error).message).toMatch(reason);
    expect(await destination.read(ctx())).toEqual(old);
  });
});

describe("SQLite: the catalog between writes", () => {
  it("a table another connection dropped is created again on the next write", async () => {
    await destination.write(ctx(), [row(1)]);
    const other = new Database(file);
    other.exec(`DROP TABLE "shop.orders"`);
    other.close();
    await destination.write(ctx(), [row(2)]);
    expect(await destination.read(ctx())).toEqual([row(2)]);
  });

  it("a column another connection added is seen: the next write's schema adds nothing twice", async () => {
    const narrow = schema.slice(0, 3);
    const narrowRow = (k: number): Row => ({ date: "2026-01-01", s: `s${k}`, i: k });
    await destination.write(ctx(narrow), [narrowRow(1)]);
    const other = new Database(file);
    other.exec(`ALTER TABLE "shop.orders" ADD COLUMN "n" REAL`);
    other.close();
    // Were the old columns still believed, this write would add "n" again and fail.
    const wider = [...narrow, schema[3]!];
    await destination.write(ctx(wider), [{ ...narrowRow(2), n: 2.5 }]);
    expect(await destination.read(ctx(wider))).toEqual([{ ...narrowRow(2), n: 2.5 }]);
  });
});
