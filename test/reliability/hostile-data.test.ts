// Fuzzed and hostile values through every destination, with the field's declared (zod) type: a
// value round trips exactly, or the write is refused with an interloper error and nothing is
// stored for it — never stored wrong. Hand-picked values go one per partition; generated ones
// (fast-check, seed printed) many to a partition. What each destination refuses, or (documented)
// changes, is listed in LIMITS and in docs/reliability.md; a refusal must be one of them.
import fc from "fast-check";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asset } from "../../src/asset/definition.js";
import { CSVDestination, FileDestination, MemoryDestination, type Destination } from "../../src/destination/index.js";
import { LocalObjectStoreDestination } from "../../src/destination/store/index.js";
import { SQLiteDestination } from "../../src/destination/database/index.js";
import { InterloperError } from "../../src/errors.js";
import { TimePartition, TimePartitionConfig } from "../../src/partitioning/index.js";
import { TableData } from "../../src/representation/index.js";
import { source } from "../../src/source/source.js";
import { isolatedMySQL, isolatedPostgres, mysqlAvailable, postgresAvailable } from "../database/servers.js";
import { LONG, seedFor, useTempDirs } from "./helpers.js";

const tempDir = useTempDirs();

type Kind = "nstring" | "string" | "integer" | "number" | "date" | "datetime" | "json";
interface Case {
  readonly label: string;
  readonly kind: Kind;
  readonly value: unknown;
}

const BIG = 2n ** 53n + 1n;
const MB = "€".repeat(350_000) + "x".repeat(1 << 20);
const HOSTILE: Case[] = [
  ...(
    [
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
      ["lone low surrogate, after a pair", "😀\uDE00"],
      ["leading byte order mark", "\uFEFFafter a BOM"],
      ["1 MB+", MB],
    ] as const
  ).map(([label, value]) => ({ label: `string: ${label}`, kind: "string" as const, value })),
  { label: "nullable string: empty string", kind: "nstring", value: "" },
  { label: "nullable string: null", kind: "nstring", value: null },
  ...(
    [
      ["0", 0],
      ["-0", -0],
      ["-1", -1],
      ["2^53 - 1", Number.MAX_SAFE_INTEGER],
      ["2^53 + 1 (bigint)", BIG],
      ["-(2^53 + 1) (bigint)", -BIG],
      ["2^63 - 1 (bigint)", 2n ** 63n - 1n],
      ["2^64 (bigint)", 2n ** 64n],
    ] as const
  ).map(([label, value]) => ({ label: `integer: ${label}`, kind: "integer" as const, value })),
  ...(
    [
      ["-0", -0],
      ["0.1", 0.1],
      ["NaN", Number.NaN],
      ["Infinity", Number.POSITIVE_INFINITY],
      ["-Infinity", Number.NEGATIVE_INFINITY],
      ["smallest subnormal", 5e-324],
      ["largest double", Number.MAX_VALUE],
    ] as const
  ).map(([label, value]) => ({ label: `number: ${label}`, kind: "number" as const, value })),
  ...([["1969-12-31"], ["1900-02-28"], ["0001-01-01"], ["9999-12-31"], ["2024-02-29"]] as const).map(([value]) => ({
    label: `date: ${value}`,
    kind: "date" as const,
    value,
  })),
  ...(
    [
      ["1969-12-31T23:59:59.999Z", new Date(-1)],
      ["1900-01-01T00:00:00.123Z", new Date("1900-01-01T00:00:00.123Z")],
      ["0001-01-01T00:00:00Z", new Date("0001-01-01T00:00:00Z")],
      ["9999-12-31T23:59:59.999Z", new Date("9999-12-31T23:59:59.999Z")],
      ["+010000-01-01 (after 9999)", new Date(Date.UTC(10000, 0, 1))],
      ["invalid Date", new Date(Number.NaN)],
    ] as const
  ).map(([label, value]) => ({ label: `datetime: ${label}`, kind: "datetime" as const, value })),
  ...(
    [
      ["object", { a: 1, b: [true, null, "x", 0.1], c: { d: "é", e: {} } }],
      ["array of text", ["", "123", "null", 'say "hi"', "a,b\n"]],
      ["text that reads as a number", "123"],
      ["text that reads as JSON", '{"a":1}'],
      ["empty text", ""],
      ["number", 1.5],
      ["false", false],
      ["beyond 2^53, as a double", 2 ** 60],
      ["smallest subnormal, nested", [5e-324]],
      ['"__proto__" key', JSON.parse('{"__proto__":{"x":1},"y":[]}') as unknown],
      ["-0", -0],
      ["-0, nested", { a: [1, -0] }],
      ["NaN, nested", [Number.NaN]],
      ["Infinity, nested", { x: Number.POSITIVE_INFINITY }],
      ["lone surrogate, nested", { s: "\uD800x" }],
      ["lone surrogate in a key", { "\uDC00": 1 }],
      ["NUL, nested", { s: "a\u0000b" }],
    ] as const
  ).map(([label, value]) => ({ label: `json: ${label}`, kind: "json" as const, value: value as unknown })),
];

