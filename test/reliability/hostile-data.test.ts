// Fuzzed and hostile values through every destination, each in its own partition with the
// field's declared (zod) type: a value round trips exactly, or the write is refused with an
// interloper error and nothing is stored for it — never stored wrong. What each destination
// refuses, or (documented) changes, is listed in LIMITS and in GUARANTEES.md.
import fc from "fast-check";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asset } from "../../src/asset/definition.js";
import { CSVDestination, FileDestination, MemoryDestination, type Destination } from "../../src/destination/index.js";
import { LocalObjectStoreDestination } from "../../src/destination/object-store/index.js";
import { SQLiteDestination } from "../../src/destination/database/index.js";
import { InterloperError } from "../../src/errors.js";
import { TimePartition, TimePartitionConfig } from "../../src/partitioning/index.js";
import { TableData } from "../../src/representation/index.js";
import { source } from "../../src/source/source.js";
import { isolatedMySQL, isolatedPostgres, mysqlAvailable, postgresAvailable } from "../database/servers.js";
import { LONG, seedFor, useTempDirs } from "./helpers.js";

const tempDir = useTempDirs();

type Kind = "nstring" | "string" | "integer" | "number" | "date" | "datetime";
interface Case {
  readonly label: string;
  readonly kind: Kind;
  readonly value: unknown;
}

const BIG = 2n ** 53n + 1n;
const MB = "€".repeat(350_000) + "x".repeat(1 << 20);
const HOSTILE: Case[] = [
  ...([
    ["comma", "a,b,,c"],
    ["quotes", 'say "hi" \'there\' ""'],
    ["newline", "line1\nline2\n"],
    ["carriage return", "cr\rlf\r\n"],
    ["NUL", "nul\u0000inside"],
    ["emoji", "🚀👩‍👩‍👧‍👦🏳️‍🌈"],
    ["right-to-left", "שלום עולם مرحبا \u202Eevil\u202C"],
    ["empty string", ""],
    ["spaces", "  padded  "],
    ["null-like text", "NULL"],
    ["backslash N", "\\N"],
    ["SQL", "'); DROP TABLE canary; --"],
    ["lone surrogate", "\uD800x"],
    ["1 MB+", MB],
  ] as const).map(([label, value]) => ({ label: `string: ${label}`, kind: "string" as const, value })),
  { label: "nullable string: empty string", kind: "nstring", value: "" },
  { label: "nullable string: null", kind: "nstring", value: null },
  ...([
    ["0", 0],
    ["-1", -1],
    ["2^53 - 1", Number.MAX_SAFE_INTEGER],
    ["2^53 + 1 (bigint)", BIG],
    ["-(2^53 + 1) (bigint)", -BIG],
    ["2^63 - 1 (bigint)", 2n ** 63n - 1n],
    ["2^64 (bigint)", 2n ** 64n],
  ] as const).map(([label, value]) => ({ label: `integer: ${label}`, kind: "integer" as const, value })),
  ...([
    ["-0", -0],
    ["0.1", 0.1],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["-Infinity", Number.NEGATIVE_INFINITY],
    ["smallest subnormal", 5e-324],
    ["largest double", Number.MAX_VALUE],
  ] as const).map(([label, value]) => ({ label: `number: ${label}`, kind: "number" as const, value })),
  ...([["1969-12-31"], ["1900-02-28"], ["0001-01-01"], ["9999-12-31"], ["2024-02-29"]] as const).map(([value]) => ({ label: `date: ${value}`, kind: "date" as const, value })),
  ...([
    ["1969-12-31T23:59:59.999Z", new Date(-1)],
    ["1900-01-01T00:00:00.123Z", new Date("1900-01-01T00:00:00.123Z")],
    ["0001-01-01T00:00:00Z", new Date("0001-01-01T00:00:00Z")],
    ["9999-12-31T23:59:59.999Z", new Date("9999-12-31T23:59:59.999Z")],
    ["+010000-01-01 (after 9999)", new Date(Date.UTC(10000, 0, 1))],
    ["invalid Date", new Date(Number.NaN)],
  ] as const).map(([label, value]) => ({ label: `datetime: ${label}`, kind: "datetime" as const, value })),
];

