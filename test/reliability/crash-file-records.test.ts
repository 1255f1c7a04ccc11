// Issue 34, rule 1 on the local file stores: a writer process (file-provenance-writer.mjs, through
// the built package) SIGKILLed at a random moment, again and again, mid-write or between writes;
// after each kill every stored partition's current record names the data there, no write that
// never landed is in the history, and of two writers killed at once each partition's record is
// that of the writer whose data is there. CSVDestination and FileDestination; the SQL
// destinations: crash-sql-records.test.ts. (Moved from test/destination/provenance-files.test.ts:
// a process test, run once rather than once a time zone.)
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CSVDestination, FileDestination, IOContext, type AssetRef } from "../../src/destination/index.js";
import { TimePartition, TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import { ROOT } from "../e2e/helpers.js";
import { ensureBuilt, useTempDirs } from "./helpers.js";

const tempDir = useTempDirs();

const presets = {
  csv: (base: string) => new CSVDestination({ basePath: base }),
  file: (base: string) => new FileDestination({ basePath: base }),
};

/** A read's context: one partition by key, or none (the whole asset). */
function ctx(asset: AssetRef, key: string | null): IOContext {
  return new IOContext({ asset, window: key === null ? null : new TimePartitionWindow(key, key), metadata: { runId: "check" } });
}

// A real writer process (file-provenance-writer.mjs, through dist) writes partitions in a loop and is
// SIGKILLed at a random moment, again and again; after each kill, what the store holds is checked.
const CYCLES = 10;
/** The asset file-provenance-writer.mjs writes. */
const WRITER_ASSET: AssetRef = {
  key: "prov.events",
  table: "events",
  dataset: "prov",
  partitioning: new TimePartitionConfig({ column: "date", start: "2020-01-01" }),
};

describe("writers SIGKILLed at many moments", () => {
  beforeAll(ensureBuilt, 180_000);

  for (const kind of ["csv", "file"] as const) {
    it(`${kind}: every partition's current record names the data there, and no write that never landed is in the history`, async () => {
      const base = await tempDir();
      const destination = presets[kind](base);
      const asset = WRITER_ASSET;
      const check = ctx(asset, null);
      // Writes whose data landed (completed, or killed after the rename), in order; writes killed before it.
      const landed = new Map<string, string[]>();
      const neverLanded = new Set<string>();
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const { started, done } = await killedWriter(kind, base, cycle, Math.random() * 150);
        for (const run of done) landed.set(started.get(run)!.key, [...(landed.get(started.get(run)!.key) ?? []), run]);
        const killed = [...started.keys()].find((run) => !done.has(run));
        const current = await destination.materializations(check);
        const counts = await destination.partitionRowCounts(check);
        for (const [key, record] of Object.entries(current)) {
          const data = (await destination.read(ctx(asset, key))) as Array<{ run: string }>;
          const rows = data.length;
          expect(record.rows, `cycle ${cycle}: the record of ${key} names the rows there`).toBe(rows);
          expect(record.runId, `cycle ${cycle}: the record of ${key} is of the write whose data is there`).toBe(data[0]!.run);
          expect(counts[key]).toBe(rows);
          const runs = landed.get(key) ?? [];
          if (record.runId === killed) landed.set(key, [...runs, killed]);
          else expect(record.runId, `cycle ${cycle}: ${key}'s record is its last write's`).toBe(runs.at(-1));
        }
        expect(Object.keys(current).sort(), "every stored partition has its record").toEqual(Object.keys(counts).sort());
        if (killed !== undefined && !Object.values(current).some((record) => record.runId === killed)) neverLanded.add(killed);
        for (const key of Object.keys(current)) {
          const query = { partition: TimePartition.fromKey(key), limit: 100 };
          const past = (await destination.materializationHistory(check, query)).map((record) => record.runId);
          const runs = landed.get(key)!;
          expect(past[0]).toBe(current[key]!.runId);
          for (const run of past) expect(neverLanded.has(run), `cycle ${cycle}: ${run} never landed, yet is in the history`).toBe(false);
          expect(new Set(past)).toEqual(new Set(runs.slice(-past.length)));
          expect(past.length).toBeGreaterThanOrEqual(Math.min(runs.length, 10));
        }
      }
    }, 240_000);

    it(`${kind}: two writers of the same partitions at once, both killed: each partition's record is that of the writer whose data is there`, async () => {
      const base = await tempDir();
      const destination = presets[kind](base);
      const check = ctx(WRITER_ASSET, null);
      const started = new Set<string>();
      for (let cycle = 0; cycle < CYCLES / 2; cycle++) {
        const writers = await Promise.all([0, 1].map(() => killedWriter(kind, base, cycle, 20 + Math.random() * 150)));
        for (const writer of writers) for (const run of writer.started.keys()) started.add(run);
        const current = await destination.materializations(check);
        const counts = await destination.partitionRowCounts(check);
        expect(Object.keys(current).sort(), "every stored partition has its record").toEqual(Object.keys(counts).sort());
        for (const [key, record] of Object.entries(current)) {
          const data = (await destination.read(ctx(WRITER_ASSET, key))) as Array<{ run: string }>;
          expect(record.runId, `cycle ${cycle}: the record of ${key} is of the write whose data is there`).toBe(data[0]!.run);
          expect(record.rows).toBe(data.length);
          expect(counts[key]).toBe(data.length);
          const query = { partition: TimePartition.fromKey(key), limit: 100 };
          const past = await destination.materializationHistory(check, query);
          expect(past[0]!.id).toBe(record.id);
          for (const run of past.map((r) => r.runId)) expect(started.has(run)).toBe(true);
        }
      }
    }, 240_000);
  }
});

/** Starts a writer, SIGKILLs it `afterMs` after it is ready, and gives what it said it started and completed. */
async function killedWriter(
  kind: string,
  base: string,
  cycle: number,
  afterMs: number,
): Promise<{ started: Map<string, { key: string }>; done: Set<string> }> {
  const child = spawn(process.execPath, [join(ROOT, "test", "reliability", "file-provenance-writer.mjs"), kind, base, String(cycle)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = once(child, "exit");
  let out = "";
  let timer: NodeJS.Timeout | null = null;
  child.stdout!.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    if (out.startsWith("ready\n")) timer ??= setTimeout(() => child.kill("SIGKILL"), afterMs);
  });
  const [code, signal] = await exited;
  expect(signal, `the writer exited by itself (${code})`).toBe("SIGKILL");
  const started = new Map<string, { key: string }>();
  const done = new Set<string>();
  for (const line of out.split("\n")) {
    const [what, run, key] = line.split(" ");
    if (what === "start") started.set(run!, { key: key! });
    else if (what === "done") done.add(run!);
  }
  return { started, done };
}
