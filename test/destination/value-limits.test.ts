// Issue 41.21: a list value a destination cannot store was accepted at load and failed only at
// its first write (ENAMETOOLONG for a folder name past 255 bytes, MariaDB's "Data too long" past
// its column's 255 characters). Each destination refuses it when the config is loaded, naming
// the asset, the value and the limit; a value at the limit loads, and a file store writes it.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { findAsset, projectOf } from "../../src/api/project.js";
import { ConfigError } from "../../src/errors.js";
import { makeTempDir } from "../contract/temp-dir.js";

let base: string;
let remove: () => Promise<void>;
beforeEach(async () => ({ path: base, remove } = await makeTempDir("interloper-value-limits-")));
afterEach(() => remove());

const connection = { host: "127.0.0.1", user: "root", database: "test" };
const bucket = { region: "us-east-1", endpoint: "http://127.0.0.1:1", credentials: { accessKeyId: "a", secretAccessKey: "b" } };

/** Every destination, over nothing it connects to: a config's destinations connect on first use only. */
const DESTINATIONS: ReadonlyArray<readonly [string, (base: string) => il.Destination, number | null]> = [
  // The folder name "region=..." holds 255 bytes: 248 for the value.
  ["CSVDestination", (b) => new il.CSVDestination({ basePath: b }), 248],
  ["FileDestination", (b) => new il.FileDestination({ basePath: b }), 248],
  ["LocalObjectStoreDestination", (b) => new il.LocalObjectStoreDestination({ basePath: b }), 248],
  // The partition column is VARCHAR(255).
  ["MySQLDestination", () => new il.MySQLDestination({ connection }), 255],
  // An object name holds 1024 bytes; 1000 bytes of value would not fit beside the rest.
  ["S3Destination", () => new il.S3Destination({ bucket: "b", connection: bucket }), null],
  ["GCSDestination", () => new il.GCSDestination({ bucket: "b", connection: { apiEndpoint: "http://127.0.0.1:1" } }), null],
  ["SQLiteDestination", (b) => new il.SQLiteDestination({ path: `${b}/db.sqlite` }), Infinity],
  ["PostgresDestination", () => new il.PostgresDestination({ connection: { url: "postgres://127.0.0.1:1/x" } }), Infinity],
  ["MemoryDestination", () => new il.MemoryDestination(), Infinity],
];

function load(destination: il.Destination, values: readonly string[], multi = false) {
  const region = new il.ListPartitionConfig({ column: "region", values });
  const partitioning = multi ? new il.MultiPartitionConfig({ date: new il.TimePartitionConfig({ column: "date" }), region }) : region;
  const sales = il.asset({ key: "sales", partitioning, run: () => [] });
  return projectOf(il.defineConfig({ sources: [il.source({ key: "shop", assets: [sales] })({ destinations: destination })] }));
}

const errorOf = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return null;
};

describe.each(DESTINATIONS)("%s", (name, make, most) => {
  it("loads a value at its limit and refuses one past it, naming the asset, the value and the limit", () => {
    const longest = most === null || most === Infinity ? 300 : most;
    expect(() => load(make(base), ["eu", "v".repeat(longest)])).not.toThrow();
    if (most === Infinity) return;
    for (const multi of [false, true]) {
      const error = errorOf(() => load(make(base), ["eu", "v".repeat(most === null ? 1000 : most + 1)], multi));
      expect(error, name).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(
        new RegExp(
          `^asset "shop\\.sales": list value "v{32}…" \\(${most === null ? 1000 : most + 1} characters\\) of "region" cannot be stored in `,
        ),
      );
    }
  });
});

it("a file store counts bytes, not characters, and writes a value at its limit", async () => {
  // "é" is two bytes in UTF-8: 124 of them are 248 bytes, 125 one too many.
  expect(errorOf(() => load(new il.CSVDestination({ basePath: base }), ["é".repeat(125)]))).toBeInstanceOf(ConfigError);
  const sales = il.asset({
    key: "sales",
    partitioning: new il.ListPartitionConfig({ column: "region", values: ["é".repeat(124)] }),
    run: (c) => [{ region: c.partition!.key, n: 1 }],
  });
  const destination = new il.CSVDestination({ basePath: base });
  const project = projectOf(il.defineConfig({ sources: [il.source({ key: "shop", assets: [sales] })({ destinations: destination })] }));
  expect((await il.materialize(project, {})).status).toBe("completed");
  expect(await destination.partitionRowCounts(findAsset(project, "shop.sales").ioContext(null))).toEqual({ ["é".repeat(124)]: 1 });
});