// Objects, arrays and the JSON primitives beside them: a json field.
const JSON_TYPE = z.union([z.record(z.string(), z.unknown()), z.array(z.unknown()), z.string(), z.number(), z.boolean()]);
const TYPES: Record<Kind, z.ZodType> = {
  nstring: z.string().nullable(),
  string: z.string(),
  integer: z.number().int(),
  number: z.number(),
  date: z.iso.date(),
  datetime: z.date(),
  json: JSON_TYPE,
};

/**
 * One thing a destination cannot store as given: values of some kinds it refuses (the write
 * fails with an interloper error saying `refused`, nothing stored), or a documented change on
 * read (`readsBack`). Everything no limit covers must round trip exactly.
 */
interface Limit {
  /** What it is, as docs/reliability.md says it. */
  readonly what: string;
  readonly kinds: readonly Kind[];
  /** Whether a value of one of `kinds` falls under it. */
  readonly hits: (value: unknown) => boolean;
  /** A refusal: what its message says. */
  readonly refused?: RegExp;
  /** A documented change: what the value reads back as. */
  readonly readsBack?: (value: unknown) => unknown;
}

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
  {
    name: "Memory",
    available: async () => true,
    make: async () => ({ destination: new MemoryDestination(), cleanup: async () => MemoryDestination.clear() }),
  },
];

