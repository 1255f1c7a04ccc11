// Provenance of the local file stores (issue 34): CSVDestination and FileDestination keep each
// write's materialization record in the table's ledger line of that write, appended before the
// file's rename (see src/destination/store/local/file-identity.ts), and give it back through
// `materializations` and `materializationHistory`. Also: stores written before records were
// kept, damaged records, dropping and compaction. Writers SIGKILLed at many moments, a process
// test run once rather than once a zone: test/reliability/crash-file-records.test.ts.
import { randomUUID } from "node:crypto";
import { copyFile, cp, readFile, rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CSVDestination, FileDestination, IOContext, type AssetRef } from "../../src/destination/index.js";
import type { Materialization, ProvenanceDraft } from "../../src/destination/provenance/materialization.js";
import { THIS_HOST } from "../../src/destination/store/local/atomic.js";
import { fileIdentity, identityBeforeRename } from "../../src/destination/store/local/file-identity.js";
import { Ledger } from "../../src/destination/store/local/ledger.js";
import { entryLine, parseLine } from "../../src/destination/store/local/ledger-lines.js";
import { TimePartition, TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import type { Row } from "../../src/representation/index.js";
import { listFiles, makeTempDir } from "../contract/temp-dir.js";

let dir: { path: string; remove(): Promise<void> };
beforeEach(async () => {
  dir = await makeTempDir("interloper-provenance-");
});
afterEach(async () => {
  await dir.remove();
});

const daily = new TimePartitionConfig({ column: "date", start: "2026-01-01" });
const events: AssetRef = { key: "shop.events", table: "events", dataset: "shop", partitioning: daily };
const totals: AssetRef = { key: "shop.totals", table: "totals", dataset: "shop", partitioning: null };
const DAY1 = "2026-01-01";
const DAY2 = "2026-01-02";
const DAY3 = "2026-01-03";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const draft: ProvenanceDraft = {
  startedAt: "2026-02-01T00:00:00.000Z",
  codeVersion: "v7",
  interloperVersion: "9.9.9",
  upstream: (partition) => [{ asset: "shop.raw", partition, materialization: `raw-${partition}` }],
};

function ctx(asset: AssetRef, window: string | [string, string] | null, runId = "run-1", warnings?: string[]): IOContext {
  const range = typeof window === "string" ? new TimePartitionWindow(window, window) : window && new TimePartitionWindow(...window);
  const log = warnings ? (level: string, message: string) => void (level === "warn" && warnings.push(message)) : undefined;
  return new IOContext({ asset, window: range, metadata: { runId, backfillId: "bf-1", provenance: draft }, ...(log && { log }) });
}

/** A writer's clock `skew` ms off, as a fault injected: its records end that far from now. */
class ClockedContext extends IOContext {
  static readonly skews = new WeakMap<IOContext, number>();
  constructor(options: ConstructorParameters<typeof IOContext>[0], skew: number) {
    super(options);
    ClockedContext.skews.set(this, skew);
  }
  override materialization(partition: TimePartition | null, rows: number | null): Materialization {
    const record = super.materialization(partition, rows);
    return { ...record, endedAt: new Date(Date.parse(record.endedAt) + ClockedContext.skews.get(this)!).toISOString() };
  }
}

const rowsOf = (day: string, n: number): Row[] => Array.from({ length: n }, (_, id) => ({ date: day, id }));
const pause = () => new Promise((resolve) => setTimeout(resolve, 3));

const presets = {
  csv: (base: string) => new CSVDestination({ basePath: base }),
  file: (base: string) => new FileDestination({ basePath: base }),
};

async function write(destination: CSVDestination | FileDestination, day: string, rows: number, runId: string): Promise<void> {
  const context = ctx(events, day, runId);
  await destination.writePartition(context, context.partitions[0]!, rowsOf(day, rows));
  // Records are ordered by their end time, in milliseconds.
  await pause();
}

const history = (destination: CSVDestination | FileDestination, partition: string | null | undefined, limit = 100) =>
  destination.materializationHistory(ctx(events, null), {
    ...(partition !== undefined && { partition: partition === null ? null : TimePartition.fromKey(partition) }),
    limit,
  });

for (const [name, make] of Object.entries(presets)) {
  describe(`${name}: materialization records`, () => {
    it("the record is written with the data: every field as the draft and the write give it", async () => {
      const destination = make(dir.path);
      await write(destination, DAY1, 3, "run-1");
      const records = await destination.materializations(ctx(events, DAY1));
      expect(Object.keys(records)).toEqual([DAY1]);
      const record = records[DAY1]!;
      expect(record.id).toMatch(UUID);
      expect(record).toMatchObject({
        asset: "shop.events",
        partition: DAY1,
        runId: "run-1",
        backfillId: "bf-1",
        startedAt: draft.startedAt,
        rows: 3,
        codeVersion: "v7",
        interloperVersion: "9.9.9",
        upstream: [{ asset: "shop.raw", partition: DAY1, materialization: `raw-${DAY1}` }],
      });
      expect(Number.isNaN(Date.parse(record.endedAt))).toBe(false);
    });

    it("a rewrite gives a new current record, and the history is newest first, limited, by partition or whole", async () => {
      const destination = make(dir.path);
      await write(destination, DAY1, 3, "run-1");
      await write(destination, DAY1, 5, "run-2");
      await write(destination, DAY1, 2, "run-3");
      await write(destination, DAY2, 4, "run-4");
      const current = await destination.materializations(ctx(events, [DAY1, DAY2]));
      expect(current[DAY1]).toMatchObject({ runId: "run-3", rows: 2 });
      expect(current[DAY2]).toMatchObject({ runId: "run-4", rows: 4 });
      expect((await history(destination, DAY1)).map((r) => r.runId)).toEqual(["run-3", "run-2", "run-1"]);
      expect((await history(destination, DAY1, 2)).map((r) => r.runId)).toEqual(["run-3", "run-2"]);
      expect((await history(destination, DAY2)).map((r) => r.runId)).toEqual(["run-4"]);
      expect((await history(destination, undefined)).map((r) => r.runId)).toEqual(["run-4", "run-3", "run-2", "run-1"]);
      expect((await history(destination, DAY1))[0]!.id).toBe(current[DAY1]!.id);
    });

    it("the history is in the order the writes landed, the current record first, whatever their end times say", async () => {
      const destination = make(dir.path);
      await write(destination, DAY1, 3, "run-1");
      const file = name === "csv" ? "data.csv" : "data.v8";
      const folder = join(dir.path, "shop", "events", `date=${DAY1}`);
      const ledger = new Ledger(join(dir.path, "shop", "events", `.${file}.ledger`));
      const first = (await destination.materializations(ctx(events, DAY1)))[DAY1]!;
      // A write as LocalFolder.put makes it, with a record of a chosen end time and id: its
      // temporary file, its line naming it and the file it replaces, then its rename. End times
      // are chosen rather than waited for: a record's end is taken in milliseconds, before its
      // line lands, so two writers (or one writer's consecutive writes) may end in one
      // millisecond, and a writer whose record ended first may rename last.
      const land = async (runId: string, endedAt: string, id: string) => {
        const temp = join(folder, `.${file}.tmp-${THIS_HOST}-999999-${id.slice(0, 8)}`);
        await copyFile(join(folder, file), temp);
        const record: Materialization = { ...first, id, runId, endedAt };
        const replacing = identityBeforeRename(await stat(join(folder, file), { bigint: true }));
        const metadata = { row_count: "3", materialization: JSON.stringify(record), replacing };
        await ledger.append([{ folder: `date=${DAY1}`, file: identityBeforeRename(await stat(temp, { bigint: true })), metadata }]);
        await rename(temp, join(folder, file));
      };
      // Three writes ending in one millisecond, the later ones with the smaller ids (ids are random:
      // ordered by them, the last write's record came last half the time).
      const sameMs = new Date(Date.parse(first.endedAt) + 1).toISOString();
      await land("run-2", sameMs, "ffffffff-0000-4000-8000-000000000000");
      await land("run-3", sameMs, "88888888-0000-4000-8000-000000000000");
      await land("run-4", sameMs, "00000000-0000-4000-8000-000000000000");
      // A write whose record ended before those three, renamed after them: its data is there.
      await land("run-5", first.endedAt, "44444444-0000-4000-8000-000000000000");
      await write(destination, DAY2, 4, "run-day2");
      const expected = ["run-5", "run-4", "run-3", "run-2", "run-1"];
      expect((await destination.materializations(ctx(events, DAY1)))[DAY1]).toMatchObject({ runId: "run-5" });
      expect((await history(destination, DAY1)).map((r) => r.runId)).toEqual(expected);
      // Every partition's history at once keeps each partition's order.
      expect((await history(destination, undefined)).map((r) => r.runId)).toEqual(["run-day2", ...expected]);
      // The same once a compaction has moved the past records to the history beside the ledger.
      expect(await ledger.compactIfWorthIt(Number.MAX_SAFE_INTEGER, [`date=${DAY1}`, `date=${DAY2}`])).toBe(true);
      expect((await history(destination, DAY1)).map((r) => r.runId)).toEqual(expected);
    });

    it("an older line naming the very identity of the file there (a reused inode, same size and mtime) is neither its record nor history", async () => {
      const destination = make(dir.path);
      await write(destination, DAY1, 3, "run-1");
      const file = name === "csv" ? "data.csv" : "data.v8";
      const path = join(dir.path, "shop", "events", `.${file}.ledger`);
      const there = identityBeforeRename(await stat(join(dir.path, "shop", "events", `date=${DAY1}`, file), { bigint: true }));
      const own = (await destination.materializations(ctx(events, DAY1)))[DAY1]!;
      // What a removed file of the same inode, size and modification time would have left: a line
      // older than the file's own, naming the same four parts, with another write's record.
      const stale: Materialization = { ...own, id: randomUUID(), runId: "stale" };
      const line = entryLine({ folder: `date=${DAY1}`, file: there, metadata: { row_count: "3", materialization: JSON.stringify(stale) } });
      await writeFile(path, line + (await readFile(path, "utf8")));
      const fresh = make(dir.path);
      expect((await fresh.materializations(ctx(events, DAY1)))[DAY1]).toMatchObject({ runId: "run-1", id: own.id });
      await write(fresh, DAY1, 2, "run-2");
      expect((await history(fresh, DAY1)).map((r) => r.runId)).toEqual(["run-2", "run-1"]);
    });

    it("materializations gives the window's partitions, or every stored one without a window", async () => {
      const destination = make(dir.path);
      for (const day of [DAY1, DAY2, DAY3]) await write(destination, day, 1, `run-${day}`);
      expect(Object.keys(await destination.materializations(ctx(events, [DAY1, DAY2])))).toEqual([DAY1, DAY2]);
      expect(Object.keys(await destination.materializations(ctx(events, "2026-01-09")))).toEqual([]);
      expect(Object.keys(await destination.materializations(ctx(events, null)))).toEqual([DAY1, DAY2, DAY3]);
    });

    it('an unpartitioned asset has its record under "", in a ledger of its own folder', async () => {
      const destination = make(dir.path);
      await destination.writePartition(ctx(totals, null, "run-1"), null, rowsOf(DAY1, 2));
      await pause();
      await destination.writePartition(ctx(totals, null, "run-2"), null, rowsOf(DAY1, 6));
      const records = await destination.materializations(ctx(totals, null));
      expect(Object.keys(records)).toEqual([""]);
      expect(records[""]).toMatchObject({ partition: null, runId: "run-2", rows: 6 });
      const past = await destination.materializationHistory(ctx(totals, null), { partition: null, limit: 10 });
      expect(past.map((r) => r.runId)).toEqual(["run-2", "run-1"]);
      expect((await destination.materializationHistory(ctx(totals, null), { limit: 10 })).map((r) => r.runId)).toEqual(["run-2", "run-1"]);
      const file = name === "csv" ? "data.csv" : "data.v8";
      expect(await listFiles(join(dir.path, "shop"))).toEqual([`totals/.${file}.ledger`, `totals/${file}`]);
    });

    it("counting gives each counted partition's current record, the one materializations gives", async () => {
      const destination = make(dir.path);
      for (const day of [DAY1, DAY2]) await write(destination, day, 3, `run-${day}`);
      await write(destination, DAY2, 5, "run-again");
      const counted = await destination.partitionCounts(ctx(events, null));
      expect(counted.counts).toEqual({ [DAY1]: 3, [DAY2]: 5 });
      expect({ ...counted.records }).toEqual({ ...(await destination.materializations(ctx(events, null))) });
      expect(counted.records![DAY2]!.runId).toBe("run-again");
    });

    it("issue 41.23: writers a day ahead then a day behind: the ledger's order, never their clocks, makes the current record and the history, compaction included", async () => {
      const destination = make(dir.path);
      const writeAt = async (runId: string, skew: number) => {
        const context = new ClockedContext(
          { asset: events, window: new TimePartitionWindow(DAY1, DAY1), metadata: { runId, provenance: draft } },
          skew,
        );
        await destination.writePartition(context, context.partitions[0]!, rowsOf(DAY1, 1));
      };
      const day = 24 * 60 * 60 * 1000;
      for (let i = 1; i <= 12; i++) await writeAt(`ahead-${i}`, day);
      await writeAt("behind", -day);
      const ledger = new Ledger(join(dir.path, "shop", "events", `.${name === "csv" ? "data.csv" : "data.v8"}.ledger`));
      expect(await ledger.compactIfWorthIt(Number.MAX_SAFE_INTEGER, [`date=${DAY1}`])).toBe(true);
      expect((await destination.materializations(ctx(events, DAY1)))[DAY1]).toMatchObject({ runId: "behind" });
      expect((await history(destination, DAY1)).map((r) => r.runId)).toEqual([
        "behind",
        ...Array.from({ length: 10 }, (_, i) => `ahead-${12 - i}`),
      ]);
    });

    it("issue 41.4: a copy of the data folder (new devices and inodes) keeps every record and the history, hashed once", async () => {
      const destination = make(dir.path);
      for (const day of [DAY1, DAY2]) await write(destination, day, 3, `run-${day}`);
      await write(destination, DAY1, 4, "run-again");
      const before = await destination.materializations(ctx(events, null));
      const past = (await history(destination, undefined)).map((r) => r.id);
      const copy = join(dir.path, "copy");
      await cp(join(dir.path, "shop"), join(copy, "shop"), { recursive: true, preserveTimestamps: true });
      const copied = make(copy);
      const warnings: string[] = [];
      const counted = await copied.partitionCounts(ctx(events, null, "run-x", warnings));
      expect(counted.counts).toEqual({ [DAY1]: 4, [DAY2]: 3 });
      expect({ ...counted.records }).toEqual({ ...before });
      expect({ ...(await copied.materializations(ctx(events, null, "run-x", warnings))) }).toEqual({ ...before });
      expect((await copied.materializationHistory(ctx(events, null, "run-x", warnings), { limit: 100 })).map((r) => r.id)).toEqual(past);
      expect(warnings).toEqual([]);
      // Each copy got a line of its own: the next reads know it by its identity again, without hashing.
      const ledger = join(copy, "shop", "events", `.${name === "csv" ? "data.csv" : "data.v8"}.ledger`);
      const copyLines = (await readFile(ledger, "utf8")).split("\n").filter((line) => line.includes('"same_as"'));
      expect(copyLines).toHaveLength(2);
      await copied.materializations(ctx(events, null));
      expect((await readFile(ledger, "utf8")).split("\n").filter((line) => line.includes('"same_as"'))).toHaveLength(2);
      // A write after the copy: the copied write's record is history, the new one current.
      const context = ctx(events, DAY1, "run-after");
      await copied.writePartition(context, context.partitions[0]!, rowsOf(DAY1, 1));
      expect(
        (await copied.materializationHistory(ctx(events, DAY1), { partition: TimePartition.fromKey(DAY1), limit: 10 })).map((r) => r.runId),
      ).toEqual(["run-after", "run-again", `run-${DAY1}`]);
    });

    // Edited as text: a CSV file (a FileDestination value holds no text to edit).
    if (name === "csv")
      it("issue 41.4: a file edited by hand reads as changed outside interloper, its earlier history kept", async () => {
        const destination = make(dir.path);
        await write(destination, DAY1, 3, "run-1");
        await write(destination, DAY1, 2, "run-2");
        await write(destination, DAY2, 3, "run-day2");
        const file = join(dir.path, "shop", "events", `date=${DAY1}`, "data.csv");
        await writeFile(file, `${await readFile(file, "utf8")}${DAY1},99\n`);
        const warnings: string[] = [];
        expect(Object.keys(await destination.materializations(ctx(events, null, "run-x", warnings)))).toEqual([DAY2]);
        expect(warnings).toEqual([
          `CSVDestination: asset "shop.events": partition ${DAY1} changed outside interloper (${file} matches none of its records); provenance unknown until written again`,
        ]);
        // Counting recounts it (3 rows), and gives no records, for coverage to ask materializations, which says so.
        const counted = await destination.partitionCounts(ctx(events, null));
        expect(counted.counts).toEqual({ [DAY1]: 3, [DAY2]: 3 });
        expect(counted.records).toBeUndefined();
        const historyWarnings: string[] = [];
        const past = await destination.materializationHistory(ctx(events, DAY1, "run-x", historyWarnings), {
          partition: TimePartition.fromKey(DAY1),
          limit: 10,
        });
        expect(past.map((r) => r.runId)).toEqual(["run-2", "run-1"]);
        expect(historyWarnings).toEqual([expect.stringContaining("changed outside interloper")]);
      });

    it("issue 41.24: a well-formed record naming another asset or partition is left out of the current records, counting and the history, with one warning", async () => {
      const destination = make(dir.path);
      for (const day of [DAY1, DAY2, DAY3]) await write(destination, day, 3, `run-${day}`);
      await write(destination, DAY2, 4, "run-again");
      const path = join(dir.path, "shop", "events", `.${name === "csv" ? "data.csv" : "data.v8"}.ledger`);
      // Each record rewritten as another's, its line's checksum made to hold (as a copied or moved ledger's would).
      const retold = (line: string, change: (record: Materialization) => Materialization) => {
        const [folder, file, metadata] = parseLine(line) as [string, string, Record<string, string>];
        const record = change(JSON.parse(metadata["materialization"]!) as Materialization);
        return entryLine({ folder, file, metadata: { ...metadata, materialization: JSON.stringify(record) } }).trim();
      };
      const lines = (await readFile(path, "utf8")).split("\n").filter(Boolean);
      // DAY1: another asset's. DAY2: its earlier write names another asset, its current one another partition.
      lines[0] = retold(lines[0]!, (record) => ({ ...record, asset: "shop.other" }));
      lines[1] = retold(lines[1]!, (record) => ({ ...record, asset: "shop.other" }));
      lines[3] = retold(lines[3]!, (record) => ({ ...record, partition: DAY3 }));
      await writeFile(path, lines.map((line) => `\n${line}\n`).join(""));
      const warnings: string[] = [];
      expect(Object.keys(await destination.materializations(ctx(events, null, "run-x", warnings)))).toEqual([DAY3]);
      expect(warnings).toEqual([
        `${name === "csv" ? "CSVDestination" : "FileDestination"}: 2 materialization records in ${path} among those of asset "shop.events" name another asset or partition (the first: asset "shop.other" partition ${DAY1}); left out, read as provenance unknown`,
      ]);
      // Counting gives no records then, for coverage to ask materializations, which leaves them out and warns.
      const counted = await destination.partitionCounts(ctx(events, null));
      expect(counted.counts).toEqual({ [DAY1]: 3, [DAY2]: 4, [DAY3]: 3 });
      expect(counted.records).toBeUndefined();
      const historyWarnings: string[] = [];
      const past = await destination.materializationHistory(ctx(events, null, "run-x", historyWarnings), { limit: 10 });
      expect(past.map((r) => r.runId)).toEqual([`run-${DAY3}`]);
      expect(historyWarnings).toHaveLength(1);
      expect(historyWarnings[0]).toContain("3 materialization records");
    });

    it("a damaged record and a record edited by hand are left out with one warning naming the ledger; counts and data unaffected", async () => {
      const destination = make(dir.path);
      for (const day of [DAY1, DAY2, DAY3]) await write(destination, day, 3, `run-${day}`);
      const path = join(dir.path, "shop", "events", `.${name === "csv" ? "data.csv" : "data.v8"}.ledger`);
      const lines = (await readFile(path, "utf8")).split("\n").filter(Boolean);
      // DAY1: a well-formed line whose record is not one (another version's, or rewritten by a tool).
      const [folder, file, metadata] = parseLine(lines[0]!) as [string, string, Record<string, string>];
      lines[0] = entryLine({ folder, file, metadata: { ...metadata, materialization: '{"id":"x","rows":"three"}' } }).trim();
      // DAY2: one digit of its record changed in place (its checksum no longer holds).
      lines[1] = lines[1]!.replace('\\"rows\\":3', '\\"rows\\":4');
      await writeFile(path, lines.map((line) => `\n${line}\n`).join(""));
      const warnings: string[] = [];
      const records = await destination.materializations(ctx(events, null, "run-x", warnings));
      expect(Object.keys(records)).toEqual([DAY3]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(path);
      expect(await destination.partitionRowCounts(ctx(events, null))).toEqual({ [DAY1]: 3, [DAY2]: 3, [DAY3]: 3 });
      // Counting gives no records then: coverage asks materializations, which warns.
      expect((await destination.partitionCounts(ctx(events, null))).records).toBeUndefined();
      expect(await destination.read(ctx(events, [DAY1, DAY3]))).toHaveLength(9);
      const historyWarnings: string[] = [];
      const past = await destination.materializationHistory(ctx(events, null, "run-x", historyWarnings), { limit: 10 });
      expect(past.map((r) => r.runId)).toEqual([`run-${DAY3}`]);
      expect(historyWarnings).toHaveLength(1);
    });

    it("dropping the asset removes its records and history; a new write starts a new one", async () => {
      const destination = make(dir.path);
      await write(destination, DAY1, 3, "run-1");
      await write(destination, DAY1, 4, "run-2");
      await destination.dropAsset(ctx(events, null));
      expect(await destination.materializations(ctx(events, null))).toEqual({});
      expect(await history(destination, undefined)).toEqual([]);
      await write(destination, DAY1, 1, "run-3");
      expect((await history(destination, undefined)).map((r) => r.runId)).toEqual(["run-3"]);
      // An unpartitioned asset too: its ledger is in its own folder, dropped with it.
      await destination.writePartition(ctx(totals, null, "run-4"), null, rowsOf(DAY1, 2));
      await destination.dropAsset(ctx(totals, null));
      await destination.writePartition(ctx(totals, null, "run-5"), null, rowsOf(DAY1, 2));
      const past = await destination.materializationHistory(ctx(totals, null), { limit: 10 });
      expect(past.map((r) => r.runId)).toEqual(["run-5"]);
    });

    it("a compaction keeps the current record and the last HISTORY_KEPT of each partition, and no record of a write that never landed", async () => {
      const destination = make(dir.path);
      for (let i = 1; i <= 14; i++) await write(destination, DAY1, i, `run-${i}`);
      await write(destination, DAY2, 2, "run-day2");
      const path = join(dir.path, "shop", "events", `.${name === "csv" ? "data.csv" : "data.v8"}.ledger`);
      const ledger = new Ledger(path);
      // A write killed between its append and its rename: its line names a file never at the path.
      const killed: Materialization = { ...(await destination.materializations(ctx(events, DAY1)))[DAY1]!, id: "killed", runId: "killed" };
      const nowNs = BigInt(Date.now()) * 1_000_000n;
      await ledger.append([
        { folder: `date=${DAY1}`, file: `1:2:3:${nowNs}`, metadata: { row_count: "9", materialization: JSON.stringify(killed) } },
      ]);
      expect(await ledger.compactIfWorthIt(Number.MAX_SAFE_INTEGER, [`date=${DAY1}`, `date=${DAY2}`])).toBe(true);
      const lines = (await readFile(path, "utf8")).split("\n").filter(Boolean);
      // The current line of each partition, and the killed write's (it may still be under way).
      expect(lines).toHaveLength(3);
      expect(await listFiles(join(dir.path, "shop", "events"))).toContain(`.${name === "csv" ? "data.csv" : "data.v8"}.ledger.history`);
      const current = await destination.materializations(ctx(events, null));
      expect(current[DAY1]).toMatchObject({ runId: "run-14", rows: 14 });
      expect(current[DAY2]).toMatchObject({ runId: "run-day2", rows: 2 });
      const past = (await history(destination, DAY1)).map((r) => r.runId);
      expect(past).toEqual(["run-14", ...Array.from({ length: 10 }, (_, i) => `run-${13 - i}`)]);
      expect(await destination.partitionRowCounts(ctx(events, null))).toEqual({ [DAY1]: 14, [DAY2]: 2 });
      // Writes after the compaction add to the history; a second compaction keeps the last ten.
      await write(destination, DAY1, 15, "run-15");
      expect(await ledger.compactIfWorthIt(Number.MAX_SAFE_INTEGER, [`date=${DAY1}`, `date=${DAY2}`])).toBe(true);
      expect((await history(destination, DAY1)).map((r) => r.runId)).toEqual([
        "run-15",
        ...Array.from({ length: 10 }, (_, i) => `run-${14 - i}`),
      ]);
      expect((await history(destination, undefined)).map((r) => r.runId)).not.toContain("killed");
    });

    it("a write killed between its ledger append and its rename: never current, never history; killed just after the rename: both", async () => {
      const destination = make(dir.path);
      await write(destination, DAY1, 3, "run-1");
      const file = name === "csv" ? "data.csv" : "data.v8";
      const folder = join(dir.path, "shop", "events", `date=${DAY1}`);
      // What a killed writer leaves: its temporary file, complete, and its line naming it.
      const temp = join(folder, `.${file}.tmp-${THIS_HOST}-999999-0000abcd`);
      await copyFile(join(folder, file), temp);
      const current = (await destination.materializations(ctx(events, DAY1)))[DAY1]!;
      const ledger = new Ledger(join(dir.path, "shop", "events", `.${file}.ledger`));
      // As LocalFolder.put writes it: naming the temporary file, and the file it found at the path.
      const append = async (runId: string) => {
        const record: Materialization = { ...current, id: randomUUID(), runId, endedAt: new Date().toISOString() };
        const replacing = identityBeforeRename(await stat(join(folder, file), { bigint: true }));
        const metadata = { row_count: "3", materialization: JSON.stringify(record), replacing };
        await ledger.append([{ folder: `date=${DAY1}`, file: identityBeforeRename(await stat(temp, { bigint: true })), metadata }]);
      };
      await append("killed-before-rename");
      expect((await destination.materializations(ctx(events, DAY1)))[DAY1]).toMatchObject({ runId: "run-1" });
      expect((await history(destination, DAY1)).map((r) => r.runId)).toEqual(["run-1"]);
      await write(destination, DAY1, 2, "run-2");
      expect((await history(destination, DAY1)).map((r) => r.runId)).toEqual(["run-2", "run-1"]);
      await pause();
      // The same, killed just after its rename: its file and its record are current together...
      await append("killed");
      await rename(temp, join(folder, file));
      expect((await destination.materializations(ctx(events, DAY1)))[DAY1]).toMatchObject({ runId: "killed", rows: 3 });
      expect(await destination.partitionRowCounts(ctx(events, null))).toEqual({ [DAY1]: 3 });
      // ...and once replaced, it is history: the next write found its file at the path.
      await write(destination, DAY1, 1, "run-3");
      expect((await history(destination, DAY1)).map((r) => r.runId)).toEqual(["run-3", "killed", "run-2", "run-1"]);
      const ledgerText = await readFile(ledger.path, "utf8");
      expect(ledgerText).toContain("killed-before-rename");
    });

    it("a write that fails leaves the old data and the old record", async () => {
      const destination = make(dir.path);
      await write(destination, DAY1, 3, "run-1");
      const context = ctx(events, DAY1, "run-2");
      const failing =
        destination instanceof CSVDestination
          ? destination.writePartitionStream(
              context,
              context.partitions[0]!,
              (async function* () {
                yield rowsOf(DAY1, 5);
                throw new Error("the source failed");
              })(),
            )
          : destination.writePartition(context, context.partitions[0]!, [{ date: DAY1, f: () => 1 }]);
      await expect(failing).rejects.toThrow();
      expect(await destination.read(ctx(events, DAY1))).toHaveLength(3);
      expect((await destination.materializations(ctx(events, DAY1)))[DAY1]).toMatchObject({ runId: "run-1", rows: 3 });
      expect((await history(destination, DAY1)).map((r) => r.runId)).toEqual(["run-1"]);
    });
  });
}

describe("csv: a streamed write", () => {
  it("records the final row count, known once the stream is consumed", async () => {
    const destination = new CSVDestination({ basePath: dir.path });
    const context = ctx(events, DAY1, "run-s");
    await destination.writePartitionStream(
      context,
      context.partitions[0]!,
      (async function* () {
        for (let i = 0; i < 5; i++) yield rowsOf(DAY1, 7);
      })(),
    );
    expect((await destination.materializations(ctx(events, DAY1)))[DAY1]).toMatchObject({ runId: "run-s", rows: 35 });
  });
});

describe("a store written before records were kept (fixtures/store-0.1)", () => {
  for (const name of ["csv", "file"] as const) {
    it(`${name}: its partitions have unknown provenance (absent, no warning), counts unchanged; a new write has its record`, async () => {
      await cp(join(import.meta.dirname, "fixtures", "store-0.1", name), dir.path, { recursive: true });
      const destination = presets[name](dir.path);
      const orders: AssetRef = { key: "shop.orders", table: "orders", dataset: "shop", partitioning: daily };
      const customers: AssetRef = { key: "shop.customers", table: "customers", dataset: "shop", partitioning: null };
      const warnings: string[] = [];
      const window: [string, string] = [DAY1, DAY2];
      expect(await destination.materializations(ctx(orders, null, "r", warnings))).toEqual({});
      expect(await destination.materializations(ctx(customers, null, "r", warnings))).toEqual({});
      expect(await destination.materializationHistory(ctx(orders, null, "r", warnings), { limit: 10 })).toEqual([]);
      expect(warnings).toEqual([]);
      // The file fixture holds one value a partition, the CSV one three rows.
      const rows = name === "csv" ? 3 : 1;
      expect(await destination.partitionRowCounts(ctx(orders, null))).toEqual({ [DAY1]: rows, [DAY2]: rows });
      const context = ctx(orders, DAY2, "run-new");
      await destination.writePartition(context, context.partitions[0]!, rowsOf(DAY2, 1));
      expect(Object.keys(await destination.materializations(ctx(orders, window)))).toEqual([DAY2]);
      expect(await destination.partitionRowCounts(ctx(orders, null))).toEqual({ [DAY1]: rows, [DAY2]: 1 });
    });
  }
});

describe("a ledger written before records were kept (lines naming the file after its rename, no record)", () => {
  for (const name of ["csv", "file"] as const) {
    it(`${name}: its partitions have unknown provenance, and their counts are still served from the ledger`, async () => {
      const destination = presets[name](dir.path);
      await write(destination, DAY1, 3, "run-1");
      const file = name === "csv" ? "data.csv" : "data.v8";
      const table = join(dir.path, "shop", "events");
      // The ledger as the previous version left it: one line naming the five parts, a count only.
      const identity = fileIdentity(await stat(join(table, `date=${DAY1}`, file), { bigint: true }));
      await writeFile(join(table, `.${file}.ledger`), entryLine({ folder: `date=${DAY1}`, file: identity, metadata: { row_count: "77" } }));
      const warnings: string[] = [];
      expect(await destination.materializations(ctx(events, null, "r", warnings))).toEqual({});
      expect(await destination.materializationHistory(ctx(events, null, "r", warnings), { limit: 10 })).toEqual([]);
      expect(warnings).toEqual([]);
      // 77, not 3: proof that the old line still serves the count.
      expect(await destination.partitionRowCounts(ctx(events, null))).toEqual({ [DAY1]: 77 });
      await write(destination, DAY1, 2, "run-2");
      expect((await history(destination, DAY1)).map((r) => r.runId)).toEqual(["run-2"]);
      expect(await destination.partitionRowCounts(ctx(events, null))).toEqual({ [DAY1]: 2 });
    });
  }
});
