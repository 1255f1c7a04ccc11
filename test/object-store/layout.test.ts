import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeFileAtomic } from "../../src/destination/store/local/atomic.js";
import { ParquetFormat } from "../../src/destination/format/index.js";
import { LocalObjectStoreDestination, ObjectStoreDestination, type StoredObject } from "../../src/destination/index.js";
import { ConfigError, DataNotFoundError } from "../../src/errors.js";
import { formatFor } from "../../src/destination/format/format-for.js";
import type { AssetRef } from "../../src/destination/index.js";
import { TimeGranularity, TimePartition, TimePartitionConfig } from "../../src/partitioning/index.js";
import { type FieldSpec, inferFieldSpecs } from "../../src/schema/index.js";
import { listFiles, makeTempDir } from "../contract/temp-dir.js";
import { ctx, days, orderRows, orders, regions, sales } from "./helpers.js";

let dir: { path: string; remove(): Promise<void> };
beforeEach(async () => {
  dir = await makeTempDir("interloper-objects-");
});
afterEach(async () => {
  await dir.remove();
});

const text = async (...parts: string[]): Promise<string> => readFile(join(dir.path, ...parts), "utf8");

describe("hive layout", () => {
  it("writes {prefix}/{dataset}/{table}/{column}={key}/data.{ext}, metadata in the hidden ledger of the folder above", async () => {
    const dest = new LocalObjectStoreDestination({ basePath: dir.path, prefix: "exports/v1", format: "jsonl" });
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-02")), orderRows());
    await dest.write(ctx({ ...orders, key: "shop.totals", table: "totals", partitioning: null }, null, null), [{ n: 1 }]);
    await dest.write(ctx({ ...orders, key: "totals", table: "totals", dataset: null, partitioning: null }, null, null), [{ n: 1 }]);
    // The local backend keeps its records in the ledger only (no history objects).
    const files = await listFiles(dir.path);
    expect(files).toEqual([
      "exports/v1/.data.jsonl.ledger",
      "exports/v1/shop/.data.jsonl.ledger",
      "exports/v1/shop/orders/.data.jsonl.ledger",
      "exports/v1/shop/orders/date=2026-01-01/data.jsonl",
      "exports/v1/shop/orders/date=2026-01-02/data.jsonl",
      "exports/v1/shop/totals/data.jsonl",
      "exports/v1/totals/data.jsonl",
    ]);
    const listed: StoredObject[] = [];
    for await (const object of dest.listObjects("exports/v1/shop/")) listed.push(object);
    expect(listed.map((o) => o.name)).toEqual([
      "exports/v1/shop/orders/date=2026-01-01/data.jsonl",
      "exports/v1/shop/orders/date=2026-01-02/data.jsonl",
      "exports/v1/shop/totals/data.jsonl",
    ]);
    expect(listed[0]!.metadata).toEqual({ row_count: "2", materialization: expect.stringContaining('"partition":"2026-01-01"') });
  });

  it("refuses a prefix that would leave the base folder", async () => {
    const dest = new LocalObjectStoreDestination({ basePath: dir.path, prefix: "../outside" });
    await expect(dest.write(ctx(orders, days("2026-01-01", "2026-01-01")), [])).rejects.toBeInstanceOf(ConfigError);
  });

  it("refuses an unknown format by name when constructed, before anything is written", () => {
    expect(() => new LocalObjectStoreDestination({ basePath: dir.path, format: "xml" as never })).toThrow(
      'Local object store: format "xml" is not one of "parquet", "jsonl", "csv"',
    );
  });

  it("names the object's URI when it does not exist", async () => {
    const dest = new LocalObjectStoreDestination({ basePath: dir.path });
    const error = await dest.read(ctx(orders, days("2026-01-03", "2026-01-03"))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataNotFoundError);
    expect((error as Error).message).toContain(join(dir.path, "shop", "orders", "date=2026-01-03", "data.parquet"));
  });
});

