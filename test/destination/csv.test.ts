import { appendFile, mkdir, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CSVDestination, IOContext } from "../../src/destination/index.js";
import type { AssetRef } from "../../src/destination/index.js";
import { tempPathFor } from "../../src/destination/store/local/atomic.js";
import { entryLine } from "../../src/destination/store/local/ledger-lines.js";
import { ConfigError, DataNotFoundError, InterloperError } from "../../src/errors.js";
import { ListPartitionConfig, Partition, TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import type { PartitionFilter, PartitionWindow } from "../../src/partitioning/index.js";
import type { Row } from "../../src/representation/index.js";
import type { FieldSpec } from "../../src/schema/index.js";
import { listFiles, makeTempDir } from "../contract/temp-dir.js";

const daily = new TimePartitionConfig({ column: "date", allowWindow: true });
const orders: AssetRef = { key: "shop.orders", table: "orders", dataset: "shop", partitioning: daily };
const flat: AssetRef = { key: "orders", table: "orders", dataset: null, partitioning: daily };
const customers: AssetRef = { key: "shop.customers", table: "customers", dataset: "shop", partitioning: null };

const orderSchema: FieldSpec[] = [
  { name: "date", type: "date", nullable: false },
  { name: "id", type: "integer", nullable: false },
  { name: "note", type: "string", nullable: true },
];

function ctx(asset: AssetRef, window: PartitionWindow | Partition | null, schema: FieldSpec[] | null = null): IOContext {
  return new IOContext({ asset, window, schema, metadata: { runId: "r1" } });
}

const jan1 = new TimePartitionWindow("2026-01-01", "2026-01-01");

// The batch size inside CSVDestination is 20,000 rows; this many rows spans two batches, so
// a failure in the second happens after the first was already written to the temporary file.
const TWO_BATCHES = 25_001;

/** A partition with any key, bypassing the checks real partitionings make, to probe path safety. */
class RawPartition extends Partition {
  readonly value: string;
  constructor(readonly key: string) {
    super();
    this.value = key;
  }
  get window(): PartitionWindow {
    throw new Error("not used: the hooks are called directly");
  }
  contains(value: unknown): boolean {
    return value === this.key;
  }
  filter(column: string): PartitionFilter {
    return { column, value: this.key };
  }
}

describe("CSVDestination", () => {
  let base: string;
  let removeDir: () => Promise<void>;
  let csv: CSVDestination;

  beforeEach(async () => {
    const dir = await makeTempDir("interloper-csv-");
    base = join(dir.path, "base");
    removeDir = dir.remove;
    csv = new CSVDestination({ basePath: base });
  });
  afterEach(async () => {
    await removeDir();
  });

  describe("layout", () => {
    it("writes {basePath}/{dataset}/{table}/data.csv for an unpartitioned asset", async () => {
      await csv.write(ctx(customers, null), [{ id: 1 }]);
      expect(await visibleFiles(base)).toEqual(["shop/customers/data.csv"]);
      expect(csv.pathOf(ctx(customers, null), null)).toBe(join(base, "shop", "customers", "data.csv"));
    });

    it("writes {basePath}/{dataset}/{table}/{column}={key}/data.csv per partition", async () => {
      const window = new TimePartitionWindow("2026-01-01", "2026-01-02");
      await csv.write(ctx(orders, window), [
        { date: "2026-01-01", id: 1 },
        { date: "2026-01-02", id: 2 },
      ]);
      expect(await visibleFiles(base)).toEqual(["shop/orders/date=2026-01-01/data.csv", "shop/orders/date=2026-01-02/data.csv"]);
    });

    it("has no dataset segment when the asset has none", async () => {
      await csv.write(ctx(flat, jan1), [{ date: "2026-01-01", id: 1 }]);
      await csv.write(ctx({ ...customers, dataset: null }, null), [{ id: 1 }]);
      expect(await visibleFiles(base)).toEqual(["customers/data.csv", "orders/date=2026-01-01/data.csv"]);
    });

    it("names list partitions by their value", async () => {
      const regions = new ListPartitionConfig({ column: "region", values: ["eu", "us"], allowWindow: true });
      await csv.write(ctx({ ...orders, partitioning: regions }, regions.all()), [{ region: "us", n: 1 }]);
      expect(await visibleFiles(base)).toEqual(["shop/orders/region=eu/data.csv", "shop/orders/region=us/data.csv"]);
    });
  });

  describe("header and rows", () => {
    it("takes the header from the first row's keys, in their order", async () => {
      await csv.write(ctx(customers, null), [{ b: 1, a: "x" }, { a: "y", b: 2 }, { b: 3 }]);
      const text = await readFile(join(base, "shop", "customers", "data.csv"), "utf8");
      expect(text.split(/\r?\n/).filter(Boolean)).toEqual(["b,a", "1,x", "2,y", "3,"]);
    });

    it("refuses a later row with a key outside the header, naming the key, and writes nothing", async () => {
      const rows: Row[] = [{ id: 1 }, { id: 2, surprise: "!" }];
      const error = await csv.write(ctx(customers, null), rows).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InterloperError);
      expect((error as Error).message).toContain("surprise");
      expect(await listFiles(base)).toEqual([]);
      await expect(csv.read(ctx(customers, null))).rejects.toBeInstanceOf(DataNotFoundError);
    });

    it("refuses rows whose first has no columns (an empty header), streamed or not, and writes nothing", async () => {
      const cases: Row[][] = [
        [{}, { a: 1 }, { a: 2 }],
        [{}, {}],
      ];
      for (const rows of cases) {
        const error = await csv.write(ctx(customers, null), rows).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InterloperError);
        expect((error as Error).message).toMatch(/^asset "shop\.customers": row 0 has no columns/);
        async function* batches(): AsyncGenerator<Row[]> {
          yield rows;
        }
        const streamed = await csv.writePartitionStream(ctx(customers, null), null, batches()).catch((e: unknown) => e);
        expect((streamed as Error).message).toMatch(/^asset "shop\.customers": row 0 has no columns/);
      }
      expect(await listFiles(base)).toEqual([]);
      await expect(csv.read(ctx(customers, null))).rejects.toBeInstanceOf(DataNotFoundError);
    });

    it("round-trips commas, quotes, newlines and carriage returns, one row per record", async () => {
      const rows: Row[] = [
        { date: "2026-01-01", id: 1, note: "a, b, c" },
        { date: "2026-01-01", id: 2, note: 'she said "hi", twice ""' },
        { date: "2026-01-01", id: 3, note: "line one\nline two\n\nline four" },
        { date: "2026-01-01", id: 4, note: "windows\r\nline" },
        { date: "2026-01-01", id: 5, note: " leading and trailing spaces " },
      ];
      await csv.write(ctx(orders, jan1, orderSchema), rows);
      expect(await csv.read(ctx(orders, jan1, orderSchema))).toEqual(rows);
      expect(await csv.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 5 });
      // Without the ledger the file itself is counted: quoted newlines must not add rows.
      await rm(ledgerPath(base));
      expect(await csv.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 5 });
    });

    it("reads a window as its partitions' rows one after another, a file outside the written dialect too", async () => {
      const days = new TimePartitionWindow("2026-01-01", "2026-01-03");
      await csv.write(ctx(orders, days, orderSchema), [
        { date: "2026-01-01", id: 1, note: "a" },
        { date: "2026-01-02", id: 2, note: null },
        { date: "2026-01-03", id: 3, note: "c" },
        { date: "2026-01-03", id: 4, note: "" },
      ]);
      // A carriage return after the first record: csv-parse reads the file, from its start.
      await writeFile(join(base, "shop", "orders", "date=2026-01-02", "data.csv"), "date,id,note\n2026-01-02,2,\n2026-01-02,5,x\r\n");
      const each = await Promise.all(days.partitions.map((p) => csv.readPartition(ctx(orders, days, orderSchema), p)));
      const window = await csv.read(ctx(orders, days, orderSchema));
      expect(window).toEqual(each.flat());
      expect(window).toHaveLength(5);
      // A subclass that reads its partitions otherwise has its readPartition's rows joined.
      class Noted extends CSVDestination {
        override async readPartition(context: IOContext, partition: Partition | null): Promise<unknown> {
          return ((await super.readPartition(context, partition)) as Row[]).map((row) => ({ ...row, note: "read" }));
        }
      }
      const noted = await new Noted({ basePath: base }).read(ctx(orders, days, orderSchema));
      expect(noted).toEqual((each as Row[][]).flat().map((row) => ({ ...row, note: "read" })));
    });

    it("reads strings back without a schema", async () => {
      await csv.write(ctx(customers, null), [
        { id: 7, price: -1.5, ok: false, at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)), tags: ["a", { b: 1 }], big: 2n ** 64n, none: null },
      ]);
      expect(await csv.read(ctx(customers, null))).toEqual([
        {
          id: "7",
          price: "-1.5",
          ok: "false",
          at: "2026-01-02T03:04:05.000Z",
          tags: '["a",{"b":1}]',
          big: "18446744073709551616",
          none: "",
        },
      ]);
    });

    it("restores the declared types with a schema", async () => {
      const schema: FieldSpec[] = [
        { name: "id", type: "integer", nullable: false },
        { name: "price", type: "number", nullable: false },
        { name: "ok", type: "boolean", nullable: false },
        { name: "at", type: "datetime", nullable: false },
        { name: "day", type: "date", nullable: true },
        { name: "tags", type: "json", nullable: false },
        { name: "big", type: "integer", nullable: false },
        { name: "none", type: "string", nullable: true },
      ];
      const row: Row = {
        id: 7,
        price: -1.5,
        ok: false,
        at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
        day: "2026-01-02",
        tags: ["a", { b: 1 }],
        big: 2n ** 64n,
        none: null,
      };
      await csv.write(ctx(customers, null, schema), [row]);
      expect(await csv.read(ctx(customers, null, schema))).toEqual([row]);
    });

    it("writes an empty partition with the schema's header", async () => {
      await csv.write(ctx(orders, jan1, orderSchema), []);
      const text = await readFile(join(base, "shop", "orders", "date=2026-01-01", "data.csv"), "utf8");
      expect(text.trim()).toBe("date,id,note");
      expect(await csv.read(ctx(orders, jan1, orderSchema))).toEqual([]);
    });
  });

  describe("row counts", () => {
    const dir = (): string => join(base, "shop", "orders", "date=2026-01-01");
    const threeRows: Row[] = [1, 2, 3].map((id) => ({ date: "2026-01-01", id, note: `n${id}` }));

    it("keeps the count in the table's hidden ledger, one line a write, which a data.csv glob does not match", async () => {
      await csv.write(ctx(orders, jan1, orderSchema), threeRows);
      expect(await readdir(dir())).toEqual(["data.csv"]);
      expect(await ledgerLines(base)).toEqual([
        [
          "date=2026-01-01",
          expect.any(String),
          // The SHA-256 of the file: a copy of it is known by its bytes (issue 41.4).
          { row_count: "3", materialization: expect.any(String), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
          expect.stringMatching(/^[0-9a-f]{8}$/),
        ],
      ]);
      await csv.write(ctx(orders, jan1, orderSchema), threeRows.slice(1));
      // The second line also names the file its write replaced (proof that the first one landed).
      expect((await ledgerLines(base)).map(([folder, , metadata]) => [folder, metadata])).toEqual([
        ["date=2026-01-01", { row_count: "3", materialization: expect.any(String), sha256: expect.any(String) }],
        [
          "date=2026-01-01",
          { row_count: "2", materialization: expect.any(String), sha256: expect.any(String), replacing: expect.any(String) },
        ],
      ]);
      expect(await csv.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 2 });
    });

    it("serves the count from the ledger while the file is the one its line names", async () => {
      await csv.write(ctx(orders, jan1, orderSchema), threeRows);
      await forgeLedgerRows(base, 999);
      // A forged count comes back: proof that the file was not re-parsed.
      expect(await csv.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 999 });
    });

    it("issue 41.25: a line without its checksum naming the very file, its count edited, is refused and the file recounted", async () => {
      await csv.write(ctx(orders, jan1, orderSchema), threeRows);
      const [folder, file] = (await ledgerLines(base)).at(-1)!;
      await appendFile(ledgerPath(base), `\n${JSON.stringify([folder, file, { row_count: "999" }])}\n`);
      // The write's own line still holds: its count, not the edited one.
      expect(await csv.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 3 });
      // The ledger holding nothing but such a line: the file is counted again, and the count appended with its checksum.
      await writeFile(ledgerPath(base), `\n${JSON.stringify([folder, file, { row_count: "999" }])}\n`);
      expect(await csv.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 3 });
      expect((await ledgerLines(base)).at(-1)).toEqual([
        folder,
        expect.stringContaining(":"),
        { row_count: "3" },
        expect.stringMatching(/^[0-9a-f]{8}$/),
      ]);
    });

    it("recounts a data file edited by hand (size changed), and appends what it counted", async () => {
      await csv.write(ctx(orders, jan1, orderSchema), threeRows);
      await forgeLedgerRows(base, 999);
      await appendFile(join(dir(), "data.csv"), '2026-01-01,4,"hand\nwritten"\n');
      expect(await csv.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 4 });
      expect(await csv.read(ctx(orders, jan1, orderSchema))).toHaveLength(4);
      // The recount's line comes last, so the next call is served from it.
      expect((await ledgerLines(base)).at(-1)![2]).toEqual({ row_count: "4" });
      await forgeLedgerRows(base, 444);
      expect(await csv.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 444 });
    });

    it("recounts a data file whose mtime changed at the same size", async () => {
      await csv.write(ctx(orders, jan1, orderSchema), threeRows);
      await forgeLedgerRows(base, 999);
      const file = join(dir(), "data.csv");
      const before = await stat(file);
      // Same length, different content: n1 -> x1, then a different modification time.
      await writeFile(file, (await readFile(file, "utf8")).replace("n1", "x1"));
      const later = new Date(before.mtimeMs + 5_000);
      await utimes(file, later, later);
      expect((await stat(file)).size).toBe(before.size);
      expect(await csv.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 3 });
    });

    it("recounts when the ledger is missing, unreadable or cut short", async () => {
      await csv.write(ctx(orders, jan1, orderSchema), threeRows);
      await writeFile(ledgerPath(base), "not json");
      expect(await csv.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 3 });
      await rm(ledgerPath(base));
      expect(await csv.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 3 });
      // A line cut short by a crash spoils only itself.
      const whole = await readFile(ledgerPath(base), "utf8");
      await writeFile(ledgerPath(base), whole.slice(0, whole.length - 8));
      expect(await csv.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 3 });
    });
  });

  describe("atomic writes", () => {
    it("leaves no temporary file after writes and rewrites", async () => {
      const window = new TimePartitionWindow("2026-01-01", "2026-01-05");
      const rows = window.partitions.map((p, i) => ({ date: p.key, id: i }));
      await csv.write(ctx(orders, window), rows);
      await csv.write(ctx(orders, window), rows.slice(1));
      await csv.write(ctx(customers, null), [{ id: 1 }]);
      const files = await listFiles(base);
      expect(files.filter((f) => /tmp/i.test(f))).toEqual([]);
      expect(await visibleFiles(base)).toEqual(
        [...window.partitions.map((p) => `shop/orders/date=${p.key}/data.csv`), "shop/customers/data.csv"].sort(),
      );
    });

    it("leaves the previous file intact when a write fails midway", async () => {
      const before: Row[] = [{ date: "2026-01-01", id: 1, note: "before" }];
      await csv.write(ctx(orders, jan1, orderSchema), before);
      const file = join(base, "shop", "orders", "date=2026-01-01", "data.csv");
      const bytes = await readFile(file);

      const rows: Row[] = Array.from({ length: TWO_BATCHES }, (_, id) => ({ date: "2026-01-01", id, note: "x" }));
      rows[TWO_BATCHES - 1] = { date: "2026-01-01", id: -1, note: "x", late: "key" };
      await expect(csv.write(ctx(orders, jan1, orderSchema), rows)).rejects.toThrow(/late/);

      expect(await readFile(file)).toEqual(bytes);
      expect(await csv.read(ctx(orders, jan1, orderSchema))).toEqual(before);
      expect(await csv.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 1 });
      expect((await listFiles(base)).filter((f) => /tmp/i.test(f))).toEqual([]);
    });

    it("refuses a string UTF-8 cannot hold (a lone surrogate), naming its field and row, in any batch of a write or a stream", async () => {
      const before: Row[] = [{ date: "2026-01-01", id: 1, note: "before" }];
      await csv.write(ctx(orders, jan1, orderSchema), before);
      const file = join(base, "shop", "orders", "date=2026-01-01", "data.csv");
      const bytes = await readFile(file);
      const cut = "cut 😀 in half: \uD83D";

      const rows: Row[] = Array.from({ length: TWO_BATCHES }, (_, id) => ({ date: "2026-01-01", id, note: "x" }));
      rows[TWO_BATCHES - 1] = { date: "2026-01-01", id: -1, note: cut };
      const error = await csv.write(ctx(orders, jan1, orderSchema), rows).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InterloperError);
      expect((error as Error).message).toContain(
        `CSV: cannot write field "note" at row ${TWO_BATCHES - 1}: the string holds a lone UTF-16 surrogate (\\uD83D at index 16)`,
      );

      const partition = jan1.partitions[0]!;
      async function* batches(): AsyncGenerator<Row[]> {
        for (let b = 0; b < 3; b++)
          yield Array.from({ length: 10 }, (_, i) => ({ date: "2026-01-01", id: b * 10 + i, note: b === 2 && i === 5 ? cut : "fine" }));
      }
      await expect(csv.writePartitionStream(ctx(orders, partition, orderSchema), partition, batches())).rejects.toThrow(
        'CSV: cannot write field "note" at row 25:',
      );

      expect(await readFile(file)).toEqual(bytes);
      expect((await listFiles(base)).filter((f) => /tmp/i.test(f))).toEqual([]);
      // A well-formed surrogate pair, alone or beside other text, is written as it is.
      const pairs: Row[] = [
        { date: "2026-01-01", id: 2, note: "😀" },
        { date: "2026-01-01", id: 3, note: "a\uD83D\uDE00b" },
      ];
      await csv.write(ctx(orders, jan1, orderSchema), pairs);
      expect(await csv.read(ctx(orders, jan1, orderSchema))).toEqual(pairs);
    });

    it("lets a concurrent reader see the old partition or the new one, never a part", async () => {
      await csv.write(ctx(orders, jan1, orderSchema), [{ date: "2026-01-01", id: 0, note: "old" }]);
      const big: Row[] = Array.from({ length: TWO_BATCHES }, (_, id) => ({ date: "2026-01-01", id, note: "new" }));
      let done = false;
      const writing = csv.write(ctx(orders, jan1, orderSchema), big).finally(() => {
        done = true;
      });
      const seen = new Set<number>();
      while (!done) {
        const rows = (await csv.read(ctx(orders, jan1))) as Row[];
        seen.add(rows.length);
        const counts = await csv.partitionRowCounts(ctx(orders, null));
        expect(Object.keys(counts)).toEqual(["2026-01-01"]);
        seen.add(counts["2026-01-01"]!);
      }
      await writing;
      for (const n of seen) expect([1, TWO_BATCHES]).toContain(n);
      expect(await csv.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": TWO_BATCHES });
    });

    it("never lists a temporary file as a partition", async () => {
      await csv.write(ctx(orders, jan1, orderSchema), [{ date: "2026-01-01", id: 1, note: null }]);
      // A process killed while writing a new partition leaves its folder with only a temp file,
      // and one killed while rewriting leaves a temp file beside the old data.
      const killedNew = join(base, "shop", "orders", "date=2026-01-09", "data.csv");
      await mkdir(dirname(killedNew), { recursive: true });
      await writeFile(tempPathFor(killedNew), "date,id,note\n2026-01-09,1,half");
      await writeFile(tempPathFor(join(base, "shop", "orders", "date=2026-01-01", "data.csv")), "date,id\n2026-01-01,");
      await mkdir(tempPathFor(join(base, "shop", "orders", "date=2026-01-10")), { recursive: true });

      expect(await csv.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 1 });
      await expect(csv.read(ctx(orders, new TimePartitionWindow("2026-01-09", "2026-01-09")))).rejects.toBeInstanceOf(DataNotFoundError);
      expect(await csv.read(ctx(orders, jan1, orderSchema))).toEqual([{ date: "2026-01-01", id: 1, note: null }]);
    });
  });

  describe("path safety", () => {
    const unsafe = ["..", ".", "a/b", "a\\b", ""];

    /** Everything in the temp folder outside basePath: must stay empty. */
    const outside = async (): Promise<string[]> => (await listFiles(dirname(base))).filter((f) => !f.startsWith("base/"));

    it('treats an empty dataset as none, as the spec\'s `dataset or ""` does', async () => {
      await csv.write(ctx({ ...orders, dataset: "" }, jan1), [{ date: "2026-01-01", id: 1 }]);
      expect(await listFiles(base)).toContain("orders/date=2026-01-01/data.csv");
    });

    it.each(unsafe.filter((value) => value !== ""))("refuses the dataset %j with ConfigError", async (dataset) => {
      const asset: AssetRef = { ...orders, dataset };
      await expect(csv.write(ctx(asset, jan1), [{ date: "2026-01-01", id: 1 }])).rejects.toBeInstanceOf(ConfigError);
      await expect(csv.read(ctx(asset, jan1))).rejects.toBeInstanceOf(ConfigError);
      await expect(csv.partitionRowCounts(ctx(asset, null))).rejects.toBeInstanceOf(ConfigError);
      expect(await listFiles(dirname(base))).toEqual([]);
    });

    it.each(unsafe)("refuses the table %j with ConfigError", async (table) => {
      const asset: AssetRef = { ...customers, table };
      await expect(csv.write(ctx(asset, null), [{ id: 1 }])).rejects.toBeInstanceOf(ConfigError);
      await expect(csv.read(ctx(asset, null))).rejects.toBeInstanceOf(ConfigError);
      expect(await listFiles(dirname(base))).toEqual([]);
    });

    it.each(["..", ".", "a/b", "a=b"])("refuses the partition column %j with ConfigError", async (column) => {
      const asset: AssetRef = { ...orders, partitioning: new TimePartitionConfig({ column, allowWindow: true }) };
      await expect(csv.write(ctx(asset, jan1), [{ [column]: "2026-01-01", id: 1 }])).rejects.toBeInstanceOf(ConfigError);
      await expect(csv.partitionRowCounts(ctx(asset, null))).rejects.toBeInstanceOf(ConfigError);
      expect(await outside()).toEqual([]);
      expect(await listFiles(base)).toEqual([]);
    });

    it.each(unsafe)("refuses the partition key %j with ConfigError", async (key) => {
      const asset: AssetRef = { ...orders, partitioning: new ListPartitionConfig({ column: "region", values: ["eu"] }) };
      const partition = new RawPartition(key);
      await expect(csv.writePartition(ctx(asset, null), partition, [{ region: key, id: 1 }])).rejects.toBeInstanceOf(ConfigError);
      await expect(csv.readPartition(ctx(asset, null), partition)).rejects.toBeInstanceOf(ConfigError);
      expect(await outside()).toEqual([]);
      expect(await listFiles(base)).toEqual([]);
    });
  });
});

/** Files below `root` whose names are not hidden: what a user browsing the folder sees. */
async function visibleFiles(root: string): Promise<string[]> {
  return (await listFiles(root)).filter((f) => !f.split("/").some((segment) => segment.startsWith(".")));
}

/** The orders table's ledger (see ledger.ts). */
function ledgerPath(base: string): string {
  return join(base, "shop", "orders", ".data.csv.ledger");
}

/** The ledger's well-formed lines, in order: [folder, file identity, metadata]. */
async function ledgerLines(base: string): Promise<Array<[string, string, Record<string, string>]>> {
  const text = await readFile(ledgerPath(base), "utf8");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as [string, string, Record<string, string>]);
}

/**
 * Rewrites the ledger with its last line's count forged, the file identity it names kept, and
 * a checksum that holds (as a writer would have written it: trusted).
 */
async function forgeLedgerRows(base: string, rows: number): Promise<void> {
  const lines = await ledgerLines(base);
  const [folder, file] = lines.at(-1)!;
  await writeFile(ledgerPath(base), entryLine({ folder, file, metadata: { row_count: String(rows) } }));
}
