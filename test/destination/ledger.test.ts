// The ledger every file-backed destination keeps its counts (and object metadata) in: one
// append-only journal per table folder (see src/destination/store/local/ledger.ts). Also the tables
// older versions wrote (a sidecar beside each file, a rewritten per-table index): still read,
// and carried into the ledger the first time they are counted.
import { appendFile, open, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CSVDestination, FileDestination, IOContext, type AssetRef } from "../../src/destination/index.js";
import { LocalObjectStoreDestination } from "../../src/destination/store/index.js";
import { fileIdentity } from "../../src/destination/store/local/file-identity.js";
import { Ledger } from "../../src/destination/store/local/ledger.js";
import { entryLine } from "../../src/destination/store/local/ledger-lines.js";
import { TimePartition, TimePartitionConfig } from "../../src/partitioning/index.js";
import { listFiles, makeTempDir } from "../contract/temp-dir.js";

let dir: { path: string; remove(): Promise<void> };
beforeEach(async () => {
  dir = await makeTempDir("interloper-ledger-");
});
afterEach(async () => {
  await dir.remove();
});

const entry = (folder: string, file: string, rows: number) => ({ folder, file, metadata: { row_count: String(rows) } });

describe("Ledger", () => {
  it("keeps the last line of each folder", async () => {
    const ledger = new Ledger(join(dir.path, ".data.csv.ledger"));
    await ledger.append([entry("date=a", "1", 1), entry("date=b", "2", 2)]);
    await ledger.append([entry("date=a", "3", 3)]);
    const { entries, lines } = await ledger.read();
    expect(lines).toBe(3);
    expect([...entries.values()]).toEqual([entry("date=b", "2", 2), entry("date=a", "3", 3)]);
  });

  it("skips a line cut short by a crash, and the next writer's line survives it", async () => {
    const path = join(dir.path, ".data.csv.ledger");
    const ledger = new Ledger(path);
    await ledger.append([entry("date=a", "1", 1)]);
    const whole = await readFile(path, "utf8");
    // The append of date=b died halfway; then another writer appended date=c.
    await writeFile(path, whole + whole.replace("date=a", "date=b").slice(0, 12));
    await ledger.append([entry("date=c", "3", 3)]);
    const { entries } = await ledger.read();
    expect([...entries.keys()]).toEqual(["date=a", "date=c"]);
  });

  it("skips lines that are not entries, and reads a missing ledger as empty", async () => {
    const path = join(dir.path, ".data.csv.ledger");
    expect((await new Ledger(path).read()).entries.size).toBe(0);
    await writeFile(path, ['["date=a"]', '["date=b","f",{"row_count":3}]', "{}", entryLine(entry("date=c", "f", 3)), "\0\0\0"].join("\n"));
    expect([...(await new Ledger(path).read()).entries.keys()]).toEqual(["date=c"]);
  });

  it("issue 31.18: a line changed in place (one digit of its count) fails its checksum and is skipped, as a cut one is", async () => {
    const path = join(dir.path, ".data.csv.ledger");
    await new Ledger(path).append([entry("date=a", "1", 41), entry("date=b", "2", 5)]);
    const text = await readFile(path, "utf8");
    expect(text).toMatch(/^\n\["date=a","1",\{"row_count":"41"\},"[0-9a-f]{8}"\]\n/);
    await writeFile(path, text.replace('"row_count":"41"', '"row_count":"91"'));
    expect(await new Ledger(path).read()).toEqual({
      entries: new Map([["date=b", entry("date=b", "2", 5)]]),
      earlier: new Map(),
      // Kept apart, never trusted: a record changed this way is reported (see ledger-records.ts).
      rejected: new Map([["date=a", [entry("date=a", "1", 91)]]]),
      lines: 2,
    });
  });

  it("issue 41.25: a line without its checksum (an edited count included) is refused, never trusted, and nothing rewrites it as trusted", async () => {
    const path = join(dir.path, ".data.csv.ledger");
    const bare = (folder: string, file: string, rows: number) => `\n${JSON.stringify([folder, file, { row_count: String(rows) }])}\n`;
    await new Ledger(path).append([entry("date=b", "2", 5)]);
    await appendFile(path, bare("date=a", "1", 4) + bare("date=b", "2", 99));
    expect(await new Ledger(path).read()).toEqual({
      entries: new Map([["date=b", entry("date=b", "2", 5)]]),
      earlier: new Map(),
      rejected: new Map([
        ["date=a", [entry("date=a", "1", 4)]],
        ["date=b", [entry("date=b", "2", 99)]],
      ]),
      lines: 3,
    });
    // A later append leaves the refused lines refused (no rewrite gives them a checksum).
    await new Ledger(path).append([entry("date=c", "4", 7)]);
    const read = await new Ledger(path).read();
    expect([...read.entries.values()].map((e) => e.metadata["row_count"])).toEqual(["5", "7"]);
    expect(read.rejected?.size).toBe(2);
  });

  it("compacts to the last line of each folder still present, once most lines are superseded", async () => {
    const path = join(dir.path, ".data.csv.ledger");
    const ledger = new Ledger(path);
    for (let i = 0; i < 600; i++) await ledger.append([entry("date=a", `a${i}`, i), entry("date=gone", `g${i}`, i)]);
    expect(await ledger.compactIfWorthIt(1_200, ["date=a", "date=gone", ...Array.from({ length: 599 }, (_, i) => `date=${i}`)])).toBe(
      false,
    );
    expect(await ledger.compactIfWorthIt(1_200, ["date=a"])).toBe(true);
    expect(await ledger.read()).toEqual({
      entries: new Map([["date=a", entry("date=a", "a599", 599)]]),
      earlier: new Map(),
      lines: 1,
    });
    expect(await listFiles(dir.path)).toEqual([".data.csv.ledger"]);
  });

  describe("a second read in one process", () => {
    it("reads only what was appended since the last read", async () => {
      const path = join(dir.path, ".data.csv.ledger");
      const ledger = new Ledger(path);
      await ledger.append([entry("date=a", "1", 1)]);
      for (let i = 0; i < 20; i++) await ledger.append([entry(`date=${i}`, `f${i}`, i)]);
      await ledger.read();
      // Changed in place, far before the bytes last read: unseen, proof that it was not read again.
      const text = await readFile(path, "utf8");
      await writeFile(path, text.replace('"f2",{"row_count":"2"}', '"f2",{"row_count":"7"}'));
      await ledger.append([entry("date=b", "2", 2), entry("date=a", "3", 3)]);
      const { entries, lines } = await ledger.read();
      expect(lines).toBe(23);
      expect(entries.get("date=2")).toEqual(entry("date=2", "f2", 2));
      expect(entries.get("date=a")).toEqual(entry("date=a", "3", 3));
      expect([...entries.keys()].slice(-2)).toEqual(["date=b", "date=a"]);
    });

    it("takes a line appended in part only once it is whole", async () => {
      const path = join(dir.path, ".data.csv.ledger");
      const ledger = new Ledger(path);
      await ledger.append([entry("date=a", "1", 1)]);
      const line = entryLine(entry("date=b", "2", 2));
      await appendFile(path, line.slice(0, 20));
      expect([...(await ledger.read()).entries.keys()]).toEqual(["date=a"]);
      await appendFile(path, line.slice(20));
      expect(await ledger.read()).toEqual({
        entries: new Map([
          ["date=a", entry("date=a", "1", 1)],
          ["date=b", entry("date=b", "2", 2)],
        ]),
        earlier: new Map(),
        lines: 2,
      });
    });

    it("reads a journal rewritten in place, shortened, compacted or removed whole again", async () => {
      const path = join(dir.path, ".data.csv.ledger");
      const ledger = new Ledger(path);
      for (let i = 0; i < 600; i++) await ledger.append([entry("date=a", `a${i}`, i), entry("date=b", `b${i}`, i)]);
      expect((await ledger.read()).lines).toBe(1_200);
      // Rewritten in place, larger than before (as an editor saving without a rename would).
      const text = await readFile(path, "utf8");
      await writeFile(path, text.replaceAll('"row_count":"', '"row_count":"1') + text);
      expect((await ledger.read()).entries.get("date=b")).toEqual(entry("date=b", "b599", 599));
      expect((await ledger.read()).lines).toBe(2_400);
      await writeFile(path, entryLine(entry("date=c", "c", 5)));
      expect(await ledger.read()).toEqual({
        entries: new Map([["date=c", entry("date=c", "c", 5)]]),
        earlier: new Map(),
        lines: 1,
      });
      for (let i = 0; i < 1_000; i++) await ledger.append([entry("date=c", `c${i}`, i)]);
      expect((await ledger.read()).lines).toBe(1_001);
      // Another process's compaction renames a new journal in.
      expect(await new Ledger(path).compactIfWorthIt(1_001, ["date=c"])).toBe(true);
      expect(await ledger.read()).toEqual({
        entries: new Map([["date=c", entry("date=c", "c999", 999)]]),
        earlier: new Map(),
        lines: 1,
      });
      await rm(path);
      expect(await ledger.read()).toEqual({ entries: new Map(), earlier: new Map(), lines: 0 });
    });
  });

  it("leaves the ledger alone while another process holds the compaction lock", async () => {
    const path = join(dir.path, ".data.csv.ledger");
    const ledger = new Ledger(path);
    for (let i = 0; i < 1_000; i++) await ledger.append([entry("date=a", `a${i}`, i)]);
    await writeFile(`${path}.compacting`, "");
    expect(await ledger.compactIfWorthIt(1_000, ["date=a"])).toBe(false);
    expect((await ledger.read()).lines).toBe(1_000);
  });
});