describe("the partition column", () => {
  it.each(["jsonl", "csv"] as const)("is dropped from the %s file and re-injected typed on read", async (format) => {
    const dest = new LocalObjectStoreDestination({ basePath: dir.path, format });
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-02")), orderRows());
    const raw = await text("shop", "orders", "date=2026-01-01", `data.${format}`);
    expect(raw).not.toContain("date");
    expect(raw).not.toContain('2026-01-01"');
    expect(await dest.read(ctx(orders, days("2026-01-01", "2026-01-02")))).toEqual(orderRows());
  });

  it("is dropped from the Parquet file's columns", async () => {
    const dest = new LocalObjectStoreDestination({ basePath: dir.path });
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-02")), orderRows());
    const bytes = await readFile(join(dir.path, "shop", "orders", "date=2026-01-02", "data.parquet"));
    const { parquetMetadata } = await import("hyparquet");
    const names = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer).schema.map(
      (e) => e.name,
    );
    expect(names).toEqual(["root", "id", "amount", "paid", "note", "at", "tags"]);
  });

  it("comes back as a Date when the field says so, and in its schema position", async () => {
    const schema: FieldSpec[] = [
      { name: "id", type: "integer", nullable: false },
      { name: "date", type: "date", nullable: false, asDate: true },
    ];
    const dest = new LocalObjectStoreDestination({ basePath: dir.path, format: "csv" });
    const rows = [{ id: 1, date: new Date(Date.UTC(2026, 0, 1)) }];
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-01"), schema), rows);
    const back = (await dest.read(ctx(orders, days("2026-01-01", "2026-01-01"), schema))) as Record<string, unknown>[];
    expect(back).toEqual(rows);
    expect(Object.keys(back[0]!)).toEqual(["id", "date"]);
  });

  it("read without a schema, stays where the file stores it, and comes last when only the path holds it", async () => {
    const monthly: AssetRef = { ...orders, partitioning: new TimePartitionConfig({ column: "date", granularity: TimeGranularity.MONTH }) };
    const month = TimePartition.fromKey("2026-01");
    for (const format of ["parquet", "jsonl", "csv"] as const) {
      const dest = new LocalObjectStoreDestination({ basePath: dir.path, format, prefix: format });
      // A month of daily dates: the partition cannot give them back, so the file keeps the column.
      const rows = [
        { date: "2026-01-05", id: 1 },
        { date: "2026-01-20", id: 2 },
      ];
      await dest.write(ctx(monthly, month, inferFieldSpecs(rows)), rows);
      const back = (await dest.read(ctx(monthly, month, null))) as Record<string, unknown>[];
      expect(
        back.map((row) => Object.keys(row)),
        format,
      ).toEqual([
        ["date", "id"],
        ["date", "id"],
      ]);
      expect(back.map((row) => row["date"])).toEqual(["2026-01-05", "2026-01-20"]);
      // A day's date: only the path keeps it, and without a schema nothing says where it was.
      await dest.write(ctx(orders, days("2026-01-03", "2026-01-03"), inferFieldSpecs(rows)), [{ date: "2026-01-03", id: 3 }]);
      const day = (await dest.read(ctx(orders, days("2026-01-03", "2026-01-03"), null))) as Record<string, unknown>[];
      expect(Object.keys(day[0]!)).toEqual(["id", "date"]);
    }
  });

  it("comes back as the list value, and as the key string when there is no schema", async () => {
    const dest = new LocalObjectStoreDestination({ basePath: dir.path, format: "jsonl" });
    const rows = [
      { region: "eu", amount: 1 },
      { region: "us", amount: 2 },
    ];
    await dest.write(ctx(sales, regions.all(), null), rows);
    expect(await text("shop", "sales", "region=eu", "data.jsonl")).toBe('{"amount":1}\n');
    expect(await dest.read(ctx(sales, regions.all(), null))).toEqual(rows);
  });

  it("stays in the file when the partition cannot restore it (daily dates in a monthly partition)", async () => {
    const dest = new LocalObjectStoreDestination({ basePath: dir.path, format: "jsonl" });
    const { TimeGranularity, TimePartitionConfig, TimePartitionWindow } = await import("../../src/partitioning/index.js");
    const monthly = { ...orders, partitioning: new TimePartitionConfig({ column: "date", granularity: TimeGranularity.MONTH }) };
    const schema: FieldSpec[] = [
      { name: "date", type: "date", nullable: false },
      { name: "id", type: "integer", nullable: false },
    ];
    const rows = [
      { date: "2026-01-01", id: 1 },
      { date: "2026-01-31", id: 2 },
    ];
    const window = new TimePartitionWindow("2026-01-01", "2026-01-01", TimeGranularity.MONTH);
    await dest.write(ctx(monthly, window, schema), rows);
    expect(await text("shop", "orders", "date=2026-01", "data.jsonl")).toBe('{"date":"2026-01-01","id":1}\n{"date":"2026-01-31","id":2}\n');
    expect(await dest.read(ctx(monthly, window, schema))).toEqual(rows);
  });
});