/** Exact sameness: -0 is not 0; json values compare deeply (their keys in any order, as jsonb keeps them). */
function same(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return Object.is(a.getTime(), b.getTime());
  if (typeof a === "bigint" || typeof b === "bigint") return typeof a === typeof b && a === b;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => same(item, b[i]));
  if (isObject(a)) {
    if (!isObject(b) || Array.isArray(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && same(a[key], b[key]));
  }
  return Object.is(a, b);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !(value instanceof Date);

function show(value: unknown): string {
  if (typeof value === "string")
    return value.length > 40 ? `${JSON.stringify(value.slice(0, 20))}... (${value.length} chars)` : JSON.stringify(value);
  if (value instanceof Date) return `Date(${Number.isNaN(value.getTime()) ? "invalid" : value.toISOString()})`;
  if (typeof value === "bigint") return `${value}n`;
  if (isObject(value))
    return `json ${JSON.stringify(value, (_key, v: unknown) => (Object.is(v, -0) ? "<-0>" : typeof v === "number" && !Number.isFinite(v) ? `<${v}>` : v)).slice(0, 200)}`;
  return Object.is(value, -0) ? "-0" : String(value);
}

/** Writes each case to its own day through an asset with the declared type; says what happened to each. */
async function roundTrip(
  destination: Destination,
  cases: readonly Case[],
  refusals: Record<string, string> = {},
): Promise<Record<string, string>> {
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
      refusals[c.label] = `${(error as Error).name}: ${message}`;
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

// ---- the documented limits ------------------------------------------------------------------

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);
const STRINGS: readonly Kind[] = ["string", "nstring"];
const isString = (value: unknown): value is string => typeof value === "string";
const yearOf = (value: unknown): number => (value instanceof Date ? value.getUTCFullYear() : Number.NaN);

/** Refused at conform, whatever the destination. */
const INVALID_DATE: Limit = {
  what: "an invalid Date (at conform)",
  kinds: ["datetime"],
  hits: (v) => v instanceof Date && Number.isNaN(v.getTime()),
  refused: /"v" expected datetime \(Date\), got invalid Date/,
};
/** UTF-8 text has no form for a lone surrogate: refused wherever the storage is UTF-8 text. */
const LONE_SURROGATE: Limit = {
  what: "a string holding a lone UTF-16 surrogate",
  kinds: STRINGS,
  hits: (v) => isString(v) && !v.isWellFormed(),
  refused: /cannot write field "v" at row \d+: the string holds a lone UTF-16 surrogate \(\\u[0-9A-F]{4} at index \d+\)/,
};
/** An integer has no negative zero: conform makes it 0 for every destination. */
const INTEGER_ZERO: Limit = {
  what: "an integer field's -0 becomes 0 (at conform)",
  kinds: ["integer"],
  hits: (v) => Object.is(v, -0),
  readsBack: () => 0,
};
/** Whether a json value holds, at any depth (keys too), something `test` picks. */
function jsonHolds(value: unknown, test: (leaf: unknown) => boolean): boolean {
  if (test(value)) return true;
  if (typeof value !== "object" || value === null) return false;
  return Object.keys(value).some((key) => test(key) || jsonHolds((value as Record<string, unknown>)[key], test));
}
/** JSON text writes -0 as 0 and NaN, ±Infinity as null: refused wherever json is stored as JSON text. */
const JSON_NUMBERS: Limit = {
  what: "a json value holding -0, NaN or ±Infinity",
  kinds: ["json"],
  hits: (v) => jsonHolds(v, (leaf) => typeof leaf === "number" && (Object.is(leaf, -0) || !Number.isFinite(leaf))),
  refused:
    /cannot write field "v" at row \d+: the json value holds (-0|NaN|Infinity|-Infinity) at \$.*, which JSON (text writes as 0|has no number for)/,
};
/** A database that parses JSON (jsonb, MySQL's JSON) refuses the escape of a lone surrogate. */
const JSON_LONE_SURROGATE: Limit = {
  what: "a json value holding a string or key with a lone UTF-16 surrogate",
  kinds: ["json"],
  hits: (v) => jsonHolds(v, (leaf) => isString(leaf) && !leaf.isWellFormed()),
  refused:
    /cannot write field "v" at row \d+: the json value holds a (string|key) with a lone UTF-16 surrogate at \$.*, which the database's JSON cannot hold/,
};
const beyondInt64 = (refused: RegExp): Limit => ({
  what: "integers beyond int64",
  kinds: ["integer"],
  hits: (v) => typeof v === "bigint" && (v > INT64_MAX || v < INT64_MIN),
  refused,
});
const negativeZero = (refused: RegExp): Limit => ({ what: "-0", kinds: ["number"], hits: (v) => Object.is(v, -0), refused });
/** Dates ("YYYY-MM-DD") and datetimes (Dates) of a year outside min..max (ISO years: 0 is 1 BC). */
const outsideYears = (min: number, max: number, kinds: readonly Kind[], refused: RegExp): Limit => ({
  what: `${kinds.includes("date") ? "dates and datetimes" : "datetimes"} outside the years ${min}..${max}`,
  kinds,
  hits: (v) => {
    const year = isString(v) ? Number(v.slice(0, 4)) : yearOf(v);
    return year < min || year > max;
  },
  refused,
});

const LIMITS: Record<string, readonly Limit[]> = {
  CSV: [INVALID_DATE, INTEGER_ZERO, LONE_SURROGATE, JSON_NUMBERS],
  File: [INVALID_DATE, INTEGER_ZERO],
  "object store (parquet)": [INVALID_DATE, INTEGER_ZERO, LONE_SURROGATE, beyondInt64(/parquet INT64 value out of range/), JSON_NUMBERS],
  "object store (jsonl)": [INVALID_DATE, INTEGER_ZERO, JSON_NUMBERS],
  "object store (csv)": [INVALID_DATE, INTEGER_ZERO, LONE_SURROGATE, JSON_NUMBERS],
  SQLite: [
    INVALID_DATE,
    INTEGER_ZERO,
    LONE_SURROGATE,
    JSON_NUMBERS,
    beyondInt64(/inserting into \w+: The bound string, buffer, or bigint is too big/),
    {
      what: "NaN (SQLite stores it as NULL)",
      kinds: ["number"],
      hits: (v) => Number.isNaN(v),
      refused: /cannot write field "v" at row \d+: SQLite stores NaN as NULL/,
    },
    negativeZero(/cannot write field "v" at row \d+: SQLite keeps an integral REAL as an integer on disk, so -0 would read back as 0/),
  ],
  PostgreSQL: [
    INVALID_DATE,
    INTEGER_ZERO,
    LONE_SURROGATE,
    JSON_NUMBERS,
    JSON_LONE_SURROGATE,
    {
      what: "a json value holding a string or key with NUL",
      kinds: ["json"],
      hits: (v) => jsonHolds(v, (leaf) => isString(leaf) && leaf.includes("\0")),
      refused:
        /cannot write field "v" at row \d+: the json value holds a (string|key) with a NUL character \(\\u0000\) at \$.*, which PostgreSQL's jsonb cannot hold/,
    },
    {
      what: "NUL in text",
      kinds: STRINGS,
      hits: (v) => isString(v) && v.includes("\0"),
      refused: /invalid byte sequence for encoding "UTF8": 0x00/,
    },
    beyondInt64(/out of range for type bigint/),
    outsideYears(
      1,
      9999,
      ["date", "datetime"],
      /cannot write field "v" at row \d+: the (date|datetime) [-+]?\d{4,6}-\S+ is outside the years 1\.\.9999: PostgreSQL reads dates and timestamps as ISO text/,
    ),
  ],
  MySQL: [
    INVALID_DATE,
    INTEGER_ZERO,
    LONE_SURROGATE,
    JSON_NUMBERS,
    JSON_LONE_SURROGATE,
    {
      what: "strings over 65,535 bytes of UTF-8 (TEXT)",
      kinds: STRINGS,
      hits: (v) => isString(v) && Buffer.byteLength(v) > 65_535,
      refused: /Data too long for column 'v'|Incorrect string value: .* for column `[^`]+`\.`[^`]+`\.`v`/,
    },
    beyondInt64(/Out of range value for column 'v'/),
    {
      what: "NaN and ±Infinity",
      kinds: ["number"],
      hits: (v) => typeof v === "number" && !Number.isFinite(v),
      refused: /cannot write field "v" at row \d+: a DOUBLE column cannot hold (NaN|-?Infinity)/,
    },
    negativeZero(/cannot write field "v" at row \d+: a DOUBLE column does not keep the sign of zero/),
    outsideYears(
      0,
      9999,
      ["datetime"],
      /cannot write field "v" at row \d+: the datetime [-+]?\d{4,6}-\S+ is outside the years 0\.\.9999: a DATETIME column holds no other year/,
    ),
  ],
  Memory: [INVALID_DATE, INTEGER_ZERO],
};

/** The limits of a destination a value of a kind falls under. */
function limitsOf(limits: readonly Limit[], kind: Kind, value: unknown): Limit[] {
  return limits.filter((limit) => limit.kinds.includes(kind) && limit.hits(value));
}

/** Whether a refusal's message is one line, and one of the refusals among `hit`. */
function explains(hit: readonly Limit[], message: string): boolean {
  return !message.includes("\n") && hit.some((limit) => limit.refused?.test(message));
}

const available = new Map<string, boolean>();
beforeAll(async () => {
  for (const target of TARGETS) available.set(target.name, await target.available());
});
afterAll(() => MemoryDestination.clear());

describe("hostile values through every destination", () => {
  for (const target of TARGETS) {
    it(`${target.name}: each value round trips exactly or is refused with an interloper error`, async () => {
      if (!available.get(target.name)) return;
      const limits = LIMITS[target.name]!;
      const { destination, cleanup } = await target.make();
      try {
        const refusals: Record<string, string> = {};
        const outcome = await roundTrip(destination, HOSTILE, refusals);
        console.log(
          `${target.name} refuses:\n  ${Object.entries(refusals)
            .map(([label, message]) => `${label}: ${message.split("\n")[0]!.slice(0, 240)}`)
            .join("\n  ")}`,
        );
        const wanted: Record<string, string> = {};
        for (const c of HOSTILE) {
          const hit = limitsOf(limits, c.kind, c.value);
          const change = hit.find((limit) => limit.readsBack);
          wanted[c.label] = hit.some((limit) => limit.refused)
            ? "refused"
            : change
              ? `reads back as ${show(change.readsBack!(c.value))}`
              : "ok";
        }
        expect(outcome).toEqual(wanted);
        for (const c of HOSTILE) {
          const message = refusals[c.label];
          if (message !== undefined)
            expect(
              explains(limitsOf(limits, c.kind, c.value), message),
              `${c.label}: refused for no documented limit, or in more than one line: ${message}`,
            ).toBe(true);
        }
      } finally {
        await cleanup();
      }
    }, 120_000);
  }
});

// ---- generated values -------------------------------------------------------------------------

/** Every code point, the surrogate halves U+D800..U+DFFF too (alone, each is a lone surrogate). */
const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code));
const textUnit = fc.oneof(
  { weight: 10, arbitrary: anyCodePoint },
  { weight: 10, arbitrary: fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)) },
  { weight: 2, arbitrary: fc.constantFrom("\0", "\r\n", "\n", "\r", '"', ",", "\\", "\t", "\\N", "\uFEFF", "\u2028") },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)) },
);
const TEXT = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit: textUnit }) },
  { weight: 3, arbitrary: fc.string({ unit: "binary" }) },
  { weight: 3, arbitrary: fc.string({ unit: "grapheme" }) },
  { weight: 3, arbitrary: fc.string({ unit: "grapheme-composite" }) },
  // Long and well-formed: tens of thousands of code points, past MySQL's 64 KB TEXT for many.
  {
    weight: 1,
    arbitrary: fc.string({
      unit: fc.oneof(
        fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
      ),
      minLength: 2_000,
      maxLength: 30_000,
      size: "max",
    }),
  },
);

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
// Integers past 2^53 are bigints (conform makes a safe bigint a number, so none are generated).
const INTEGER = fc.oneof(
  { weight: 4, arbitrary: fc.integer() },
  { weight: 4, arbitrary: fc.maxSafeInteger() },
  { weight: 3, arbitrary: fc.oneof(fc.bigInt({ min: SAFE + 1n, max: INT64_MAX }), fc.bigInt({ min: INT64_MIN, max: -SAFE - 1n })) },
  {
    weight: 2,
    arbitrary: fc.oneof(fc.bigInt({ min: INT64_MAX + 1n, max: 2n ** 100n }), fc.bigInt({ min: -(2n ** 100n), max: INT64_MIN - 1n })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<number | bigint>(
      0,
      -0,
      Number.MAX_SAFE_INTEGER,
      Number.MIN_SAFE_INTEGER,
      INT64_MAX,
      INT64_MIN,
      INT64_MAX + 1n,
      INT64_MIN - 1n,
    ),
  },
);

// fc.double() gives -0, NaN, ±Infinity and subnormals too; the edges are added for every run.
const NUMBER = fc.oneof(
  { weight: 8, arbitrary: fc.double() },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      -0,
      0,
      Number.NaN,
      Infinity,
      -Infinity,
      Number.MIN_VALUE,
      -Number.MIN_VALUE,
      2.2250738585072014e-308,
      Number.MAX_VALUE,
      -Number.MAX_VALUE,
      0.1,
      1e21,
      2 ** 53 + 2,
    ),
  },
);