const TYPES: Record<Kind, z.ZodType> = { nstring: z.string().nullable(), string: z.string(), integer: z.number().int(), number: z.number(), date: z.iso.date(), datetime: z.date() };

/**
 * What a destination cannot store as given, by case label: "refused" (the write fails with an
 * interloper error, nothing stored) or a documented change on read ("reads back as null").
 */
type Limits = Record<string, string>;

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

const TARGETS: Target[] = [
  fileTarget("CSV", (basePath) => new CSVDestination({ basePath })),
  fileTarget("File", (basePath) => new FileDestination({ basePath })),
  fileTarget("object store (parquet)", (basePath) => new LocalObjectStoreDestination({ basePath, format: "parquet" })),
  fileTarget("object store (jsonl)", (basePath) => new LocalObjectStoreDestination({ basePath, format: "jsonl" })),
  fileTarget("object store (csv)", (basePath) => new LocalObjectStoreDestination({ basePath, format: "csv" })),
  {
    name: "SQLite",
    available: async () => true,
    make: async () => {
      const destination = new SQLiteDestination({ path: `${await tempDir()}/hostile.sqlite` });
      return { destination, cleanup: () => destination.close() };
    },
  },
  { name: "PostgreSQL", available: postgresAvailable, make: async () => isolatedPostgres() },
  { name: "MySQL", available: mysqlAvailable, make: async () => isolatedMySQL() },
  { name: "Memory", available: async () => true, make: async () => ({ destination: new MemoryDestination(), cleanup: async () => MemoryDestination.clear() }) },
];

function same(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return Object.is(a.getTime(), b.getTime());
  if (typeof a === "bigint" || typeof b === "bigint") return typeof a === typeof b && a === b;
  return Object.is(a, b);
}

function show(value: unknown): string {
  if (typeof value === "string") return value.length > 40 ? `${JSON.stringify(value.slice(0, 20))}... (${value.length} chars)` : JSON.stringify(value);
  if (value instanceof Date) return `Date(${Number.isNaN(value.getTime()) ? "invalid" : value.toISOString()})`;
  if (typeof value === "bigint") return `${value}n`;
  return Object.is(value, -0) ? "-0" : String(value);
}

/** Writes each case to its own day through an asset with the declared type; says what happened to each. */
async function roundTrip(destination: Destination, cases: readonly Case[], refusals: string[] = []): Promise<Record<string, string>> {
  const outcome: Record<string, string> = {};
  const kinds = [...new Set(cases.map((c) => c.kind))];
  const assets = Object.fromEntries(
    kinds.map((kind) => [
      kind,
      asset({
        key: `v_${kind}`,
        partitioning: new TimePartitionConfig({ column: "date", start: "2000-01-01" }),
        schema: z.object({ date: z.iso.date(), v: TYPES[kind] }),
        run: (context) => {
          const day = context.partition!.key;
          return [{ date: day, v: cases[dayIndex(day)]!.value }];
        },
      }),
    ]),
  );
  const Hostile = source({ key: "hostile", assets: Object.values(assets) });
  const bound = Hostile({ destinations: destination });
  for (const [i, c] of cases.entries()) {
    const partition = TimePartition.fromKey(dayKey(i));
    const a = bound.assets[`v_${c.kind}`]!;
    try {
      await a.materialize(partition);
    } catch (error) {
      expect(error, `${c.label}: refused with a non-interloper error`).toBeInstanceOf(InterloperError);
      const message = (error as Error).message;
      expect(message.length, c.label).toBeGreaterThan(0);
      // Refused means nothing was stored for it.
      expect(Object.keys(await a.partitionRowCounts()), `${c.label} was refused but its partition exists`).not.toContain(partition.key);
      outcome[c.label] = "refused";
      refusals.push(`${c.label}: ${(error as Error).name}: ${message.split("\n")[0]!.slice(0, 160)}`);
      continue;
    }
    const rows = TableData.from(await a.read(partition))!.rows;
    if (rows.length !== 1) outcome[c.label] = `reads back ${rows.length} rows`;
    else if (same(rows[0]!["v"], c.value)) outcome[c.label] = "ok";
    else outcome[c.label] = `reads back as ${show(rows[0]!["v"])}`;
  }
  return outcome;
}