describe("row counts", () => {
  it("come from metadata alone: corrupt bytes with row_count metadata still count", async () => {
    const dest = new LocalObjectStoreDestination({ basePath: dir.path });
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-02")), orderRows());
    await dest.putObject("shop/orders/date=2026-01-01/data.parquet", new TextEncoder().encode("not parquet"), "x", { row_count: "2" });
    expect(await dest.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 2, "2026-01-02": 1 });
    await expect(dest.read(ctx(orders, days("2026-01-01", "2026-01-01")))).rejects.toThrow();
  });

  it("download and count an object written by another tool, without metadata", async () => {
    const dest = new LocalObjectStoreDestination({ basePath: dir.path, format: "csv" });
    await dest.putObject("shop/orders/date=2026-01-05/data.csv", new TextEncoder().encode("id\n1\n2\n3\n"), "text/csv", {});
    expect(await dest.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-05": 3 });
  });

  it("ignore a sidecar that describes another file (a crash between the data and its sidecar)", async () => {
    const dest = new LocalObjectStoreDestination({ basePath: dir.path, format: "csv" });
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-01")), orderRows().slice(0, 2));
    // A crash right after the data file was replaced, before its sidecar: same size as the old
    // file, so only the file's identity tells the sidecar is stale.
    const path = join(dir.path, "shop", "orders", "date=2026-01-01", "data.csv");
    const before = await readFile(path);
    const header = before.toString("utf8").split("\n")[0]!;
    const commas = ",".repeat(header.split(",").length - 1);
    const filler = "x".repeat(before.length - Buffer.byteLength(header) - commas.length - 2);
    await writeFileAtomic(path, [`${header}\n${filler}${commas}\n`]);
    expect((await readFile(path)).length).toBe(before.length);
    expect(await dest.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 1 });
  });

  it("skip other formats, other columns and stray files under the table", async () => {
    const dest = new LocalObjectStoreDestination({ basePath: dir.path, format: "jsonl" });
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-01")), orderRows().slice(0, 1));
    await dest.putObject("shop/orders/date=2026-01-02/data.csv", new Uint8Array(), "text/csv", { row_count: "5" });
    await dest.putObject("shop/orders/day=2026-01-03/data.jsonl", new Uint8Array(), "x", { row_count: "5" });
    await dest.putObject("shop/orders/date=2026-01-04/nested/data.jsonl", new Uint8Array(), "x", { row_count: "5" });
    await dest.putObject("shop/orders2/date=2026-01-05/data.jsonl", new Uint8Array(), "x", { row_count: "5" });
    expect(await dest.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 1 });
  });
});

