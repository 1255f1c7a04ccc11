// Column names that JavaScript objects or CSV readers treat specially, through every destination:
// "__proto__" (assigned, it sets an object's prototype instead of making a field), names of
// Object.prototype's members ("constructor", "toString", "hasOwnProperty": plain access finds
// the inherited function when the field is missing), and "\uFEFFid" (a byte order mark that a
// CSV reader strips when it heads the file). Each column must round trip with its exact name and
// value, the read row's prototype must be Object.prototype, and a json value holding a
// "__proto__" key must keep it as a key — never as the prototype of anything read back.
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asset } from "../../src/asset/definition.js";
import {
  CSVDestination,
  FileDestination,
  GCSDestination,
  MemoryDestination,
  S3Destination,
  type Destination,
} from "../../src/destination/index.js";
import { LocalObjectStoreDestination } from "../../src/destination/store/index.js";
import { SQLiteDestination } from "../../src/destination/database/index.js";
import { TimePartition, TimePartitionConfig } from "../../src/partitioning/index.js";
import { TableData } from "../../src/representation/index.js";
import { inferFieldSpecs } from "../../src/schema/index.js";
import { fieldSpecs } from "../../src/schema/index.js";
import { source } from "../../src/source/source.js";
import { isolatedMySQL, isolatedPostgres, mysqlAvailable, postgresAvailable } from "../database/servers.js";
import { type Moto, motoAvailable, startMoto, TEST_CONNECTION } from "../object-store/moto.js";
import { type GcsServer, startGcsServer } from "../support/gcs-server.js";
import { useTempDirs } from "./helpers.js";

const tempDir = useTempDirs();

const BOM_ID = "\uFEFFid";