const DAY_MS = 86_400_000;
const dayNumber = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / DAY_MS;
// "YYYY-MM-DD" strings: every day of the years 0000..9999 (a z.iso.date() has four digits).
const ISO_DATE = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .integer({ min: dayNumber("0000-01-01"), max: dayNumber("9999-12-31") })
      .map((day) => new Date(day * DAY_MS).toISOString().slice(0, 10)),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "0000-01-01",
      "0000-12-31",
      "0001-01-01",
      "1582-10-10",
      "1900-02-28",
      "1969-12-31",
      "1970-01-01",
      "2000-02-29",
      "9999-12-31",
    ),
  },
);

// Dates: mostly of the years 1..9999, then the whole range of Date (years -271821..275760, invalid too).
const DATETIME = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.date({ min: new Date("0001-01-01T00:00:00.000Z"), max: new Date("9999-12-31T23:59:59.999Z"), noInvalidDate: true }),
  },
  { weight: 3, arbitrary: fc.date({ noInvalidDate: false }) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        "0000-12-31T23:59:59.999Z",
        "0001-01-01T00:00:00.000Z",
        "1969-12-31T23:59:59.999Z",
        "9999-12-31T23:59:59.999Z",
        "+010000-01-01T00:00:00.000Z",
        "-000001-06-15T12:00:00.000Z",
      )
      .map((iso) => new Date(iso)),
  },
);

