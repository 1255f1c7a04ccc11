// Durability of the file destinations: a write reported done must survive a crash of the
// machine. No test can cut the power, so this one watches the file system calls instead,
// through wrappers around node:fs/promises and node:fs (the one place here where a fake stands in for a
// real component: a real disk cannot be made to lose its cache on cue). It checks that the
// bytes are synced before the rename, then the folder, and every folder a first write creates
// in its parent, before the write returns; that `durable: false` makes none of these calls;
// and that a sync that fails fails the write without tearing anything.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CSVDestination, type Destination, FileDestination, IOContext, type AssetRef } from "../../src/destination/index.js";
import { LocalObjectStoreDestination } from "../../src/destination/store/index.js";
import { ConfigError } from "../../src/errors.js";
import { TimePartition, TimePartitionConfig } from "../../src/partitioning/index.js";
import { listFiles, makeTempDir } from "../contract/temp-dir.js";

/** What the wrapper saw, and the fault it injects (a call for which `fail` returns an errno code throws it). */
const fsCalls = vi.hoisted(() => ({
  log: [] as Array<{ op: string; path: string; to?: string }>,
  fail: null as ((op: string, path: string) => string | null) | null,
}));

vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs/promises")>();
  const fault = (op: string, path: string) => {
    const code = fsCalls.fail?.(op, path) ?? null;
    if (code) throw Object.assign(new Error(`${code}: injected into ${op} of ${path}`), { code });
  };
  const open = async (...args: Parameters<typeof real.open>) => {
    const handle = await real.open(...args);
    const path = String(args[0]);
    return new Proxy(handle, {
      get(target, property) {
        if (property === "sync" || property === "datasync") {
          return async () => {
            fsCalls.log.push({ op: property, path });
            fault(property, path);
            return target[property]();
          };
        }
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  };
  const rename = async (from: string, to: string) => {
    fsCalls.log.push({ op: "rename", path: from, to });
    fault("rename", from);
    return real.rename(from, to);
  };
  return { ...real, default: { ...real, open, rename }, open, rename };
});

// Folders are opened and closed directly and only their sync goes through the thread pool
// (src/destination/store/local/atomic.ts, syncFolder): the same watch on node:fs.
vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  const opened = new Map<number, string>();
  const openSync = (...args: Parameters<typeof real.openSync>) => {
    const fd = real.openSync(...args);
    opened.set(fd, String(args[0]));
    return fd;
  };
  const fsync = (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    const path = opened.get(fd) ?? `fd ${fd}`;
    fsCalls.log.push({ op: "sync", path });
    const code = fsCalls.fail?.("sync", path) ?? null;
    if (code) process.nextTick(callback, Object.assign(new Error(`${code}: injected into sync of ${path}`), { code }));
    else real.fsync(fd, callback);
  };
  return { ...real, default: { ...real, openSync, fsync }, openSync, fsync };
});

const ASSET: AssetRef = {
  key: "shop.orders",
  table: "orders",
  dataset: "shop",
  partitioning: new TimePartitionConfig({ column: "date", start: "2026-01-01" }),
};
const DAY = TimePartition.fromKey("2026-01-01");
const context = (partition: TimePartition | null) => new IOContext({ asset: ASSET, window: partition, metadata: { runId: "durability" } });
const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ date: DAY.key, id: i, note: `row ${i}` }));

const KINDS = [
  {
    name: "CSV",
    file: "data.csv",
    make: (basePath: string, durable?: boolean) => new CSVDestination({ basePath, ...(durable === undefined ? {} : { durable }) }),
  },
  {
    name: "File",
    file: "data.v8",
    make: (basePath: string, durable?: boolean) => new FileDestination({ basePath, ...(durable === undefined ? {} : { durable }) }),
  },
  {
    name: "local object store",
    file: "data.jsonl",
    make: (basePath: string, durable?: boolean) =>
      new LocalObjectStoreDestination({ basePath, format: "jsonl", ...(durable === undefined ? {} : { durable }) }),
  },
] as const;

let base: { path: string; remove(): Promise<void> };
beforeEach(async () => {
  base = await makeTempDir("interloper-durable-");
  fsCalls.log.length = 0;
  fsCalls.fail = null;
});
afterEach(async () => {
  fsCalls.fail = null;
  await base.remove();
});

/** The calls seen, paths relative to the base, a temporary file's random tail as `.tmp`. */
function calls(): string[] {
  const show = (path: string) => (relative(base.path, path) || ".").replace(/\.tmp-[A-Za-z0-9_-]+$/, ".tmp");
  return fsCalls.log.map((call) => `${call.op} ${show(call.path)}${call.to ? ` -> ${show(call.to)}` : ""}`);
}

