// Provenance (issue 34) in the object stores: the record of each write in the data object's
// metadata, or in a sidecar it names when too large for the backend (S3: 2 KB), the history of
// landed writes, drop, old stores, damaged records and failed puts; over the local backend, S3
// (moto's server) and GCS (the JSON API server of test/support, through the real client).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  GCSDestination,
  IOContext,
  LocalObjectStoreDestination,
  ObjectStoreDestination,
  S3Destination,
  type AssetRef,
  type StoredObject,
} from "../../src/destination/index.js";
import type { Materialization, ProvenanceDraft, UpstreamRead } from "../../src/destination/provenance/materialization.js";
import type { Partition, PartitionWindow } from "../../src/partitioning/index.js";
import { makeTempDir } from "../contract/temp-dir.js";
import { startGcsServer, type GcsServer } from "../support/gcs-server.js";
import { days, orders } from "./helpers.js";
import { motoAvailable, motoWithBucket, TEST_CONNECTION } from "./moto.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const whole: AssetRef = { key: "shop.totals", table: "totals", dataset: "shop", partitioning: null };
const schema = [
  { name: "date", type: "date", nullable: false },
  { name: "id", type: "integer", nullable: false },
] as const;

/** `n` upstream reads of a daily asset: 40 make a record of more than 2 KB. */
function reads(n: number): UpstreamRead[] {
  return Array.from({ length: n }, (_, i) => ({
    asset: "shop.daily_events",
    partition: `2026-01-${String((i % 28) + 1).padStart(2, "0")}#${i}`,
    materialization: `0000${String(i).padStart(4, "0")}-1111-4222-8333-444455556666`,
  }));
}

function draft(upstream: number): ProvenanceDraft {
  return {
    startedAt: "2026-03-01T10:00:00.000Z",
    codeVersion: "v7",
    interloperVersion: "9.9.9",
    upstream: (partition) =>
      partition === null ? reads(upstream) : reads(upstream).map((r) => ({ ...r, asset: `${r.asset}:${partition}` })),
  };
}

interface Call {
  readonly warnings: string[];
  readonly context: IOContext;
}

function call(asset: AssetRef, window: PartitionWindow | Partition | null, upstream = 1, runId = "run-1"): Call {
  const warnings: string[] = [];
  const log = (level: string, message: string) => void (level === "warn" && warnings.push(message));
  const metadata = { runId, backfillId: "bf-1", provenance: draft(upstream) };
  return { warnings, context: new IOContext({ asset, window, schema: [...schema], metadata, log }) };
}

/** The writer's clock, as a fault injected: records end `skew` ms from now (and take `id` when given). */
const clock: { skew: number; id: string | null } = { skew: 0, id: null };
class ClockedContext extends IOContext {
  override materialization(partition: Partition | null, rows: number | null): Materialization {
    const record = super.materialization(partition, rows);
    return { ...record, endedAt: new Date(Date.parse(record.endedAt) + clock.skew).toISOString(), ...(clock.id ? { id: clock.id } : {}) };
  }
}

// Records of writes within one millisecond are ordered by id: a test of the order spaces them.
const tick = () => new Promise((resolve) => setTimeout(resolve, 3));
const rowsOf = (day: string, n: number) => Array.from({ length: n }, (_, i) => ({ date: day, id: i }));

/**
 * Makes its puts of data objects fail, as a backend that loses its connection: "before" the
 * object is stored (after any sidecar went up), or "after" (stored, the answer lost).
 */
type Failing = ObjectStoreDestination & { failData: false | "before" | "after" };
function failing(dest: ObjectStoreDestination): Failing {
  const put = dest.putObject.bind(dest);
  const out: Failing = Object.assign(dest, { failData: false as Failing["failData"] });
  out.putObject = async (name: string, payload: Uint8Array, type: string, metadata: Record<string, string>): Promise<void> => {
    const data = /\/data\.[a-z]+$/.test(name);
    if (data && out.failData === "before") throw new Error(`connection reset while putting ${name}`);
    await put(name, payload, type, metadata);
    if (data && out.failData === "after") throw new Error(`connection reset before the answer to putting ${name}`);
  };
  return out;
}

interface Backend {
  readonly name: string;
  /** A destination over an empty store (a prefix of its own). */
  make(failingPuts?: boolean): ObjectStoreDestination;
  /** The most metadata an object keeps: a larger record goes in a sidecar. */
  readonly inlineUpTo: number;
}