const dayKey = (i: number) => new Date(Date.UTC(2000, 0, 1 + i)).toISOString().slice(0, 10);
const dayIndex = (day: string) => Math.round((Date.parse(`${day}T00:00:00Z`) - Date.UTC(2000, 0, 1)) / 86_400_000);

/**
 * The documented limits: everything not listed must round trip exactly. A "reads back as"
 * entry is a known, documented change; "refused" a clear error at conform or write time.
 */
const INVALID_DATE = { "datetime: invalid Date": "refused" };
// Not well-formed Unicode: UTF-8 text cannot hold a lone surrogate, so it becomes U+FFFD.
const SURROGATE = 'reads back as "\uFFFDx"';
const LIMITS: Record<string, Limits> = {
  CSV: { ...INVALID_DATE, "string: lone surrogate": SURROGATE, "nullable string: empty string": "reads back as null" },
  File: { ...INVALID_DATE },
  "object store (parquet)": { ...INVALID_DATE, "string: lone surrogate": SURROGATE, "integer: 2^64 (bigint)": "refused" },
  "object store (jsonl)": { ...INVALID_DATE },
  "object store (csv)": { ...INVALID_DATE, "string: lone surrogate": SURROGATE, "nullable string: empty string": "reads back as null" },
  SQLite: { ...INVALID_DATE, "string: lone surrogate": 'reads back as "\uFFFD\uFFFD\uFFFDx"', "integer: 2^64 (bigint)": "refused", "number: -0": "reads back as 0", "number: NaN": "refused" },
  PostgreSQL: {
    ...INVALID_DATE,
    "string: NUL": "refused",
    "string: lone surrogate": SURROGATE,
    "integer: 2^64 (bigint)": "refused",
    "number: -0": "reads back as 0",
    "datetime: +010000-01-01 (after 9999)": "refused",
  },
  MySQL: {
    ...INVALID_DATE,
    "string: lone surrogate": SURROGATE,
    "string: 1 MB+": "refused",
    "integer: 2^64 (bigint)": "refused",
    "number: -0": "reads back as 0",
    "number: NaN": "refused",
    "number: Infinity": "refused",
    "number: -Infinity": "refused",
    "datetime: +010000-01-01 (after 9999)": "refused",
  },
  Memory: { ...INVALID_DATE },
};

const available = new Map<string, boolean>();
beforeAll(async () => {
  for (const target of TARGETS) available.set(target.name, await target.available());
});
afterAll(() => MemoryDestination.clear());

describe("hostile values through every destination", () => {
  for (const target of TARGETS) {
    it(`${target.name}: each value round trips exactly or is refused with an interloper error`, async () => {
      if (!available.get(target.name)) return;
      const { destination, cleanup } = await target.make();
      try {
        const refusals: string[] = [];
        const outcome = await roundTrip(destination, HOSTILE, refusals);
        const notOk = Object.fromEntries(Object.entries(outcome).filter(([, what]) => what !== "ok"));
        console.log(`${target.name} refuses:\n  ${refusals.join("\n  ")}`);
        expect(notOk).toEqual(LIMITS[target.name] ?? {});
      } finally {
        await cleanup();
      }
    }, 120_000);
  }
});