// json values: JSON's primitives (doubles with -0, NaN and ±Infinity; text and keys of any code
// unit, lone surrogates and NUL among them) in arrays and objects, a few levels deep.
const SHORT_TEXT = fc.string({ unit: textUnit, maxLength: 12 });
const JSON_VALUE: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    NUMBER,
    SHORT_TEXT,
    fc.array(tie("node"), { maxLength: 4 }),
    fc.dictionary(SHORT_TEXT, tie("node"), { maxKeys: 4 }),
  ),
})).node;

/** The generated fields: each kind in one asset, nullable ones with nulls among the values. */
const FUZZ: ReadonlyArray<{ readonly kind: Kind; readonly type: z.ZodType; readonly values: fc.Arbitrary<unknown> }> = [
  { kind: "string", type: z.string(), values: TEXT },
  { kind: "nstring", type: z.string().nullable(), values: fc.option(TEXT, { nil: null }) },
  { kind: "integer", type: z.number().int().nullable(), values: fc.option(INTEGER, { nil: null }) },
  { kind: "number", type: z.number().nullable(), values: fc.option(NUMBER, { nil: null }) },
  { kind: "date", type: z.iso.date().nullable(), values: fc.option(ISO_DATE, { nil: null }) },
  { kind: "datetime", type: z.date().nullable(), values: fc.option(DATETIME, { nil: null }) },
  { kind: "json", type: JSON_TYPE.nullable(), values: fc.option(JSON_VALUE, { nil: null }) },
];
/** Values per kind: 7 kinds, so 840 per destination in the long variant. */
const PER_KIND = LONG ? 120 : 40;
/** Refused values also written alone (each in its own partition), per limit and kind. */
const ALONE = LONG ? 4 : 2;
const SEED = seedFor("hostile-data: generated values");