async function listed(dest: ObjectStoreDestination, prefix: string): Promise<StoredObject[]> {
  const out: StoredObject[] = [];
  for await (const object of dest.listObjects(`${dest.prefix}/${prefix}`)) out.push(object);
  return out;
}

/** `history`: whether the backend keeps history objects (S3, GCS); the local one keeps its past records in its ledger instead. */
function provenanceSuite(backend: () => Backend, history = true): void {
  if (!history)
    console.log(
      "provenance-objects: the local backend keeps past records in its ledger, not as history objects: the tests of history objects (a damaged one, pruning them, a skewed writer's own prune) run on S3 and GCS; the ledger's pruning is tested in test/destination/provenance-files.test.ts",
    );
  const jan = (day: number) => days(`2026-01-0${day}`, `2026-01-0${day}`);

  it("writes the record with the data, in its metadata: id, rows, run, backfill, upstream, versions", async () => {
    const dest = backend().make();
    const { context } = call(orders, days("2026-01-01", "2026-01-02"), 2);
    await dest.write(context, [...rowsOf("2026-01-01", 3), ...rowsOf("2026-01-02", 1)]);
    const records = await dest.materializations(call(orders, null).context);
    expect(Object.keys(records).sort()).toEqual(["2026-01-01", "2026-01-02"]);
    const record = records["2026-01-01"]!;
    expect(record.id).toMatch(UUID);
    expect(record).toMatchObject({
      asset: "shop.orders",
      partition: "2026-01-01",
      rows: 3,
      runId: "run-1",
      backfillId: "bf-1",
      startedAt: "2026-03-01T10:00:00.000Z",
      codeVersion: "v7",
      interloperVersion: "9.9.9",
      upstream: reads(2).map((r) => ({ ...r, asset: `${r.asset}:2026-01-01` })),
    });
    expect(records["2026-01-02"]!.rows).toBe(1);
    const [object] = await listed(dest, "shop/orders/date=2026-01-01/data.");
    expect(JSON.parse(object!.metadata["materialization"]!)).toEqual(record);
    expect(object!.metadata["row_count"]).toBe("3");
  });

  it("a rewrite makes a new current record; history is newest first, with limit and partition filter", async () => {
    const dest = backend().make();
    for (const [run, n] of [
      ["r1", 1],
      ["r2", 2],
      ["r3", 3],
    ] as const) {
      await dest.write(call(orders, jan(1), 1, run).context, rowsOf("2026-01-01", n));
      await tick();
      await dest.write(call(orders, jan(2), 1, run).context, rowsOf("2026-01-02", n));
      await tick();
    }
    const { context } = call(orders, null);
    const current = await dest.materializations(context);
    expect(current["2026-01-01"]).toMatchObject({ runId: "r3", rows: 3 });
    const all = await dest.materializationHistory(context, { limit: 100 });
    expect(all.map((r) => `${r.partition}:${r.runId}`)).toEqual([
      "2026-01-02:r3",
      "2026-01-01:r3",
      "2026-01-02:r2",
      "2026-01-01:r2",
      "2026-01-02:r1",
      "2026-01-01:r1",
    ]);
    expect(all[1]).toEqual(current["2026-01-01"]);
    const one = await dest.materializationHistory(context, { partition: jan(1).partitions[0]!, limit: 2 });
    expect(one.map((r) => `${r.partition}:${r.runId}:${r.rows}`)).toEqual(["2026-01-01:r3:3", "2026-01-01:r2:2"]);
    expect(await dest.materializationHistory(context, { limit: 0 })).toEqual([]);
  });

  it("gives the records of the window only, and every stored partition without one", async () => {
    const dest = backend().make();
    await dest.write(
      call(orders, days("2026-01-01", "2026-01-03")).context,
      ["01", "02", "03"].flatMap((d) => rowsOf(`2026-01-${d}`, 1)),
    );
    expect(Object.keys(await dest.materializations(call(orders, days("2026-01-02", "2026-01-05")).context)).sort()).toEqual([
      "2026-01-02",
      "2026-01-03",
    ]);
    expect(Object.keys(await dest.materializations(call(orders, null).context))).toHaveLength(3);
  });

  it('keeps the record of an unpartitioned asset under the key ""', async () => {
    const dest = backend().make();
    await dest.write(call(whole, null, 0, "a").context, rowsOf("2026-01-01", 2));
    await tick();
    await dest.write(call(whole, null, 0, "b").context, rowsOf("2026-01-01", 5));
    const records = await dest.materializations(call(whole, null).context);
    expect(Object.keys(records)).toEqual([""]);
    expect(records[""]).toMatchObject({ partition: null, rows: 5, runId: "b" });
    const past = await dest.materializationHistory(call(whole, null).context, { partition: null, limit: 10 });
    expect(past.map((r) => r.runId)).toEqual(["b", "a"]);
  });

  it("keeps a record of 40 upstream reads (more than S3's 2 KB of metadata) whole, in a sidecar where it does not fit", async () => {
    const b = backend();
    const dest = b.make();
    const { context } = call(orders, jan(1), 40);
    await dest.write(context, rowsOf("2026-01-01", 4));
    const record = (await dest.materializations(call(orders, jan(1)).context))["2026-01-01"]!;
    expect(record.upstream).toHaveLength(40);
    expect(record.upstream[39]).toEqual({ ...reads(40)[39], asset: "shop.daily_events:2026-01-01" });
    const size = JSON.stringify(record).length;
    expect(size).toBeGreaterThan(2048);
    const [object] = await listed(dest, "shop/orders/date=2026-01-01/data.");
    if (size < b.inlineUpTo) {
      expect(object!.metadata["materialization"]).toBeDefined();
    } else {
      expect(object!.metadata).toMatchObject({ row_count: "4", materialization_id: record.id });
      expect(object!.metadata).not.toHaveProperty("materialization");
      const sidecars = await listed(dest, "shop/.materializations/orders/records/");
      expect(sidecars.map((s) => s.name.split("/").slice(-2).join("/"))).toEqual([`date=2026-01-01/${record.id}.json`]);
    }
    expect((await dest.materializationHistory(call(orders, null).context, { limit: 5 }))[0]).toEqual(record);
    expect(await dest.partitionRowCounts(call(orders, null).context)).toEqual({ "2026-01-01": 4 });
  });

  it("a put that fails leaves the old data and the old record, and no history entry", async () => {
    const dest = backend().make(true) as Failing;
    for (const upstream of [1, 40, 200]) {
      await dest.write(call(orders, jan(1), upstream, "good").context, rowsOf("2026-01-01", 2));
      const before = (await dest.materializations(call(orders, null).context))["2026-01-01"]!;
      dest.failData = "before";
      await expect(dest.write(call(orders, jan(1), upstream, "bad").context, rowsOf("2026-01-01", 7))).rejects.toThrow(/connection reset/);
      dest.failData = false;
      expect((await dest.materializations(call(orders, null).context))["2026-01-01"]).toEqual(before);
      expect(await dest.read(call(orders, jan(1)).context)).toHaveLength(2);
      const history = await dest.materializationHistory(call(orders, null).context, { limit: 100 });
      expect(history.every((r) => r.runId === "good")).toBe(true);
      expect(history[0]).toEqual(before);
    }
    // The failed writes' sidecars were taken back: only those of landed large records remain.
    const sidecars = await listed(dest, "shop/.materializations/orders/records/");
    const history = await dest.materializationHistory(call(orders, null).context, { limit: 100 });
    for (const sidecar of sidecars) expect(history.map((r) => r.id)).toContain(sidecar.name.split("/").pop()!.replace(".json", ""));
  });

  it("a put whose data landed but whose answer was lost keeps its sidecar: the record is current and whole", async () => {
    const dest = backend().make(true) as Failing;
    dest.failData = "after";
    await expect(dest.write(call(orders, jan(1), 200, "lost").context, rowsOf("2026-01-01", 3))).rejects.toThrow(/before the answer/);
    const { context, warnings } = call(orders, null);
    const record = (await dest.materializations(context))["2026-01-01"]!;
    expect(record).toMatchObject({ runId: "lost", rows: 3 });
    expect(record.upstream).toHaveLength(200);
    expect(warnings).toEqual([]);
  });

  it("concurrent writers of one partition: the current record is the one whose data is stored", async () => {
    const dest = backend().make();
    await Promise.all([1, 2, 3, 4, 5].map((n) => dest.write(call(orders, jan(1), n * 9, `w${n}`).context, rowsOf("2026-01-01", n))));
    const record = (await dest.materializations(call(orders, null).context))["2026-01-01"];
    const stored = (await dest.read(call(orders, jan(1)).context)) as unknown[];
    // The local folder's ledger line of a losing writer can land last: it names a file that is
    // not the one in place, so the record is unknown (see ledger.ts), never another writer's.
    if (!record && backend().name === "local") return;
    expect(record!.rows).toBe(stored.length);
    expect(record!.runId).toBe(`w${stored.length}`);
    expect(record!.upstream).toHaveLength(stored.length * 9);
  });

  it("a partition's history starts with its current record, though a write that ended after it was put before it, alone or among every partition's", async () => {
    const dest = backend().make();
    // The data of the write "early" waits until "late" has landed: early's record ended first, its data is there.
    const put = dest.putObject.bind(dest);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    dest.putObject = async (name: string, payload: Uint8Array, type: string, metadata: Record<string, string>): Promise<void> => {
      if (/\/data\.[a-z]+$/.test(name) && metadata["materialization"]?.includes('"runId":"early"')) await held;
      await put(name, payload, type, metadata);
    };
    await dest.write(call(orders, jan(2), 1, "other").context, rowsOf("2026-01-02", 1));
    await tick();
    const early = dest.write(call(orders, jan(1), 1, "early").context, rowsOf("2026-01-01", 1));
    await tick();
    await dest.write(call(orders, jan(1), 1, "late").context, rowsOf("2026-01-01", 2));
    release();
    await early;
    const { context } = call(orders, null);
    const current = (await dest.materializations(context))["2026-01-01"]!;
    expect(current).toMatchObject({ runId: "early", rows: 1 });
    const history = await dest.materializationHistory(context, { partition: jan(1).partitions[0]!, limit: 10 });
    expect(history.map((r) => r.runId)).toEqual(["early", "late"]);
    expect(history[0]).toEqual(current);
    // Every partition's history keeps that order, merged with the other partition's by end time.
    const all = await dest.materializationHistory(context, { limit: 10 });
    expect(all.map((r) => r.runId)).toEqual(["early", "late", "other"]);
    expect((await dest.materializationHistory(context, { limit: 1 })).map((r) => r.runId)).toEqual(["early"]);
  });

  it("a store written before records were kept reads as unknown, its counts unchanged", async () => {
    const dest = backend().make();
    // What the code before this change put: the data object with its row count, nothing more.
    const payload = new TextEncoder().encode("id\n1\n2\n");
    await dest.putObject(`${dest.prefix}/shop/orders/date=2026-01-01/data.csv`, payload, "text/csv", { row_count: "2" });
    await dest.write(call(orders, jan(2)).context, rowsOf("2026-01-02", 1));
    const { context, warnings } = call(orders, null);
    expect(Object.keys(await dest.materializations(context))).toEqual(["2026-01-02"]);
    expect(await dest.partitionRowCounts(context)).toEqual({ "2026-01-01": 2, "2026-01-02": 1 });
    expect((await dest.materializationHistory(context, { limit: 10 })).map((r) => r.partition)).toEqual(["2026-01-02"]);
    expect(warnings).toEqual([]);
  });

  it("a damaged record is left out with one warning naming the object; counts and reads unaffected", async () => {
    const dest = backend().make();
    await dest.write(
      call(orders, days("2026-01-01", "2026-01-04")).context,
      ["01", "02", "03", "04"].flatMap((d) => rowsOf(`2026-01-${d}`, 2)),
    );
    const payload = new TextEncoder().encode("id\n1\n2\n");
    const name = (day: string) => `${dest.prefix}/shop/orders/date=2026-01-${day}/data.csv`;
    await dest.putObject(name("01"), payload, "text/csv", { row_count: "2", materialization: '{"id":"hand-edited"' });
    await dest.putObject(name("02"), payload, "text/csv", { row_count: "2", materialization: '{"id":"x","rows":"two"}' });
    await dest.putObject(name("03"), payload, "text/csv", { row_count: "2", materialization_id: "0a0a0a0a-1111-4222-8333-444455556666" });
    const { context, warnings } = call(orders, null);
    expect(Object.keys(await dest.materializations(context))).toEqual(["2026-01-04"]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("3 provenance record(s)");
    expect(warnings[0]).toContain(dest.objectUri(name("01")));
    expect(warnings[0]).not.toContain("\n");
    expect(await dest.partitionRowCounts(context)).toEqual({ "2026-01-01": 2, "2026-01-02": 2, "2026-01-03": 2, "2026-01-04": 2 });
    expect(await dest.read(call(orders, jan(1)).context)).toHaveLength(2);
    // A damaged history entry: left out of the history, with one warning naming it.
    if (!history) return;
    const entries = await listed(dest, "shop/.materializations/orders/history/date=2026-01-04/");
    await dest.putObject(entries[0]!.name, new TextEncoder().encode("{not json"), "application/json", {});
    const later = call(orders, null);
    expect(await dest.materializationHistory(later.context, { limit: 10 })).toHaveLength(3);
    expect(later.warnings).toEqual([expect.stringContaining(dest.objectUri(entries[0]!.name))]);
  });

  it("issue 41.24: a well-formed record naming another asset or partition is left out of the current records and the history, with one warning", async () => {
    const dest = backend().make();
    await dest.write(
      call(orders, days("2026-01-01", "2026-01-03")).context,
      ["01", "02", "03"].flatMap((d) => rowsOf(`2026-01-${d}`, 2)),
    );
    const current = await dest.materializations(call(orders, null).context);
    const payload = new TextEncoder().encode("date,id\n");
    const name = (day: string) => `${dest.prefix}/shop/orders/date=2026-01-${day}/data.csv`;
    // Day 01 holds day 02's record, day 03 another asset's: each well-formed, neither theirs.
    await dest.putObject(name("01"), payload, "text/csv", { row_count: "0", materialization: JSON.stringify(current["2026-01-02"]) });
    const other = { ...current["2026-01-03"]!, asset: "shop.other" };
    await dest.putObject(name("03"), payload, "text/csv", { row_count: "0", materialization: JSON.stringify(other) });
    const { context, warnings } = call(orders, null);
    expect(Object.keys(await dest.materializations(context))).toEqual(["2026-01-02"]);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^(S3|GCS|Local object store): 2 materialization records in .* among those of asset "shop\.orders" name another asset or partition \(the first: asset "shop\.orders" partition 2026-01-02\); left out, read as provenance unknown$/,
      ),
    ]);
    const later = call(orders, null);
    const past = await dest.materializationHistory(later.context, { limit: 10 });
    expect(past.every((record) => record.asset === "shop.orders" && record.partition !== null)).toBe(true);
    // The local store's history is of the partitions holding a record now (see LocalObjectStoreDestination.materializationHistory).
    expect(past.map((record) => record.partition).sort()).toEqual(history ? ["2026-01-01", "2026-01-02", "2026-01-03"] : ["2026-01-02"]);
    expect(later.warnings).toEqual([expect.stringContaining('among those of asset "shop.orders"')]);
  });

  it.skipIf(!history)(
    "issue 41.23: a writer whose clock is a day behind: its own prune keeps its record and its sidecar, and its record is current and first",
    async () => {
      const dest = backend().make();
      const write = (runId: string) => {
        const context = new ClockedContext({
          asset: orders,
          window: jan(1),
          schema: [...schema],
          metadata: { runId, provenance: draft(40) },
        });
        return dest.writePartition(context, context.partitions[0]!, rowsOf("2026-01-01", 1));
      };
      clock.skew = 24 * 60 * 60 * 1000;
      for (let run = 1; run <= 24; run++) await write(`ahead-${run}`);
      // Its id makes it prune (one write in four does, by the first digit of its id).
      Object.assign(clock, { skew: -24 * 60 * 60 * 1000, id: "00000000-1111-4222-8333-444455556666" });
      try {
        await write("behind");
      } finally {
        Object.assign(clock, { skew: 0, id: null });
      }
      const { context, warnings } = call(orders, null);
      expect((await dest.materializations(context))["2026-01-01"]).toMatchObject({ runId: "behind" });
      expect((await dest.materializationHistory(context, { limit: 1 })).map((r) => r.runId)).toEqual(["behind"]);
      expect(warnings).toEqual([]);
    },
    120_000,
  );

  it.skipIf(!history)(
    "keeps at least the last 10 records of a partition, and prunes older ones",
    async () => {
      const dest = backend().make();
      for (let run = 1; run <= 60; run++) {
        await dest.write(call(orders, jan(1), 0, `r${run}`).context, rowsOf("2026-01-01", 1));
        await tick();
      }
      const history = await dest.materializationHistory(call(orders, null).context, { limit: 10 });
      expect(history.map((r) => r.runId)).toEqual(Array.from({ length: 10 }, (_, i) => `r${60 - i}`));
      // A write prunes one time in four (by its random id): 40 writes past 20 entries all skipping it is a 1-in-100,000 chance.
      const entries = await listed(dest, "shop/.materializations/orders/history/");
      expect(entries.length).toBeGreaterThanOrEqual(20);
      expect(entries.length).toBeLessThan(60);
    },
    120_000,
  );

  it("drop removes the records and the history with the data", async () => {
    const dest = backend().make();
    await dest.write(call(orders, jan(1), 40).context, rowsOf("2026-01-01", 1));
    await dest.write(call(orders, jan(1), 200).context, rowsOf("2026-01-01", 1));
    await dest.write(call(whole, null).context, rowsOf("2026-01-01", 1));
    await dest.dropAsset(call(orders, null).context);
    expect(await listed(dest, "shop/orders/")).toEqual([]);
    expect(await listed(dest, "shop/.materializations/orders/")).toEqual([]);
    expect(await dest.materializationHistory(call(orders, null).context, { limit: 10 })).toEqual([]);
    expect(await dest.materializations(call(orders, null).context)).toEqual({});
    // Another asset's records stay.
    expect(await dest.materializationHistory(call(whole, null).context, { limit: 10 })).toHaveLength(1);
  });
}