const daily = new TimePartitionConfig({ column: "date", start: "2026-01-01" });
const ORDERS: AssetRef = { key: "shop.orders", table: "orders", dataset: "shop", partitioning: daily };
const ctx = (partition: TimePartition | null) => new IOContext({ asset: ORDERS, window: partition, metadata: { runId: "ledger" } });
const rows = (key: string, n: number) => Array.from({ length: n }, (_, i) => ({ date: key, id: i }));
const [A, B, C] = ["2026-01-01", "2026-01-02", "2026-01-03"].map((key) => TimePartition.fromKey(key)) as [
  TimePartition,
  TimePartition,
  TimePartition,
];

/** The identity of a file as the old records named it. */
async function identityOf(path: string): Promise<string> {
  const handle = await open(path, "r");
  try {
    return fileIdentity(await handle.stat({ bigint: true }));
  } finally {
    await handle.close();
  }
}

describe.each([
  { name: "CSVDestination", file: "data.csv", make: (base: string) => new CSVDestination({ basePath: base }) },
  { name: "FileDestination", file: "data.v8", make: (base: string) => new FileDestination({ basePath: base }) },
])("$name: a table in the layout of older versions", ({ file, make }) => {
  /**
   * Three partitions as older versions left them: A counted in the table's index, B only in its
   * sidecar, C in neither. The recorded counts are forged (7, 8): they come back only if the
   * records are read rather than the files recounted.
   */
  async function oldTable(): Promise<string> {
    const destination = make(dir.path);
    for (const partition of [A, B, C]) await destination.writePartition(ctx(partition), partition, rows(partition.key, 3));
    const table = join(dir.path, "shop", "orders");
    await rm(join(table, `.${file}.ledger`));
    const path = (partition: TimePartition) => join(table, `date=${partition.key}`, file);
    await writeFile(
      join(table, `.${file}.date.rows-index.json`),
      JSON.stringify({ [A.key]: { rows: 7, file: await identityOf(path(A)) } }),
    );
    await writeFile(join(table, `date=${B.key}`, `.${file}.rows.json`), JSON.stringify({ rows: 8, file: await identityOf(path(B)) }));
    return table;
  }

  it("counts from the old index and sidecars, then from the ledger they were carried into", async () => {
    const table = await oldTable();
    const destination = make(dir.path);
    expect(await destination.partitionRowCounts(ctx(null))).toEqual({ [A.key]: 7, [B.key]: 8, [C.key]: 3 });
    // Carried over: with the old records gone, the ledger alone gives the same counts.
    await rm(join(table, `.${file}.date.rows-index.json`));
    await rm(join(table, `date=${B.key}`, `.${file}.rows.json`));
    expect(await destination.partitionRowCounts(ctx(null))).toEqual({ [A.key]: 7, [B.key]: 8, [C.key]: 3 });
  });

  it("a new write of an old partition is counted from the ledger, the old records naming the old file ignored", async () => {
    await oldTable();
    const destination = make(dir.path);
    await destination.writePartition(ctx(A), A, rows(A.key, 2));
    await destination.writePartition(ctx(B), B, rows(B.key, 1));
    expect(await destination.partitionRowCounts(ctx(null))).toEqual({ [A.key]: 2, [B.key]: 1, [C.key]: 3 });
  });

  it("issue 31.18: a count changed in the ledger is not trusted: the file is counted again, and the recount appended", async () => {
    const destination = make(dir.path);
    await destination.writePartition(ctx(A), A, rows(A.key, 41));
    const ledger = join(dir.path, "shop", "orders", `.${file}.ledger`);
    await writeFile(ledger, (await readFile(ledger, "utf8")).replace('"row_count":"41"', '"row_count":"91"'));
    expect(await make(dir.path).partitionRowCounts(ctx(null))).toEqual({ [A.key]: 41 });
    expect(await new Ledger(ledger).read()).toMatchObject({ lines: 2 });
  });

  it("a drop removes the ledger and the old records with the data", async () => {
    await oldTable();
    await make(dir.path).dropAsset(ctx(null));
    expect(await listFiles(dir.path)).toEqual([]);
  });
});

