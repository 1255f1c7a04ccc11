// What the model-based test (model.test.ts) writes: five assets over one source, rows with a
// column of every field type, and list values made to collide. Values stay within what every
// destination stores exactly (README, Reliability > Hostile values): the hostile values have
// their own test; this one is about sequences of operations.
import fc from "fast-check";
import { z } from "zod";
import { asset, type AssetDefinition } from "../../src/asset/definition.js";
import type { ExecutionContext } from "../../src/asset/execution-context.js";
import {
  ListPartitionConfig,
  TimeGranularity,
  TimePartitionConfig,
  type Partition,
  type PartitionConfig,
  type PartitionWindow,
} from "../../src/partitioning/index.js";
import type { Row } from "../../src/representation/index.js";

/** The columns every row has besides its partition column: one of each field type. */
export interface Values {
  readonly s: string;
  readonly ns: string | null;
  readonly i: number | bigint | null;
  readonly n: number | null;
  readonly b: boolean;
  readonly d: string | null;
  readonly t: Date | null;
  readonly j: unknown;
  /** Where in its partition the row's partition value falls (monthly: the day, hourly: the ms). */
  readonly at: number;
}

// ---- values -------------------------------------------------------------------------------

// Text every destination stores exactly: well-formed UTF-16 (UTF-8 storage has no lone
// surrogate), no NUL (PostgreSQL text), short (MySQL TEXT), with the characters file formats
// and SQL quote specially.
const textUnit = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }) },
  { weight: 4, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      ",",
      '"',
      "'",
      "\n",
      "\r",
      "\r\n",
      "\t",
      "\\",
      "\\N",
      " ",
      "NULL",
      "é",
      "e\u0301",
      "\uFEFF",
      "\u2028",
      "%",
      "+",
      ".tmp-",
    ),
  },
);
const TEXT = fc.string({ unit: textUnit, maxLength: 8 }).filter((s) => !s.includes("\0"));

const INT64_MAX = 2n ** 63n - 1n;
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
// Safe integers are numbers and the rest of int64 bigints, as conform gives them.
const INTEGER: fc.Arbitrary<number | bigint> = fc.oneof(
  { weight: 4, arbitrary: fc.integer() },
  { weight: 2, arbitrary: fc.maxSafeInteger().map((n) => (Object.is(n, -0) ? 0 : n)) },
  { weight: 1, arbitrary: fc.oneof(fc.bigInt({ min: SAFE + 1n, max: INT64_MAX }), fc.bigInt({ min: -INT64_MAX - 1n, max: -SAFE - 1n })) },
);
// Finite and never -0: SQLite and MySQL refuse -0, and NaN and the infinities too.
const NUMBER = fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n));

const DAY_MS = 86_400_000;
const FIRST_DAY = Date.UTC(1, 0, 1) / DAY_MS;
const LAST_DAY = Date.UTC(9999, 11, 31) / DAY_MS;
// Years 1..9999: the years PostgreSQL reads.
const ISO_DATE = fc.integer({ min: FIRST_DAY, max: LAST_DAY }).map((day) => new Date(day * DAY_MS).toISOString().slice(0, 10));
const DATETIME = fc.date({ min: new Date("0001-01-01T00:00:00.000Z"), max: new Date("9999-12-31T23:59:59.999Z"), noInvalidDate: true });

// json: no -0, NaN or infinity (JSON text has none), no NUL (jsonb) and no "__proto__" key.
const KEY = fc.string({ unit: textUnit, maxLength: 5 }).filter((k) => !k.includes("\0") && k !== "__proto__");
const JSON_VALUE: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    NUMBER,
    TEXT,
    fc.array(tie("node"), { maxLength: 3 }),
    fc.dictionary(KEY, tie("node"), { maxKeys: 3, noNullPrototype: true }),
  ),
})).node;
// A json field holds an object, an array or a primitive; null stands for "no value".
const JSON_FIELD = JSON_VALUE.filter((v) => v !== null);

export const VALUES: fc.Arbitrary<Values> = fc.record({
  s: TEXT,
  ns: fc.option(TEXT, { nil: null }),
  i: fc.option(INTEGER, { nil: null }),
  n: fc.option(NUMBER, { nil: null }),
  b: fc.boolean(),
  d: fc.option(ISO_DATE, { nil: null }),
  t: fc.option(DATETIME, { nil: null }),
  j: fc.option(JSON_FIELD, { nil: null }),
  at: fc.nat(),
});

const JSON_TYPE = z.union([z.record(z.string(), z.unknown()), z.array(z.unknown()), z.string(), z.number(), z.boolean()]);
const VALUE_FIELDS = {
  s: z.string(),
  ns: z.string().nullable(),
  i: z.number().int().nullable(),
  n: z.number().nullable(),
  b: z.boolean(),
  d: z.iso.date().nullable(),
  t: z.date().nullable(),
  j: JSON_TYPE.nullable(),
};

// ---- list values ----------------------------------------------------------------------------