describe("provenance in LocalObjectStoreDestination", () => {
  let dir: Awaited<ReturnType<typeof makeTempDir>>;
  beforeAll(async () => {
    dir = await makeTempDir("interloper-provenance-");
  });
  afterAll(async () => {
    await dir?.remove();
  });
  let run = 0;
  provenanceSuite(
    () => ({
      name: "local",
      inlineUpTo: Infinity,
      make: (failingPuts = false) => {
        const dest = new LocalObjectStoreDestination({ basePath: dir.path, prefix: `case-${++run}`, format: "csv" });
        return failingPuts ? failing(dest) : dest;
      },
    }),
    false,
  );
});

describe.skipIf(!motoAvailable())("provenance in S3Destination (moto server)", () => {
  const moto = motoWithBucket("provenance");
  let run = 0;
  provenanceSuite(() => ({
    name: "s3",
    inlineUpTo: 2048,
    make: (failingPuts = false) => {
      const dest = new S3Destination({
        bucket: "provenance",
        prefix: `case-${++run}`,
        format: "csv",
        connection: { ...TEST_CONNECTION, endpoint: moto().endpoint },
      });
      return failingPuts ? failing(dest) : dest;
    },
  }));
});

describe("provenance in GCSDestination (JSON API server)", () => {
  let server: GcsServer;
  beforeAll(async () => {
    server = await startGcsServer();
    server.createBucket("provenance");
  });
  afterAll(async () => {
    await server?.stop();
  });
  let run = 0;
  provenanceSuite(() => ({
    name: "gcs",
    inlineUpTo: 8192,
    make: (failingPuts = false) => {
      const dest = new GCSDestination({
        bucket: "provenance",
        prefix: `case-${++run}`,
        format: "csv",
        connection: { projectId: "test", apiEndpoint: server.endpoint },
      });
      return failingPuts ? failing(dest) : dest;
    },
  }));
});