describe("LocalObjectStoreDestination: objects with the sidecars of older versions", () => {
  it("reads an old sidecar's metadata for the file it names, and the ledger's once the object is rewritten", async () => {
    const destination = new LocalObjectStoreDestination({ basePath: dir.path, format: "jsonl" });
    for (const partition of [A, B]) await destination.writePartition(ctx(partition), partition, rows(partition.key, 3));
    const table = join(dir.path, "shop", "orders");
    await rm(join(table, ".data.jsonl.ledger"));
    const object = join(table, `date=${A.key}`, "data.jsonl");
    await writeFile(
      join(table, `date=${A.key}`, ".data.jsonl.meta.json"),
      JSON.stringify({ metadata: { row_count: "9" }, contentType: "application/x-ndjson", file: await identityOf(object) }),
    );
    // A: the old sidecar's forged count; B: no record at all, so the object is read and counted.
    expect(await destination.partitionRowCounts(ctx(null))).toEqual({ [A.key]: 9, [B.key]: 3 });
    await destination.writePartition(ctx(A), A, rows(A.key, 1));
    expect(await destination.partitionRowCounts(ctx(null))).toEqual({ [A.key]: 1, [B.key]: 3 });
    expect((await stat(join(table, ".data.jsonl.ledger"))).isFile()).toBe(true);
  });

  it("deleting every object removes the ledgers and folders they leave", async () => {
    const destination = new LocalObjectStoreDestination({ basePath: dir.path, format: "jsonl" });
    for (const partition of [A, B]) await destination.writePartition(ctx(partition), partition, rows(partition.key, 3));
    await destination.dropAsset(ctx(null));
    expect(await listFiles(dir.path)).toEqual([]);
  });
});