describe("generated values through every destination", () => {
  for (const [t, target] of TARGETS.entries()) {
    it(`${target.name}: ${PER_KIND * FUZZ.length} generated values, many to a partition, round trip exactly or are refused for a documented limit`, async () => {
      if (!available.get(target.name)) return;
      const started = Date.now();
      const limits = LIMITS[target.name]!;
      const { destination, cleanup } = await target.make();
      const valuesOf = new Map<string, readonly unknown[]>();
      const assets = FUZZ.map(({ kind, type }) =>
        asset({
          key: `f_${kind}`,
          partitioning: new TimePartitionConfig({ column: "date", start: "2000-01-01" }),
          schema: z.object({ date: z.iso.date(), v: type }),
          run: (context) => {
            const day = context.partition!.key;
            return valuesOf.get(day)!.map((v) => ({ date: day, v }));
          },
        }),
      );
      const bound = source({ key: "fuzz", assets })({ destinations: destination });
      let days = 0;
      const tally = { values: 0, stored: 0, refusedAlone: 0, refusedWhole: 0 };
      const refusedBy = new Map<string, number>();
      try {
        for (const [k, { kind, values }] of FUZZ.entries()) {
          const a = bound.assets[`f_${kind}`]!;
          const context = `${target.name}, ${kind}, seed ${SEED}`;
          /** Writes values as one partition: null, or the interloper error that refused them. */
          const attempt = async (day: string, rows: readonly unknown[]): Promise<Error | null> => {
            valuesOf.set(day, rows);
            try {
              await a.materialize(TimePartition.fromKey(day));
              return null;
            } catch (error) {
              expect(error, `${context}: refused with a non-interloper error: ${String(error)}`).toBeInstanceOf(InterloperError);
              return error as Error;
            }
          };
          const readBack = async (day: string) => TableData.from(await a.read(TimePartition.fromKey(day)))!.rows.map((row) => row["v"]);

          const generated = fc.sample(values, { seed: (SEED + t * 1009 + k) >>> 0, numRuns: PER_KIND });
          tally.values += generated.length;
          const hits = generated.map((value) => limitsOf(limits, kind, value));
          const refused = hits.map((hit) => hit.some((limit) => limit.refused));
          const kept = generated.filter((_, i) => !refused[i]);
          const keptHits = hits.filter((_, i) => !refused[i]);

          // Every value no limit refuses, in one partition: stored, and each reads back exactly
          // (or as its documented change says).
          const day = dayKey(days++);
          const error = await attempt(day, kept);
          expect(error, `${context}: values no documented limit refuses were refused: ${error?.message}`).toBeNull();
          const back = await readBack(day);
          expect(back.length, `${context}: rows read back`).toBe(kept.length);
          const wrong: string[] = [];
          kept.forEach((value, i) => {
            const change = keptHits[i]!.find((limit) => limit.readsBack);
            const want = change ? change.readsBack!(value) : value;
            if (!same(back[i], want))
              wrong.push(`row ${i}: wrote ${show(value)}, read ${show(back[i])}${change ? ` (documented: ${change.what})` : ""}`);
          });
          expect(wrong, `${context}: values stored changed`).toEqual([]);
          tally.stored += kept.length;
          if (!refused.some(Boolean)) continue;

          // Every value, refused ones among them, over that partition: refused for one of the
          // limits they fall under, and the partition keeps the rows it had.
          const whole = await attempt(day, generated);
          const among = hits.filter((_, i) => refused[i]).flat();
          expect(whole, `${context}: ${among.length} value(s) documented as refused were all stored`).not.toBeNull();
          expect(
            explains(among, whole!.message),
            `${context}: refused for no documented limit, or in more than one line: ${whole!.message}`,
          ).toBe(true);
          // A refusal naming a row names one that falls under the limit it gives.
          const named = /cannot write field "v" at row (\d+)/.exec(whole!.message);
          if (named)
            expect(
              explains(hits[Number(named[1])] ?? [], whole!.message),
              `${context}: the refusal names row ${named[1]}, ${show(generated[Number(named[1])])}: ${whole!.message}`,
            ).toBe(true);
          expect(
            (await readBack(day)).every((value, i) => same(value, back[i])),
            `${context}: a refused rewrite changed the partition`,
          ).toBe(true);
          expect((await a.partitionRowCounts())[day], `${context}: rows after a refused rewrite`).toBe(kept.length);
          tally.refusedWhole++;

          // Some refused values alone, each in a partition of its own: refused for a limit it
          // falls under (no limit is documented wider than it is), nothing stored.
          const tries = new Map<Limit, number>();
          for (const [i, value] of generated.entries()) {
            const limit = hits[i]!.find((l) => l.refused);
            if (!limit || (tries.get(limit) ?? 0) >= ALONE) continue;
            tries.set(limit, (tries.get(limit) ?? 0) + 1);
            const alone = dayKey(days++);
            const refusal = await attempt(alone, [value]);
            expect(
              refusal,
              `${context}: ${show(value)} is documented as refused (${hits[i]!.map((l) => l.what).join("; ")}) but was stored`,
            ).not.toBeNull();
            expect(
              explains(hits[i]!, refusal!.message),
              `${context}: ${show(value)} refused for no documented limit, or in more than one line: ${refusal!.message}`,
            ).toBe(true);
            expect(
              Object.keys(await a.partitionRowCounts()),
              `${context}: ${show(value)} was refused but its partition exists`,
            ).not.toContain(alone);
            tally.refusedAlone++;
          }
          for (const hit of hits)
            for (const limit of hit) if (limit.refused) refusedBy.set(limit.what, (refusedBy.get(limit.what) ?? 0) + 1);
        }
      } finally {
        await cleanup();
      }
      const by = [...refusedBy].map(([what, n]) => `${n} ${what}`).join(", ") || "none";
      console.log(
        `${target.name}: ${tally.values} generated values (seed ${SEED}) in ${Date.now() - started} ms: ${tally.stored} stored and read back exactly (or as documented); refused as documented: ${by}; ` +
          `${tally.refusedWhole} partition(s) with refused values refused whole, ${tally.refusedAlone} refused value(s) checked alone`,
      );
    }, 120_000);
  }
});