describe("a write to a file destination, durable by default", () => {
  for (const kind of KINDS) {
    const folder = "shop/orders/date=2026-01-01";
    const data = `${folder}/${kind.file}`;

    it(`${kind.name}: a first write syncs each new folder's parent, the bytes before the rename, and the folder after it`, async () => {
      const destination = kind.make(base.path);
      expect((destination as { durable?: boolean }).durable).toBe(true);
      await destination.writePartition(context(DAY), DAY, rows(3));
      const seen = calls();
      // The ledger is a cache and never synced: only the data file's calls remain.
      const own = seen.filter((call) => !call.includes(".ledger"));
      // The bytes, then the rename, then the folders, which are synced together (in any order):
      // the partition folder itself, and the parents of shop/, shop/orders/ and the partition
      // folder, all three new.
      expect(own.slice(0, 2)).toEqual([`datasync ${folder}/.${kind.file}.tmp`, `rename ${folder}/.${kind.file}.tmp -> ${data}`]);
      expect(own.slice(2).sort()).toEqual([`sync ${folder}`, "sync shop/orders", "sync shop", "sync ."].sort());
      expect(seen.filter((call) => /^(sync|datasync) /.test(call) && call.includes(".ledger"))).toEqual([]);
    });

    it(`${kind.name}: a rewrite syncs the bytes before the rename and the folder after it`, async () => {
      const destination = kind.make(base.path);
      await destination.writePartition(context(DAY), DAY, rows(3));
      fsCalls.log.length = 0;
      await destination.writePartition(context(DAY), DAY, rows(2));
      expect(calls().filter((call) => /^(sync|datasync) /.test(call) || call.startsWith(`rename ${folder}/.${kind.file}.tmp`))).toEqual([
        `datasync ${folder}/.${kind.file}.tmp`,
        `rename ${folder}/.${kind.file}.tmp -> ${data}`,
        `sync ${folder}`,
      ]);
    });

    it(`${kind.name}: durable: false syncs nothing, and the write is the same`, async () => {
      const destination = kind.make(base.path, false);
      expect((destination as { durable?: boolean }).durable).toBe(false);
      await destination.writePartition(context(DAY), DAY, rows(3));
      await destination.writePartition(context(DAY), DAY, rows(2));
      await destination.writePartition(context(null), null, rows(1));
      expect(calls().filter((call) => /^(sync|datasync) /.test(call))).toEqual([]);
      expect(await destination.partitionRowCounts(context(null))).toEqual({ [DAY.key]: 2 });
    });

    it(`${kind.name}: a failed sync of the bytes fails the write and leaves the partition as it was, no temporary file behind`, async () => {
      const destination = kind.make(base.path);
      await destination.writePartition(context(DAY), DAY, rows(3));
      const before = await readFile(join(base.path, data));
      fsCalls.fail = (op, path) => (op === "datasync" && path.includes(`.${kind.file}.tmp-`) ? "EIO" : null);
      await expect(destination.writePartition(context(DAY), DAY, rows(2))).rejects.toThrow(/EIO/);
      expect(await readFile(join(base.path, data))).toEqual(before);
      expect((await listFiles(base.path)).filter((file) => file.includes(".tmp-"))).toEqual([]);
      fsCalls.fail = null;
      expect(await destination.partitionRowCounts(context(null))).toEqual({ [DAY.key]: 3 });
    });

    it(`${kind.name}: a failed sync of the folder after the rename fails the write; the partition holds the new rows, whole, counted right`, async () => {
      const destination = kind.make(base.path);
      await destination.writePartition(context(DAY), DAY, rows(3));
      fsCalls.fail = (op, path) => (op === "sync" && path === join(base.path, folder) ? "EIO" : null);
      await expect(destination.writePartition(context(DAY), DAY, rows(2))).rejects.toThrow(/EIO/);
      fsCalls.fail = null;
      expect(await destination.readPartition(context(DAY), DAY)).toHaveLength(2);
      expect(await destination.partitionRowCounts(context(null))).toEqual({ [DAY.key]: 2 });
      expect((await listFiles(base.path)).filter((file) => file.includes(".tmp-"))).toEqual([]);
    });
  }

  it("an unpartitioned asset's file is synced the same way", async () => {
    const destination: Destination = new CSVDestination({ basePath: base.path });
    await mkdir(join(base.path, "shop", "orders"), { recursive: true });
    await writeFile(join(base.path, "shop", "orders", "data.csv"), "id\n1\n");
    fsCalls.log.length = 0;
    await destination.writePartition(context(null), null, [{ id: 7 }]);
    expect(calls().filter((call) => /^(sync|datasync) /.test(call) || call.startsWith("rename shop/orders/.data.csv.tmp"))).toEqual([
      "datasync shop/orders/.data.csv.tmp",
      "rename shop/orders/.data.csv.tmp -> shop/orders/data.csv",
      "sync shop/orders",
    ]);
  });
});

describe("the durable option", () => {
  for (const kind of KINDS) {
    it(`${kind.name}: anything but true or false is refused with ConfigError naming what was given`, () => {
      for (const [given, shown] of [
        ["no", 'string "no"'],
        [0, "number 0"],
        [null, "null"],
      ] as const) {
        let error: unknown;
        try {
          kind.make(base.path, given as unknown as boolean);
        } catch (caught) {
          error = caught;
        }
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as Error).message).toMatch(new RegExp(`Destination: durable must be true or false, got ${shown}$`));
      }
    });
  }
});
