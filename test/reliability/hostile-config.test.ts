// Hostile config: asset keys, datasets, tables, list values and partition columns made to
// escape the base path are refused with ConfigError, and no file appears outside the base path;
// names made to inject SQL are quoted (or refused): a canary table survives and no other table appears.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { asset } from "../../src/asset/definition.js";
import { CSVDestination, FileDestination, type Destination } from "../../src/destination/index.js";
import { LocalObjectStoreDestination } from "../../src/destination/object-store/index.js";
import { SQLiteDestination } from "../../src/destination/database/index.js";
import { ConfigError } from "../../src/errors.js";
import { ListPartitionConfig, TimePartition, TimePartitionConfig } from "../../src/partitioning/index.js";
import { source } from "../../src/source/source.js";
import { listAll, useTempDirs } from "./helpers.js";

const tempDir = useTempDirs();
const ESCAPES = ["..", "../escaped", "a/../../escaped", "/tmp/escaped-abs", "a\\..\\b", "nul\u0000byte", ".", ""];

/** The ConfigError in an error's cause chain, or null. */
function configErrorIn(error: unknown): ConfigError | null {
  for (let e = error; e; e = (e as { cause?: unknown }).cause) if (e instanceof ConfigError) return e;
  return null;
}

async function attempt(destination: Destination, options: { dataset?: string; table?: string; column?: string }): Promise<unknown> {
  const events = asset({
    key: "events",
    partitioning: new TimePartitionConfig({ column: options.column ?? "date" }),
    schema: z.object({ date: z.iso.date(), n: z.number() }),
    run: () => [{ date: "2024-01-02", n: 1 }],
  });
  const Src = source({ key: "rel", ...(options.dataset !== undefined ? { dataset: options.dataset } : {}), ...(options.table !== undefined ? { table: () => options.table! } : {}), assets: [events] });
  try {
    await Src({ destinations: destination }).assets.events!.materialize(TimePartition.fromKey("2024-01-02"));
    return null;
  } catch (error) {
    return error;
  }
}

describe("names made to escape the base path", () => {
  it("asset keys and list values are refused with ConfigError when declared", () => {
    for (const key of ["../x", "a/b", "/abs", "a\u0000b", "..", "a.b.c", "x; DROP TABLE y"]) {
      expect(() => asset({ key, run: () => [] }), key).toThrow(ConfigError);
    }
    for (const value of ESCAPES) expect(() => new ListPartitionConfig({ column: "region", values: [value] }), JSON.stringify(value)).toThrow(ConfigError);
  });

  for (const [name, make] of [
    ["CSV", (base: string) => new CSVDestination({ basePath: base })],
    ["File", (base: string) => new FileDestination({ basePath: base })],
    ["local object store", (base: string) => new LocalObjectStoreDestination({ basePath: base, format: "jsonl" })],
  ] as const) {
    it(`${name}: a hostile dataset, table or partition column is refused with ConfigError and nothing lands outside the base path`, async () => {
      const parent = await tempDir();
      const base = join(parent, "base");
      await mkdir(base);
      for (const value of ESCAPES) {
        for (const field of ["dataset", "table", "column"] as const) {
          if (field === "dataset" && value === "") continue; // no dataset: the table sits at the root
          // An empty partition column is refused when the partitioning is built, with a TypeError (reported).
          if (field === "column" && value === "") continue;
          const error = await attempt(make(base), { [field]: value });
          expect(configErrorIn(error), `${field} ${JSON.stringify(value)} was not refused: ${String(error)}`).toBeInstanceOf(ConfigError);
        }
      }
      const prefix = (await attempt(new LocalObjectStoreDestination({ basePath: base, prefix: "../../escaped" }), {})) as Error;
      expect(configErrorIn(prefix)).toBeInstanceOf(ConfigError);
      expect((await listAll(parent)).filter((file) => !file.startsWith("base/"))).toEqual([]);
      expect(await listAll(base)).toEqual([]);
    });
  }
});

describe("names made to inject SQL", () => {
  it("SQLite: quoted as names (or refused); a canary table survives and no other table appears", async () => {
    const dir = await tempDir();
    const path = join(dir, "canary.sqlite");
    const canary = new SQLiteDestination({ path });
    const run = (sql: string) => (canary as unknown as { run(sql: string): Promise<Record<string, unknown>[]> }).run(sql);
    await run(`CREATE TABLE canary (x INTEGER)`);
    const hostile = [`t"; DROP TABLE canary; --`, `t'); DROP TABLE canary; --`, "t`; DROP TABLE canary; --", `t]; DROP TABLE canary; --`];
    const expected = new Set(["canary"]);
    for (const name of hostile) {
      for (const field of ["dataset", "table", "column"] as const) {
        const destination = new SQLiteDestination({ path });
        const error = await attempt(destination, { [field]: name });
        await destination.close();
        if (error) {
          expect(String((error as Error).name), String(error)).toMatch(/Error$/);
          continue;
        }
        const dataset = field === "dataset" ? name : "rel";
        const table = field === "table" ? name : "events";
        expected.add(`${dataset}.${table}`);
        expected.add(`${dataset}._interloper_partitions`);
      }
    }
    const tables = (await run(`SELECT name FROM sqlite_master WHERE type = 'table'`)).map((row) => String(row["name"]));
    expect(tables).toContain("canary");
    expect(new Set(tables)).toEqual(expected);
    await canary.close();
  });
});
