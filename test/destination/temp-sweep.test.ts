// Temporary files of dead writers: how they are named, judged stale and swept, with real files
// and real processes (a dead pid is the pid of a child that has exited and been reaped).
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { lstat, mkdir, readFile, symlink, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  ABANDONED_AFTER_MS,
  hostSegment,
  isStaleTemp,
  parseTempName,
  sweepStaleTemps,
  tempPathFor,
  THIS_HOST,
  writeFileAtomic,
} from "../../src/destination/store/local/atomic.js";
import { CSVDestination, FileDestination, IOContext, LocalObjectStoreDestination, type AssetRef } from "../../src/destination/index.js";
import { TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import { listFiles, makeTempDir } from "../contract/temp-dir.js";

const HOUR = 60 * 60 * 1000;
/** A time before this process started: a file last modified then predates every writer started since. */
const BEFORE_START = performance.timeOrigin - 60_000;

/** The pid of a process that has exited (and been reaped): `kill(pid, 0)` fails with ESRCH. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
  await once(child, "exit");
  const pid = child.pid!;
  expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
  return pid;
}

let live: ChildProcess;
let dead: number;
beforeAll(async () => {
  live = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  await once(live, "spawn");
  dead = await deadPid();
});
afterAll(async () => {
  live.kill("SIGKILL");
});

let dir: { path: string; remove(): Promise<void> };
beforeEach(async () => {
  dir = await makeTempDir("interloper-sweep-");
});
afterEach(async () => {
  await dir.remove();
});

/** A temporary file beside `target` named as `tempPathFor` names them, for any host and pid, last modified at `mtimeMs`. */
async function plant(target: string, host: string, pid: number, mtimeMs: number | null, content = "half a partition"): Promise<string> {
  const path = join(
    dirname(target),
    `.${basename(target)}.tmp-${host}-${pid}-${Math.floor(Math.random() * 2 ** 32)
      .toString(16)
      .padStart(8, "0")}`,
  );
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
  if (mtimeMs !== null) await utimes(path, new Date(mtimeMs), new Date(mtimeMs));
  return path;
}

const exists = (path: string) =>
  lstat(path).then(
    () => true,
    () => false,
  );

describe("temporary file names", () => {
  it("hold this host's name as a safe segment and this process's pid", () => {
    const temp = tempPathFor(join(dir.path, "date=2026-01-01", "data.csv"));
    expect(dirname(temp)).toBe(join(dir.path, "date=2026-01-01"));
    expect(basename(temp)).toMatch(new RegExp(`^\\.data\\.csv\\.tmp-${THIS_HOST}-${process.pid}-[0-9a-f]{8}$`));
    expect(THIS_HOST).toBe(hostSegment(hostname()));
    expect(parseTempName(basename(temp))).toEqual({ host: THIS_HOST, pid: process.pid });
  });

  it("sanitise host names to letters, digits, - and _, never holding the marker, never empty", () => {
    expect(hostSegment("db-1.example.com")).toBe("db-1_example_com");
    expect(hostSegment("a/b\\c:d .tmp-e")).toBe("a_b_c_d__tmp-e");
    expect(hostSegment("")).toBe("_");
    expect(hostSegment("wörk")).toBe("w_rk");
    expect(hostSegment("x".repeat(300))).toHaveLength(64);
  });

  it("parse back to their writer; older names (pid only) have no host; other names are not temporary files", () => {
    expect(parseTempName(".data.csv.tmp-my-host-2-12-4242-0a1b2c3d")).toEqual({ host: "my-host-2-12", pid: 4242 });
    expect(parseTempName("..data.csv.rows.json.tmp-h-7-ffffffff")).toEqual({ host: "h", pid: 7 });
    expect(parseTempName(".data.csv.tmp-4242-0a1b2c3d")).toEqual({ host: null, pid: 4242 });
    for (const name of [
      "data.csv",
      ".data.csv.rows.json",
      "notes.tmp-h-1-0a1b2c3d",
      ".data.csv.tmp-h-1-xyz",
      ".data.csv.tmp-h-1-0a1b2c3d.bak",
      ".tmp-h-1-0a1b2c3d",
    ]) {
      expect(parseTempName(name), name).toBeNull();
    }
  });
});

describe("isStaleTemp", () => {
  it("judges this host's files by pid and age, other hosts' and older names' by age alone", () => {
    const now = Date.now();
    const here = (pid: number) => ({ host: THIS_HOST, pid });
    expect(isStaleTemp(here(dead), BEFORE_START, now)).toBe(true);
    // Modified since this process started: maybe a fresh writer that reused the pid.
    expect(isStaleTemp(here(dead), now, now)).toBe(false);
    expect(isStaleTemp(here(dead), performance.timeOrigin + 1, now)).toBe(false);
    expect(isStaleTemp(here(live.pid!), BEFORE_START, now)).toBe(false);
    expect(isStaleTemp(here(process.pid), BEFORE_START, now)).toBe(false);
    // pid 1 always exists (EPERM for a non-root user: alive too).
    expect(isStaleTemp(here(1), BEFORE_START, now)).toBe(false);
    expect(isStaleTemp({ host: "elsewhere", pid: dead }, now - HOUR, now)).toBe(false);
    expect(isStaleTemp({ host: null, pid: dead }, now - HOUR, now)).toBe(false);
    for (const host of [THIS_HOST, "elsewhere", null]) {
      expect(isStaleTemp({ host, pid: live.pid! }, now - ABANDONED_AFTER_MS - 1000, now)).toBe(true);
      expect(isStaleTemp({ host, pid: live.pid! }, now - ABANDONED_AFTER_MS + 60_000, now)).toBe(false);
    }
  });
});

describe("sweepStaleTemps", () => {
  it("removes dead writers' temporary files and nothing else", async () => {
    const target = join(dir.path, "data.csv");
    await writeFile(target, "date\n");
    const gone = [
      await plant(target, THIS_HOST, dead, BEFORE_START),
      await plant(join(dir.path, ".data.csv.rows.json"), THIS_HOST, dead, BEFORE_START),
      await plant(target, "elsewhere", dead, Date.now() - ABANDONED_AFTER_MS - HOUR),
      await plant(target, "elsewhere", live.pid!, Date.now() - ABANDONED_AFTER_MS - HOUR),
    ];
    const legacyOld = join(dir.path, `.data.csv.tmp-${dead}-0a1b2c3d`);
    await writeFile(legacyOld, "x");
    await utimes(legacyOld, new Date(Date.now() - 2 * ABANDONED_AFTER_MS), new Date(Date.now() - 2 * ABANDONED_AFTER_MS));
    gone.push(legacyOld);

    const kept = [
      target,
      await plant(target, THIS_HOST, dead, null), // fresh: written after this process started
      await plant(target, THIS_HOST, live.pid!, Date.now() - HOUR),
      await plant(target, THIS_HOST, process.pid, BEFORE_START),
      await plant(target, "elsewhere", dead, Date.now() - HOUR),
    ];
    const legacyRecent = join(dir.path, `.data.csv.tmp-${dead}-0a1b2c3e`);
    await writeFile(legacyRecent, "x");
    await utimes(legacyRecent, new Date(BEFORE_START), new Date(BEFORE_START));
    kept.push(legacyRecent);
    // Not temporary files by name, however old.
    for (const name of ["notes.tmp-x", "data.tmp-h-1-0a1b2c3d"]) {
      const path = join(dir.path, name);
      await writeFile(path, "keep");
      await utimes(path, new Date(0), new Date(0));
      kept.push(path);
    }
    // A folder or a link with a stale temporary name is not a regular file: left alone, and
    // the file a link points to too.
    const folder = join(dir.path, `.data.csv.tmp-${THIS_HOST}-${dead}-00000001`);
    await mkdir(folder);
    await utimes(folder, new Date(0), new Date(0));
    const linked = join(dir.path, "linked.csv");
    await writeFile(linked, "keep");
    const link = join(dir.path, `.data.csv.tmp-${THIS_HOST}-${dead}-00000002`);
    await symlink(linked, link);
    kept.push(folder, linked, link);

    expect(await sweepStaleTemps(dir.path)).toBe(gone.length);
    for (const path of gone) expect(await exists(path), path).toBe(false);
    for (const path of kept) expect(await exists(path), path).toBe(true);
    expect(await readFile(target, "utf8")).toBe("date\n");
    expect(await sweepStaleTemps(dir.path)).toBe(0);
  });

  it("never throws: a missing folder, a file another sweep removed first", async () => {
    expect(await sweepStaleTemps(join(dir.path, "no-such-folder"))).toBe(0);
    expect(await sweepStaleTemps(join(dir.path, "not-a-folder"))).toBe(0);
    const target = join(dir.path, "data.csv");
    for (let i = 0; i < 20; i++) await plant(target, THIS_HOST, dead, BEFORE_START);
    // Both list all 20; each file is removed by exactly one of them, the other meets ENOENT.
    const removed = await Promise.all([sweepStaleTemps(dir.path), sweepStaleTemps(dir.path), sweepStaleTemps(dir.path)]);
    expect(removed.reduce((a, b) => a + b, 0)).toBe(20);
    expect(await listFiles(dir.path)).toEqual([]);
  });
});

describe("writeFileAtomic with sweep", () => {
  it("sweeps the folder after a successful write, not after a failed one, not without the option", async () => {
    const target = join(dir.path, "p", "data.csv");
    const stale = await plant(target, THIS_HOST, dead, BEFORE_START);
    await writeFileAtomic(target, ["a\n"]);
    expect(await exists(stale)).toBe(true);
    async function* failing(): AsyncGenerator<string> {
      yield "a\n";
      throw new Error("source failed");
    }
    await expect(writeFileAtomic(target, failing(), { sweep: true })).rejects.toThrow("source failed");
    expect(await exists(stale)).toBe(true);
    await writeFileAtomic(target, ["b\n"], { sweep: true });
    expect(await exists(stale)).toBe(false);
    expect(await readFile(target, "utf8")).toBe("b\n");
    expect(await listFiles(dir.path)).toEqual(["p/data.csv"]);
  });
});

const daily = new TimePartitionConfig({ column: "date" });
const orders: AssetRef = { key: "shop.orders", table: "orders", dataset: "shop", partitioning: daily };
const ctx = (window: TimePartitionWindow | null) => new IOContext({ asset: orders, window, schema: null, metadata: { runId: "r1" } });
const day = (key: string) => new TimePartitionWindow(key, key);

describe.each([
  { name: "CSVDestination", file: "data.csv", make: (base: string) => new CSVDestination({ basePath: base }) },
  { name: "FileDestination", file: "data.v8", make: (base: string) => new FileDestination({ basePath: base }) },
])("$name", ({ file, make }) => {
  it("a partition write removes dead writers' leftovers from its folder and the table's; reads remove nothing", async () => {
    const table = join(dir.path, "shop", "orders");
    const partition = join(table, "date=2026-01-01");
    // Left by a writer killed during an index flush, before any write of this process.
    const staleIndex = await plant(join(table, `.${file}.date.rows-index.json`), THIS_HOST, dead, BEFORE_START);
    const destination = make(dir.path);
    await destination.write(ctx(day("2026-01-01")), [{ date: "2026-01-01", id: 1 }]);
    expect(await exists(staleIndex)).toBe(false);

    const staleData = await plant(join(partition, file), THIS_HOST, dead, BEFORE_START);
    const staleSidecar = await plant(join(partition, `.${file}.rows.json`), THIS_HOST, dead, BEFORE_START);
    const foreign = await plant(join(partition, file), "elsewhere", dead, Date.now() - HOUR);
    const running = await plant(join(partition, file), THIS_HOST, live.pid!, Date.now() - HOUR);
    // Counting and reading list these folders but never sweep them.
    expect(await destination.partitionRowCounts(ctx(null))).toEqual({ "2026-01-01": 1 });
    await destination.read(ctx(day("2026-01-01")));
    for (const path of [staleData, staleSidecar, foreign, running]) expect(await exists(path), path).toBe(true);

    await destination.write(ctx(day("2026-01-01")), [
      { date: "2026-01-01", id: 1 },
      { date: "2026-01-01", id: 2 },
    ]);
    for (const path of [staleData, staleSidecar]) expect(await exists(path), path).toBe(false);
    for (const path of [foreign, running]) expect(await exists(path), path).toBe(true);
    expect(await destination.partitionRowCounts(ctx(null))).toEqual({ "2026-01-01": 2 });
    expect(((await destination.read(ctx(day("2026-01-01")))) as unknown[]).length).toBe(2);
  });
});

describe("LocalObjectStoreDestination", () => {
  it("a put removes dead writers' leftovers from the object's folder; listings remove nothing", async () => {
    const destination = new LocalObjectStoreDestination({ basePath: dir.path, format: "jsonl" });
    await destination.write(ctx(day("2026-01-01")), [{ date: "2026-01-01", id: 1 }]);
    const partition = join(dir.path, "shop", "orders", "date=2026-01-01");
    const staleObject = await plant(join(partition, "data.jsonl"), THIS_HOST, dead, BEFORE_START);
    const staleMeta = await plant(join(partition, ".data.jsonl.meta.json"), THIS_HOST, dead, BEFORE_START);
    const abandoned = await plant(join(partition, "data.jsonl"), "elsewhere", live.pid!, Date.now() - ABANDONED_AFTER_MS - HOUR);
    const fresh = await plant(join(partition, "data.jsonl"), THIS_HOST, dead, null);
    expect(await destination.partitionRowCounts(ctx(null))).toEqual({ "2026-01-01": 1 });
    for (const path of [staleObject, staleMeta, abandoned, fresh]) expect(await exists(path), path).toBe(true);

    await destination.write(ctx(day("2026-01-01")), [
      { date: "2026-01-01", id: 1 },
      { date: "2026-01-01", id: 2 },
    ]);
    for (const path of [staleObject, staleMeta, abandoned]) expect(await exists(path), path).toBe(false);
    expect(await exists(fresh)).toBe(true);
    expect(await listFiles(partition)).toEqual([basename(fresh), "data.jsonl"].sort());
    expect(await destination.partitionRowCounts(ctx(null))).toEqual({ "2026-01-01": 2 });
  });
});