// Values that differ only in what a collation, a filesystem, a URL or a listing may fold:
// case, accents (composed and decomposed), trailing and inner spaces, the temp-file marker,
// characters URLs encode, and the 8-bit controls and separators a listing or a terminal may
// mangle (C0 controls such as \r are refused in list values, so they are left to the config tests).
const VARIANTS = [
  "eu",
  "EU",
  "Eu",
  "café",
  "cafe",
  "CAFÉ",
  "cafe\u0301",
  "x",
  "x ",
  " x",
  "x  ",
  "a.tmp-b",
  "data.tmp-1.csv",
  ".tmp-",
  "a+b",
  "a b",
  "a%20b",
  "50%",
  "%41",
  "日本",
  "🚀",
  "ß",
  "ss",
  "ǅ",
  "x\u0085",
  "x\u009b",
  "x\u2028",
] as const;
// A list value: a path segment (no "/", "\", "=" or C0 control; not "." or "..") short enough for
// any filesystem, built mostly from the variants above so that they meet in one partitioning.
const LIST_VALUE = fc
  .oneof(
    { weight: 6, arbitrary: fc.constantFrom(...VARIANTS) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom(...VARIANTS), fc.constantFrom(" ", ".tmp-", "+", "%", "É")).map(([v, suffix]) => v + suffix),
    },
    { weight: 1, arbitrary: fc.string({ unit: textUnit, minLength: 1, maxLength: 6 }) },
  )
  .filter((v) => v !== "." && v !== ".." && !/[/\\=\u0000-\u001f\u007f]/.test(v) && Buffer.byteLength(v) <= 60);

/** The declared values of the list partitioning: two to six, distinct (as JavaScript sees them). */
export const LIST_VALUES = fc.uniqueArray(LIST_VALUE, { minLength: 2, maxLength: 6 });

// ---- assets -----------------------------------------------------------------------------------

/** One asset of the model: its key, partitioning and the keys of the partitions commands pick from. */
export interface ModelAsset {
  readonly key: string;
  readonly column: string;
  readonly config: PartitionConfig;
  /** The partitions commands pick from, in order. */
  readonly keys: readonly string[];
  /** The row's partition value for a partition key and a row's `at`. */
  value(key: string, at: number): unknown;
}

const HOUR_MS = 3_600_000;
const daily = new TimePartitionConfig({ column: "date", allowWindow: true });

/**
 * The assets: two daily ones whose names differ only in case (one table each), a list, a monthly
 * one holding daily dates and an hourly one of Dates. Where table names ignore case (SQLite), such
 * a pair is refused before anything is written (sql-name-case.test.ts), so there the second daily
 * asset has a name of its own.
 */
export function modelAssets(listValues: readonly string[], caseBlindTables = false): ModelAsset[] {
  const days = ["2028-02-27", "2028-02-28", "2028-02-29", "2028-03-01", "2028-03-02"];
  const dailyAsset = (key: string): ModelAsset => ({ key, column: "date", config: daily, keys: days, value: (k) => k });
  return [
    dailyAsset("events"),
    dailyAsset(caseBlindTables ? "events_twin" : "Events"),
    {
      key: "regions",
      column: "region",
      config: new ListPartitionConfig({ column: "region", values: listValues, allowWindow: true }),
      keys: listValues,
      value: (k) => k,
    },
    {
      key: "months",
      column: "day",
      config: new TimePartitionConfig({ column: "day", granularity: TimeGranularity.MONTH, allowWindow: true }),
      keys: ["2027-11", "2027-12", "2028-01", "2028-02"],
      value: (k, at) => {
        const [year, month] = k.split("-").map(Number) as [number, number];
        const length = new Date(Date.UTC(year, month, 0)).getUTCDate();
        return new Date(Date.UTC(year, month - 1, 1 + (at % length))).toISOString().slice(0, 10);
      },
    },
    {
      key: "clicks",
      column: "ts",
      config: new TimePartitionConfig({ column: "ts", granularity: TimeGranularity.HOUR, allowWindow: true }),
      keys: ["2028-03-26T00", "2028-03-26T01", "2028-03-26T02", "2028-03-26T03", "2028-03-26T04"],
      value: (k, at) => new Date(Date.parse(`${k}:00:00Z`) + (at % HOUR_MS)),
    },
  ];
}

/** The schema of a model asset: its partition column, then one column of every field type. */
function schemaOf(a: ModelAsset) {
  const partition = a.key === "clicks" ? z.date() : z.string();
  return z.object({ [a.column]: partition, ...VALUE_FIELDS });
}

/** What an asset's run returns for one materialize call, looked up by the call's run id. */
export type Payloads = Map<string, () => unknown>;

/** The asset definitions; each run returns the payload its materialize call registered. */
export function assetDefinitions(assets: readonly ModelAsset[], payloads: Payloads): AssetDefinition[] {
  return assets.map((a) =>
    asset({
      key: a.key,
      partitioning: a.config,
      schema: schemaOf(a),
      run: (context: ExecutionContext) => {
        const payload = payloads.get(context.runId);
        if (!payload) throw new Error(`no payload for run ${context.runId}`);
        // Generated rows, which the schema's type does not describe: conforming them is the test.
        return payload() as never;
      },
    }),
  );
}

/** The rows of one partition, given its generated values. */
export function rowsOf(a: ModelAsset, key: string, values: readonly Values[]): Row[] {
  return values.map(({ at, ...rest }) => ({ [a.column]: a.value(key, at), ...rest }));
}

/** A window or a partition of a model asset, from positions in its keys (both ends kept in range). */
export function windowOf(a: ModelAsset, first: number, last: number): PartitionWindow | Partition {
  const keys = a.keys;
  if (first === last) return a.config.partition(keys[first]!);
  return a.config.window(keys[first]!, keys[last]!);
}