/** An object with own fields, "__proto__" among them, made without assignment. */
function own(entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

/** The row each partition holds: its date, every hostile name, and a json value with a "__proto__" key. */
function rowOf(day: string): Record<string, unknown> {
  return own([
    [BOM_ID, 7],
    ["date", day],
    ["__proto__", JSON.parse('{"isAdmin": true}') as unknown],
    ["constructor", "ctor"],
    ["toString", "str"],
    ["hasOwnProperty", "has"],
    ["valueOf", "val"],
    ["id", 8],
    ["payload", JSON.parse('{"__proto__": {"isAdmin": true}, "list": [{"__proto__": 1}]}') as unknown],
  ]);
}

const SCHEMA = z.object(
  own([
    [BOM_ID, z.number().int()],
    ["date", z.iso.date()],
    ["__proto__", z.record(z.string(), z.unknown())],
    ["constructor", z.string()],
    ["toString", z.string()],
    ["hasOwnProperty", z.string()],
    ["valueOf", z.string()],
    ["id", z.number().int()],
    ["payload", z.record(z.string(), z.unknown())],
  ]) as Record<string, z.ZodType>,
);

interface Target {
  readonly name: string;
  readonly available: () => Promise<boolean>;
  readonly make: () => Promise<{ destination: Destination; cleanup(): Promise<void> }>;
}

const fileTarget = (name: string, make: (base: string) => Destination): Target => ({
  name,
  available: async () => true,
  make: async () => ({ destination: make(await tempDir()), cleanup: async () => undefined }),
});

let moto: Moto | null = null;
let bucket = 0;
const s3Target = (format: "parquet" | "jsonl" | "csv"): Target => ({
  name: `S3 (${format})`,
  available: async () => moto !== null,
  make: async () => {
    const name = `names-${format}-${++bucket}`;
    await moto!.createBucket(name);
    const destination = new S3Destination({ bucket: name, format, connection: { ...TEST_CONNECTION, endpoint: moto!.endpoint } });
    return { destination, cleanup: async () => undefined };
  },
});

let gcs: GcsServer | null = null;
const gcsTarget = (format: "parquet" | "jsonl" | "csv"): Target => ({
  name: `GCS (${format})`,
  available: async () => gcs !== null,
  make: async () => {
    const name = `names-${format}-${++bucket}`;
    gcs!.createBucket(name);
    const destination = new GCSDestination({ bucket: name, format, connection: { projectId: "test", apiEndpoint: gcs!.endpoint } });
    return { destination, cleanup: async () => undefined };
  },
});

const TARGETS: Target[] = [
  fileTarget("CSV", (basePath) => new CSVDestination({ basePath })),
  fileTarget("File", (basePath) => new FileDestination({ basePath })),
  fileTarget("object store (parquet)", (basePath) => new LocalObjectStoreDestination({ basePath, format: "parquet" })),
  fileTarget("object store (jsonl)", (basePath) => new LocalObjectStoreDestination({ basePath, format: "jsonl" })),
  fileTarget("object store (csv)", (basePath) => new LocalObjectStoreDestination({ basePath, format: "csv" })),
  s3Target("parquet"),
  s3Target("jsonl"),
  s3Target("csv"),
  gcsTarget("parquet"),
  gcsTarget("jsonl"),
  gcsTarget("csv"),
  {
    name: "SQLite",
    available: async () => true,
    make: async () => {
      const destination = new SQLiteDestination({ path: `${await tempDir()}/names.sqlite` });
      return { destination, cleanup: () => destination.close() };
    },
  },
  { name: "PostgreSQL", available: postgresAvailable, make: async () => isolatedPostgres() },
  { name: "MySQL", available: mysqlAvailable, make: async () => isolatedMySQL() },
  {
    name: "Memory",
    available: async () => true,
    make: async () => ({ destination: new MemoryDestination(), cleanup: async () => MemoryDestination.clear() }),
  },
];

/**
 * Exact sameness of the values written: json objects compare by their own keys, in any order (as
 * jsonb keeps them), and each must be a plain object, so a "__proto__" key that became a
 * prototype is a difference.
 */
function same(a: unknown, b: unknown): boolean {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => same(item, b[i]));
  if (typeof a === "object" && a !== null) {
    if (typeof b !== "object" || b === null || Array.isArray(b) || Object.getPrototypeOf(b) !== Object.prototype) return false;
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((key) => Object.hasOwn(b, key) && same((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
    );
  }
  return Object.is(a, b);
}

/** A value read without a schema: the value itself, or the text a store keeps it as (digits, JSON). */
function storedForm(read: unknown, written: unknown): boolean {
  if (same(written, read)) return true;
  if (typeof read !== "string") return false;
  if (typeof written !== "object") return read === String(written);
  try {
    return same(written, JSON.parse(read));
  } catch {
    return false;
  }
}

const show = (value: unknown) =>
  typeof value === "object" && value !== null && Object.getPrototypeOf(value) !== Object.prototype && !Array.isArray(value)
    ? `an object with prototype ${JSON.stringify(Object.getPrototypeOf(value))}`
    : JSON.stringify(value);

/**
 * What is wrong with a read row, compared with the written one, each problem a line: a prototype
 * other than Object.prototype, a field missing, renamed or added, a value changed (`loose`: or
 * read back as its stored text, as a read without a schema gives it).
 */
function problems(read: Record<string, unknown>, written: Record<string, unknown>, loose = false): string[] {
  const found: string[] = [];
  if (Object.getPrototypeOf(read) !== Object.prototype)
    found.push(`the row's prototype is ${JSON.stringify(Object.getPrototypeOf(read))}, not Object.prototype`);
  if ((read as { isAdmin?: unknown }).isAdmin !== undefined) found.push("row.isAdmin is set");
  const keys = Object.keys(read);
  for (const name of Object.keys(written)) {
    if (!Object.hasOwn(read, name))
      found.push(`no own field ${JSON.stringify(name)} (fields: ${keys.map((k) => JSON.stringify(k)).join(", ")})`);
    else if (!(loose ? storedForm : same)(read[name], written[name]))
      found.push(`field ${JSON.stringify(name)} reads ${show(read[name])}, wrote ${JSON.stringify(written[name])}`);
  }
  for (const key of keys) if (!Object.hasOwn(written, key)) found.push(`an unwritten field ${JSON.stringify(key)}`);
  return found;
}

const available = new Map<string, boolean>();
beforeAll(async () => {
  if (motoAvailable()) moto = await startMoto();
  gcs = await startGcsServer();
  for (const target of TARGETS) available.set(target.name, await target.available());
}, 60_000);
afterAll(async () => {
  MemoryDestination.clear();
  await moto?.stop();
  await gcs?.stop();
});

describe("column names JavaScript or CSV treat specially, through every destination", () => {
  it("the schemas keep every such field: zod's, and one inferred from rows", () => {
    expect(fieldSpecs(SCHEMA).map((spec) => spec.name)).toEqual(Object.keys(rowOf("2024-01-01")));
    expect(inferFieldSpecs([rowOf("2024-01-01")]).map((spec) => spec.name)).toEqual(Object.keys(rowOf("2024-01-01")));
  });

  /** How the asset returns its row: as rows or as columns, with a declared or an inferred schema, or as a stream. */
  const SHAPES = [
    { name: "rows, declared (zod) schema", declared: true, output: (row: Record<string, unknown>): unknown => [row] },
    { name: "rows, inferred schema", declared: false, output: (row: Record<string, unknown>): unknown => [row] },
    {
      name: "columns, declared schema",
      declared: true,
      output: (row: Record<string, unknown>): unknown => own(Object.keys(row).map((key) => [key, [row[key]]])),
    },
    {
      name: "a stream of rows, inferred schema",
      declared: false,
      output: (row: Record<string, unknown>): unknown =>
        (async function* () {
          yield row;
        })(),
    },
  ] as const;

  for (const target of TARGETS) {
    for (const shape of SHAPES) {
      it(`${target.name}, ${shape.name}: each column reads back with its exact name and value, on a plain row`, async () => {
        if (!available.get(target.name)) return;
        const { destination, cleanup } = await target.make();
        try {
          const partitioning = new TimePartitionConfig({ column: "date", start: "2024-01-01" });
          const run = (context: { partition: { key: string } | null }) => shape.output(rowOf(context.partition!.key)) as never;
          const definition = shape.declared
            ? asset({ key: "names", partitioning, schema: SCHEMA, run })
            : asset({ key: "names", partitioning, run });
          const bound = source({ key: "hostile_names", assets: [definition] })({ destinations: destination });
          const names = bound.assets["names"]!;
          const partition = TimePartition.fromKey("2024-03-01");
          await names.materialize(partition);
          const written = rowOf("2024-03-01");
          const rows = TableData.from(await names.read(partition))!.rows;
          expect(rows.length).toBe(1);
          // Without a declared schema a read gives each value as the store keeps it (CSV's text,
          // say); the names and the row's prototype are exact all the same.
          expect(problems(rows[0]!, written, !shape.declared), `${target.name}: the read row`).toEqual([]);
          if (!shape.declared) {
            const typed = TableData.from(await names.read(partition, inferFieldSpecs([written])))!.rows;
            expect(problems(typed[0]!, written), `${target.name}: the row read with the inferred schema`).toEqual([]);
          }
          expect(Object.keys(await names.partitionRowCounts())).toEqual(["2024-03-01"]);
        } finally {
          await cleanup();
        }
      }, 60_000);
    }
  }
});
