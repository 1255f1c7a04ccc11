import { describe, expect, it } from "vitest";
import { SchemaError } from "../../src/errors.js";
import { type FieldSpec, formatIsoDate, parseIsoDateTime, toText } from "../../src/schema/index.js";

const utcDay = (year: number, month: number, day: number): Date => {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return d;
};

describe("toText", () => {
  it.each([
    ["null", null, ""],
    ["undefined", undefined, ""],
    ["a string", 'héllo, "x"', 'héllo, "x"'],
    ["the empty string", "", ""],
    ["an ISO date string", "2026-05-20", "2026-05-20"],
    ["an integer", 42, "42"],
    ["a fraction", -1.5, "-1.5"],
    ["zero", 0, "0"],
    ["negative zero", -0, "-0"],
    ["NaN", Number.NaN, "NaN"],
    ["Infinity", Number.POSITIVE_INFINITY, "Infinity"],
    ["-Infinity", Number.NEGATIVE_INFINITY, "-Infinity"],
    ["a large number", 1e21, "1e+21"],
    ["a tiny number", 5e-324, "5e-324"],
    ["a bigint", 12345678901234567890n, "12345678901234567890"],
    ["a negative bigint", -(2n ** 64n), "-18446744073709551616"],
    ["true", true, "true"],
    ["false", false, "false"],
    ["a Date", new Date(Date.UTC(2026, 4, 20, 13, 45, 1, 7)), "2026-05-20T13:45:01.007Z"],
    ["a Date before year 0", utcDay(-1, 1, 1), "-000001-01-01T00:00:00.000Z"],
    ["an object", { a: 1, b: [true, null] }, '{"a":1,"b":[true,null]}'],
    ["an array", [1, "x"], '[1,"x"]'],
  ])("writes %s", (_label, value, text) => {
    expect(toText(value)).toBe(text);
  });

  it("writes a bigint inside json as a JSON number with its exact digits", () => {
    expect(toText({ id: 2n ** 70n, list: [1n, { n: -3n }], skipped: undefined })).toBe('{"id":1180591620717411303424,"list":[1,{"n":-3}]}');
    expect(toText([undefined, 1n])).toBe("[null,1]");
  });

  it("honours toJSON inside json, also on the bigint path", () => {
    const at = new Date(Date.UTC(2026, 0, 1));
    expect(toText({ at, n: 1n })).toBe('{"at":"2026-01-01T00:00:00.000Z","n":1}');
  });

  it("refuses a circular structure", () => {
    const cycle: Record<string, unknown> = { n: 1n };
    cycle["self"] = cycle;
    expect(() => toText(cycle)).toThrow(TypeError);
  });

  it("refuses values text cannot hold faithfully", () => {
    expect(() => toText(new Date(Number.NaN))).toThrow(SchemaError);
    expect(() => toText(new Map([["a", 1]]))).toThrow(/Map/);
    expect(() => toText(new Set([1]))).toThrow(/Set/);
    expect(() => toText(Symbol("s"))).toThrow(SchemaError);
    expect(() => toText(() => 1)).toThrow(SchemaError);
  });

  it("writes a date field's Date as YYYY-MM-DD when given the spec", () => {
    const spec: FieldSpec = { name: "day", type: "date", nullable: false, asDate: true };
    expect(toText(utcDay(2026, 5, 20), spec)).toBe("2026-05-20");
    expect(toText(utcDay(10_000, 1, 1), spec)).toBe("+010000-01-01");
    expect(toText("2026-05-20", spec)).toBe("2026-05-20");
  });

  it("writes every value of a json field as JSON text when given the spec", () => {
    const spec: FieldSpec = { name: "j", type: "json", nullable: true };
    expect(toText("123", spec)).toBe('"123"');
    expect(toText("", spec)).toBe('""');
    expect(toText(123, spec)).toBe("123");
    expect(toText(null, spec)).toBe("");
    expect(toText({ a: 1n }, spec)).toBe('{"a":1}');
  });
});

describe("ISO helpers", () => {
  it("formats a Date's UTC day, whatever the process time zone", () => {
    expect(formatIsoDate(new Date(Date.UTC(2026, 4, 20, 23, 59)))).toBe("2026-05-20");
    expect(formatIsoDate(utcDay(-5, 3, 1))).toBe("-000005-03-01");
  });

  it.each([
    ["a bare date is UTC midnight", "2026-05-20", Date.UTC(2026, 4, 20), false],
    ["toISOString's shape", "2026-05-20T13:45:01.007Z", Date.UTC(2026, 4, 20, 13, 45, 1, 7), true],
    ["no zone is UTC", "2026-05-20T13:45", Date.UTC(2026, 4, 20, 13, 45), false],
    ["a space separator", "2026-05-20 13:45:00+00", Date.UTC(2026, 4, 20, 13, 45), true],
    ["a positive offset", "2026-05-20T13:45:00+05:30", Date.UTC(2026, 4, 20, 8, 15), true],
    ["a negative offset without colon", "2026-05-20T13:45:00-0700", Date.UTC(2026, 4, 20, 20, 45), true],
    ["microseconds (truncated)", "2026-05-20T00:00:00.123456Z", Date.UTC(2026, 4, 20, 0, 0, 0, 123), true],
    ["one fraction digit", "2026-05-20T00:00:00.5Z", Date.UTC(2026, 4, 20, 0, 0, 0, 500), true],
    ["a leap day", "2024-02-29T00:00:00Z", Date.UTC(2024, 1, 29), true],
    ["an expanded year", "+010000-01-01T00:00:00.000Z", utcDay(10_000, 1, 1).getTime(), true],
    ["year 0042 (not 1942)", "0042-01-01", utcDay(42, 1, 1).getTime(), false],
  ])("reads %s", (_label, text, time, zoned) => {
    expect(parseIsoDateTime(text)).toEqual({ time, zoned });
  });

  it.each([
    "",
    "2026-02-30",
    "2025-02-29",
    "2026-13-01",
    "2026-05-20T24:00:00Z",
    "2026-05-20T12:60Z",
    "2026-05-20T12:00:00+25:00",
    "20260520",
    "May 20, 2026",
    "2026-05-20T13",
    "-000000-01-01",
    "+300000-01-01T00:00:00.000Z",
    "2026-05-20T13:45:01.007X",
  ])("refuses %j", (text) => {
    expect(parseIsoDateTime(text)).toBeNull();
  });
});