describe("Parquet file shape", () => {
  it("keeps a column that is null in every row of a partition, typed as the schema says", async () => {
    const dest = new LocalObjectStoreDestination({ basePath: dir.path });
    const rows = orderRows().map((row) => (row["date"] === "2026-01-02" ? { ...row, amount: null, tags: null, at: null } : row));
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-02")), rows);
    const { parquetMetadata } = await import("hyparquet");
    const shapes = [];
    for (const day of ["2026-01-01", "2026-01-02"]) {
      const bytes = await readFile(join(dir.path, "shop", "orders", `date=${day}`, "data.parquet"));
      const metadata = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
      shapes.push(
        metadata.schema.slice(1).map((e) => [e.name, e.type, e.converted_type ?? e.logical_type?.type ?? null, e.repetition_type]),
      );
    }
    expect(shapes[1]).toEqual(shapes[0]);
    expect(shapes[0]).toEqual([
      ["id", "INT64", null, "REQUIRED"],
      ["amount", "DOUBLE", null, "OPTIONAL"],
      ["paid", "BOOLEAN", null, "OPTIONAL"],
      ["note", "BYTE_ARRAY", "UTF8", "OPTIONAL"],
      ["at", "INT64", "TIMESTAMP_MILLIS", "OPTIONAL"],
      ["tags", "BYTE_ARRAY", "JSON", "OPTIONAL"],
    ]);
    expect(await dest.read(ctx(orders, days("2026-01-02", "2026-01-02")))).toEqual(rows.slice(2));
  });

  it("accepts a FileFormat instance as the format", async () => {
    const dest = new LocalObjectStoreDestination({ basePath: dir.path, format: new ParquetFormat() });
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-02")), orderRows());
    expect(await dest.read(ctx(orders, days("2026-01-01", "2026-01-02")))).toEqual(orderRows());
  });
});

describe("custom backends", () => {
  class MapStore extends ObjectStoreDestination {
    readonly objects = new Map<string, { bytes: Uint8Array; metadata: Record<string, string> }>();
    putObject(name: string, payload: Uint8Array, _type: string, metadata: Record<string, string>): void {
      this.objects.set(name, { bytes: payload.slice(), metadata: { ...metadata } });
    }
    getObject(name: string): Uint8Array | null {
      return this.objects.get(name)?.bytes ?? null;
    }
    *listObjects(prefix: string): Iterable<StoredObject> {
      for (const [name, { metadata }] of this.objects) if (name.startsWith(prefix)) yield { name, metadata };
    }
    objectUri(name: string): string {
      return `mem://${name}`;
    }
  }

  it("need only the four sync hooks, and take format and prefix as options", async () => {
    const store = new MapStore({ format: "csv", prefix: "p" });
    expect(store.format).toBe("csv");
    await store.write(ctx(orders, days("2026-01-01", "2026-01-02")), orderRows());
    const data = [...store.objects.keys()].filter((name) => !name.includes("/.materializations/"));
    expect(data).toEqual(["p/shop/orders/date=2026-01-01/data.csv", "p/shop/orders/date=2026-01-02/data.csv"]);
    expect(await store.read(ctx(orders, days("2026-01-01", "2026-01-02")))).toEqual(orderRows());
    expect(await store.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 2, "2026-01-02": 1 });
    await expect(store.read(ctx(orders, days("2026-01-09", "2026-01-09")))).rejects.toThrow("mem://p/shop/orders/date=2026-01-09/data.csv");
  });

  it("read an object getObject returns undefined for as absent, and refuse what is not bytes", async () => {
    class Undefined extends MapStore {
      override getObject(name: string): Uint8Array | null {
        return this.objects.get(name)?.bytes as Uint8Array;
      }
    }
    const store = new Undefined({ format: "jsonl" });
    const missing = store.read(ctx(orders, days("2026-01-09", "2026-01-09")));
    await expect(missing).rejects.toBeInstanceOf(DataNotFoundError);
    await expect(missing).rejects.toThrow("no data for partition 2026-01-09 of asset");
    class Text extends MapStore {
      override getObject(): Uint8Array | null {
        return "{}" as unknown as Uint8Array;
      }
    }
    await expect(new Text({ format: "jsonl" }).read(ctx(orders, days("2026-01-09", "2026-01-09")))).rejects.toThrow(
      'Text.getObject("shop/orders/date=2026-01-09/data.jsonl") returned string "{}": expected the object\'s bytes (a Uint8Array), or null when it does not exist',
    );
  });

  it("refuse, when constructed, a format no format has", () => {
    expect(() => new MapStore({ format: "xml" })).toThrow(ConfigError);
    expect(() => new MapStore({ format: "xml" })).toThrow('MapStore: format "xml" is not one of "parquet", "jsonl", "csv"');
  });

  it("cannot be created without one of the hooks", () => {
    // A JavaScript config could do this; TypeScript's `abstract` stops it at compile time.
    const Base = ObjectStoreDestination as unknown as new () => object;
    class Broken extends Base {}
    expect(() => new Broken()).toThrow(/Broken cannot be created: it does not implement putObject\(\)/);
  });
});