describe("provenance in a user's backend that keeps no custom metadata", () => {
  class Forgetful extends ObjectStoreDestination {
    static override destinationName = "Forgetful";
    readonly objects = new Map<string, Uint8Array>();
    putObject(name: string, payload: Uint8Array): void {
      this.objects.set(name, payload.slice());
    }
    getObject(name: string): Uint8Array | null {
      return this.objects.get(name) ?? null;
    }
    *listObjects(prefix: string): Iterable<StoredObject> {
      for (const name of this.objects.keys()) if (name.startsWith(prefix)) yield { name, metadata: {} };
    }
    objectUri(name: string): string {
      return `mem://${name}`;
    }
  }

  it("works, and reports provenance unknown", async () => {
    const dest = new Forgetful({ format: "csv" });
    await dest.write(call(orders, days("2026-01-01", "2026-01-02"), 40).context, [...rowsOf("2026-01-01", 2), ...rowsOf("2026-01-02", 1)]);
    const { context, warnings } = call(orders, null);
    expect(await dest.materializations(context)).toEqual({});
    expect(await dest.partitionRowCounts(context)).toEqual({ "2026-01-01": 2, "2026-01-02": 1 });
    expect(await dest.read(call(orders, days("2026-01-01", "2026-01-02")).context)).toHaveLength(3);
    expect(warnings).toEqual([]);
  });
});
