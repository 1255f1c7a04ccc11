import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type FieldSpec, formatIsoDate, reconcileRows, toText } from "../../src/schema/index.js";

const RUNS = 300;
const DAY_MS = 86_400_000;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
// Date holds +-8.64e15 ms, that is +-1e8 days around the epoch.
const MAX_DAYS = 100_000_000;

const days = fc.integer({ min: -MAX_DAYS, max: MAX_DAYS });
const instants = fc.date({ noInvalidDate: true });

/** A zoned ISO string for an instant, written at an offset of a whole number of minutes. */
const offsetText = fc
  .tuple(fc.integer({ min: -8.6e15, max: 8.6e15 }), fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }))
  .map(([time, minutes]) => {
    const wall = new Date(time + minutes * 60_000).toISOString().slice(0, -1);
    const abs = Math.abs(minutes);
    const zone = `${minutes < 0 ? "-" : "+"}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
    return `${wall}${zone}`;
  });

const integers = fc.oneof(
  fc.maxSafeInteger(),
  fc.constant(-0),
  fc.bigInt({ min: MAX_SAFE + 1n, max: 2n ** 128n }),
  fc.bigInt({ min: -(2n ** 128n), max: -MAX_SAFE - 1n }),
);

// JSON text has no -0 below the top level (JSON.stringify writes it "0").
function withoutNestedNegativeZero(value: unknown, top = true): unknown {
  if (typeof value === "number") return !top && Object.is(value, -0) ? 0 : value;
  if (Array.isArray(value)) return value.map((item) => withoutNestedNegativeZero(item, false));
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(out, key, {
        value: withoutNestedNegativeZero(item, false),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

function expectSame(actual: unknown, expected: unknown): void {
  if (expected instanceof Date) {
    expect(actual).toBeInstanceOf(Date);
    expect((actual as Date).getTime()).toBe(expected.getTime());
  } else if (typeof expected === "object" && expected !== null) {
    expect(actual).toEqual(expected);
  } else {
    // Object.is tells -0 from 0 and a bigint from a number, and matches NaN.
    expect(Object.is(actual, expected), `${String(actual)} should be ${String(expected)}`).toBe(true);
  }
}

interface Case {
  readonly label: string;
  readonly spec: Omit<FieldSpec, "name" | "nullable">;
  readonly values: fc.Arbitrary<unknown>;
  /** What reconcile gives back when it is not the value itself. */
  readonly expected?: (value: unknown, nullable: boolean) => unknown;
}

const cases: Case[] = [
  // CSV cannot tell "" from null, so a nullable string field reads "" back as null; a
  // non-nullable one cannot hold null and keeps "".
  { label: "string", spec: { type: "string" }, values: fc.string({ unit: "binary" }), expected: (v, n) => (v === "" && n ? null : v) },
  // An integer has no negative zero: "-0" in an integer column reads back as 0.
  { label: "integer", spec: { type: "integer" }, values: integers, expected: (v) => (Object.is(v, -0) ? 0 : v) },
  { label: "number", spec: { type: "number" }, values: fc.double() },
  { label: "boolean", spec: { type: "boolean" }, values: fc.boolean() },
  { label: "date (default: string)", spec: { type: "date" }, values: days.map((d) => formatIsoDate(new Date(d * DAY_MS))) },
  { label: "date (asDate false)", spec: { type: "date", asDate: false }, values: days.map((d) => formatIsoDate(new Date(d * DAY_MS))) },
  { label: "date (asDate true)", spec: { type: "date", asDate: true }, values: days.map((d) => new Date(d * DAY_MS)) },
  { label: "datetime (default: Date)", spec: { type: "datetime" }, values: instants },
  { label: "datetime (asDate true)", spec: { type: "datetime", asDate: true }, values: instants },
  {
    label: "datetime (asDate false)",
    spec: { type: "datetime", asDate: false },
    values: fc.oneof(
      instants.map((d) => d.toISOString()),
      offsetText,
    ),
  },
  {
    // A top-level string in a json field is ambiguous as plain text ("123" reads as JSON); the
    // spec-aware toText below covers strings.
    label: "json",
    spec: { type: "json" },
    values: fc.jsonValue().filter((v) => typeof v !== "string"),
    expected: (v) => withoutNestedNegativeZero(v),
  },
];

describe("reconcileRows(toText(v)) gives back v", () => {
  for (const { label, spec, values, expected } of cases) {
    for (const nullable of [false, true]) {
      it(`${label}, ${nullable ? "nullable" : "not nullable"}`, () => {
        const field: FieldSpec = { name: "f", nullable, ...spec };
        const arbitrary = nullable ? fc.option(values, { nil: null }) : values;
        fc.assert(
          fc.property(arbitrary, (value) => {
            const [row] = reconcileRows([{ f: toText(value) }], [field]);
            expectSame(row!["f"], value === null ? null : expected ? expected(value, nullable) : value);
          }),
          { numRuns: RUNS },
        );
      });
    }
  }

  it("json, strings included, when toText is given the spec", () => {
    const field: FieldSpec = { name: "f", type: "json", nullable: true };
    fc.assert(
      fc.property(fc.option(fc.jsonValue(), { nil: null }), (value) => {
        const [row] = reconcileRows([{ f: toText(value, field) }], [field]);
        expectSame(row!["f"], withoutNestedNegativeZero(value));
      }),
      { numRuns: RUNS },
    );
  });

  it("date held as a Date, when toText is given the spec", () => {
    const field: FieldSpec = { name: "f", type: "date", nullable: false, asDate: true };
    fc.assert(
      fc.property(days, (d) => {
        const value = new Date(d * DAY_MS);
        const text = toText(value, field);
        expect(text).not.toContain("T");
        expectSame(reconcileRows([{ f: text }], [field])[0]!["f"], value);
      }),
      { numRuns: RUNS },
    );
  });
});