describe("the partition column, dropped whenever the partition gives every row's value back", () => {
  const { HOUR, MONTH } = TimeGranularity;
  const FORMATS = ["parquet", "jsonl", "csv"] as const;
  const midnight = (day: string) => new Date(`${day}T00:00:00Z`);
  const assetOf = (granularity: TimeGranularity): AssetRef => ({
    ...orders,
    partitioning: new TimePartitionConfig({ column: "date", granularity, allowWindow: true }),
  });

  /** The columns of one stored object, as the format reads them back without a schema. */
  async function fileColumns(dest: LocalObjectStoreDestination, name: string): Promise<string[]> {
    const bytes = await dest.getObject(name);
    const format = formatFor(dest.format as "parquet", "test");
    const rows = await format.deserialize(bytes!, null);
    return Object.keys(rows[0]!);
  }

  const inferred = (rows: Record<string, unknown>[]): FieldSpec[] => inferFieldSpecs(rows);

  const schemaOf = (date: FieldSpec): FieldSpec[] => [date, { name: "id", type: "integer", nullable: false }];
  // [case, partition key, rows, write and read schema ("inferred": as conform infers it from the rows)]
  const cases: Array<[string, string, () => Record<string, unknown>[], FieldSpec[] | "inferred"]> = [
    [
      "a day's ISO date strings, no declared schema",
      "2026-01-02",
      () => [
        { date: "2026-01-02", id: 1 },
        { date: "2026-01-02", id: 2 },
      ],
      "inferred",
    ],
    [
      "a day's ISO date strings, z.string()",
      "2026-01-02",
      () => [{ date: "2026-01-02", id: 1 }],
      schemaOf({ name: "date", type: "string", nullable: false }),
    ],
    [
      "a day's ISO date strings, z.iso.date()",
      "2026-01-02",
      () => [{ date: "2026-01-02", id: 1 }],
      schemaOf({ name: "date", type: "date", nullable: false, asDate: false }),
    ],
    ["a day's Dates, no declared schema", "2026-01-02", () => [{ date: midnight("2026-01-02"), id: 1 }], "inferred"],
    [
      "a day's Dates, z.date()",
      "2026-01-02",
      () => [{ date: midnight("2026-01-02"), id: 1 }],
      schemaOf({ name: "date", type: "datetime", nullable: false, asDate: true }),
    ],
    ["an hour's instant as a Date", "2026-01-02T05", () => [{ date: new Date("2026-01-02T05:00:00Z"), id: 1 }], "inferred"],
    [
      "an hour's instant as an ISO string, z.iso.datetime()",
      "2026-01-02T05",
      () => [{ date: "2026-01-02T05:00:00.000Z", id: 1 }],
      schemaOf({ name: "date", type: "datetime", nullable: false, asDate: false }),
    ],
    ["a week's key", "2026-W02", () => [{ date: "2026-W02", id: 1 }], "inferred"],
    ["a month's key", "2026-01", () => [{ date: "2026-01", id: 1 }], "inferred"],
    ["a quarter's key", "2026-Q1", () => [{ date: "2026-Q1", id: 1 }], "inferred"],
    ["a year's key", "2026", () => [{ date: "2026", id: 1 }], "inferred"],
    ["a list value", "eu", () => [{ region: "eu", id: 1 }], "inferred"],
  ];

  for (const format of FORMATS) {
    it.each(cases)(`${format}: %s leave the file and come back as they were`, async (_case, key, make, declared) => {
      const dest = new LocalObjectStoreDestination({ basePath: dir.path, format });
      const rows = make();
      const schema = declared === "inferred" ? inferred(rows) : declared;
      const list = key === "eu";
      const partition = list ? regions.partition(key) : TimePartition.fromKey(key);
      const context = ctx(list ? sales : assetOf((partition as TimePartition).granularity), partition, schema);
      // The object store's own hook: write() slices by instant first, and refuses rows carrying a month's key.
      await dest.writePartition(context, partition, rows);
      expect(await fileColumns(dest, dest.objectName(context, partition))).toEqual(["id"]);
      expect(await dest.readPartition(context, partition)).toEqual(rows);
    });
  }

  it.each(FORMATS)("%s: without a schema on either side the column still leaves the file, and reads back as the key", async (format) => {
    const dest = new LocalObjectStoreDestination({ basePath: dir.path, format });
    const day = new TimePartition("2026-01-02");
    for (const value of ["2026-01-02", midnight("2026-01-02")]) {
      await dest.writePartition(ctx(orders, day, null), day, [{ date: value, id: 1 }]);
      expect(await fileColumns(dest, dest.objectName(ctx(orders, day, null), day))).toEqual(["id"]);
      const back = (await dest.readPartition(ctx(orders, day, null), day)) as Record<string, unknown>[];
      expect(back.map((row) => row["date"])).toEqual(["2026-01-02"]);
    }
  });

  it.each(FORMATS)("%s: a daily window of strings with an inferred schema, through write()", async (format) => {
    const dest = new LocalObjectStoreDestination({ basePath: dir.path, format });
    const rows = [
      { date: "2026-01-01", id: 1 },
      { date: "2026-01-02", id: 2 },
    ];
    const context = ctx(orders, days("2026-01-01", "2026-01-02"), inferred(rows));
    await dest.write(context, rows);
    for (const partition of context.partitions) expect(await fileColumns(dest, dest.objectName(context, partition))).toEqual(["id"]);
    expect(await dest.read(context)).toEqual(rows);
    // A later run reads without a schema: the strings come back as strings.
    const untyped = (await dest.read(ctx(orders, days("2026-01-01", "2026-01-02"), null))) as Record<string, unknown>[];
    expect(untyped.map((row) => row["date"])).toEqual(["2026-01-01", "2026-01-02"]);
  });

  it.each(FORMATS)(
    "%s: stays where the partition cannot restore each row (instants inside an hour, daily Dates in a month)",
    async (format) => {
      const dest = new LocalObjectStoreDestination({ basePath: dir.path, format });
      const hourly = [{ date: new Date("2026-01-02T05:10:00Z"), id: 1 }];
      const hour = new TimePartition("2026-01-02T05", HOUR);
      await dest.writePartition(ctx(assetOf(HOUR), hour, inferred(hourly)), hour, hourly);
      expect(await fileColumns(dest, dest.objectName(ctx(assetOf(HOUR), hour), hour))).toEqual(["date", "id"]);
      expect(await dest.readPartition(ctx(assetOf(HOUR), hour, inferred(hourly)), hour)).toEqual(hourly);
      const monthly = [{ date: midnight("2026-01-01"), id: 1 }];
      const month = new TimePartition("2026-01", MONTH);
      await dest.writePartition(ctx(assetOf(MONTH), month, inferred(monthly)), month, monthly);
      expect(await fileColumns(dest, dest.objectName(ctx(assetOf(MONTH), month), month))).toEqual(["date", "id"]);
      expect(await dest.readPartition(ctx(assetOf(MONTH), month, inferred(monthly)), month)).toEqual(monthly);
    },
  );
});
