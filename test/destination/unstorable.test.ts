// The refusals destinations share: json values JSON text would change (jsonText, storableJson)
// and dates of years a store cannot take (withinYears, in the PostgreSQL and MySQL encoders).
import { describe, expect, it } from "vitest";
import { mysqlValue } from "../../src/destination/database/mysql/mysql-values.js";
import { copyFieldWriter } from "../../src/destination/database/postgres/copy-text.js";
import { sqliteValue } from "../../src/destination/database/sqlite/sqlite-dialect.js";
import { jsonText, storableJson, withinYears } from "../../src/destination/unstorable.js";
import { SchemaError } from "../../src/errors.js";

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SchemaError);
    const message = (error as Error).message;
    expect(message).not.toMatch(/[\n\r\u2028\u2029]/);
    return message;
  }
  throw new Error("expected a refusal, but the value was accepted");
}

describe("jsonText: the JSON text of a json value, or a refusal naming where it would change", () => {
  it("writes JSON text, bigints with their exact digits", () => {
    expect(jsonText({ a: [1, "x", null, true], b: { "": 0.5 } }, "CSV", "v", 0)).toBe('{"a":[1,"x",null,true],"b":{"":0.5}}');
    expect(jsonText([2n ** 64n, "\uD800"], "CSV", "v", 0)).toBe('[18446744073709551616,"\\ud800"]');
    expect(jsonText("123", "CSV", "v", 0)).toBe('"123"');
    expect(jsonText(JSON.parse('{"__proto__":1}'), "CSV", "v", 0)).toBe('{"__proto__":1}');
  });

  it.each([
    [-0, "the json value holds -0 at $, which JSON text writes as 0"],
    [{ a: [1, -0] }, "the json value holds -0 at $.a[1], which JSON text writes as 0"],
    [[Number.NaN], "the json value holds NaN at $[0], which JSON has no number for (it would read back as null)"],
    [{ "a key": { x: -Infinity } }, 'the json value holds -Infinity at $["a key"].x, which JSON has no number for'],
    [{ m: new Map([["k", 1]]) }, "the json value holds a Map at $.m, which JSON text writes as {}"],
    [[new Set([1])], "the json value holds a Set at $[0], which JSON text writes as {}"],
  ])("refuses %o wherever JSON text is stored", (value, reason) => {
    expect(refusal(() => jsonText(value, "SQLite", "v", 4))).toContain(`SQLite: cannot write field "v" at row 4: ${reason}`);
    expect(refusal(() => storableJson(value, "Parquet", "v", 4))).toContain(`Parquet: cannot write field "v" at row 4: ${reason}`);
  });

  it("refuses lone surrogates and NUL only where the database parses JSON", () => {
    const lone = { s: "ok", t: ["x\uDC00"] };
    expect(jsonText(lone, "CSV", "v", 0)).toBe('{"s":"ok","t":["x\\udc00"]}');
    expect(refusal(() => jsonText(lone, "MySQL", "v", 2, { wellFormed: true }))).toContain(
      'MySQL: cannot write field "v" at row 2: the json value holds a string with a lone UTF-16 surrogate at $.t[0]',
    );
    expect(refusal(() => jsonText({ "\uD800k": 1 }, "MySQL", "v", 2, { wellFormed: true }))).toContain(
      'a key with a lone UTF-16 surrogate at $["\\ud800k"]',
    );
    expect(jsonText({ s: "a\u0000b" }, "MySQL", "v", 0, { wellFormed: true })).toBe('{"s":"a\\u0000b"}');
    expect(refusal(() => jsonText({ s: "a\u0000b" }, "PostgreSQL", "v", 0, { wellFormed: true, noNul: true }))).toContain(
      "a string with a NUL character (\\u0000) at $.s, which PostgreSQL's jsonb cannot hold",
    );
  });

  it("names a long or line-breaking key on one short line", () => {
    const key = `line\u2028break\u2029${"k".repeat(100)}`;
    const message = refusal(() => jsonText({ [key]: -0 }, "CSV", "v", 0));
    expect(message).toContain('at $["line\\u2028break\\u2029kkkk');
    expect(message).toContain('kkkk"...], which JSON text writes as 0');
    expect(message.length).toBeLessThan(300);
  });

  it("leaves a cycle to JSON.stringify's own error", () => {
    const cycle: Record<string, unknown> = {};
    cycle["self"] = cycle;
    expect(() => jsonText(cycle, "CSV", "v", 0)).toThrow(TypeError);
  });
});

describe("withinYears: dates of the years a store takes", () => {
  it("passes dates and datetimes of the years, and text whose year cannot be read", () => {
    const date = new Date("9999-12-31T23:59:59.999Z");
    expect(withinYears(date, "datetime", [1, 9999], "PostgreSQL", "at", 0, "why")).toBe(date);
    expect(withinYears("0001-01-01", "date", [1, 9999], "PostgreSQL", "day", 0, "why")).toBe("0001-01-01");
    expect(withinYears("not a date", "date", [1, 9999], "PostgreSQL", "day", 0, "why")).toBe("not a date");
  });

  it("refuses other years, saying what is allowed", () => {
    expect(refusal(() => withinYears(new Date(Date.UTC(10000, 0, 1)), "datetime", [1, 9999], "PostgreSQL", "at", 3, "because"))).toBe(
      'PostgreSQL: cannot write field "at" at row 3: the datetime +010000-01-01T00:00:00.000Z is outside the years 1..9999: because; expected a datetime of the years 1..9999',
    );
    expect(refusal(() => withinYears("0000-02-29", "date", [1, 9999], "PostgreSQL", "day", 0, "because"))).toContain(
      "the date 0000-02-29 is outside the years 1..9999",
    );
    expect(refusal(() => withinYears("-000001-06-15T12:00:00.000Z", "datetime", [0, 9999], "MySQL", "at", 0, "because"))).toContain(
      "the datetime -000001-06-15T12:00:00.000Z is outside the years 0..9999",
    );
  });

  it("is what the PostgreSQL and MySQL encoders refuse, before any text is sent", () => {
    expect(copyFieldWriter("instant", "at")(new Date("0001-01-01T00:00:00Z"), 0)).toBe("0001-01-01T00:00:00.000Z");
    expect(refusal(() => copyFieldWriter("instant", "at")(new Date("0000-12-31T23:59:59.999Z"), 7))).toMatch(
      /^PostgreSQL: cannot write field "at" at row 7: the datetime 0000-12-31T23:59:59\.999Z is outside the years 1\.\.9999/,
    );
    expect(refusal(() => copyFieldWriter("date", "day")("0000-01-01", 1))).toMatch(
      /^PostgreSQL: cannot write field "day" at row 1: the date 0000-01-01 is outside/,
    );
    // A zoned datetime is kept as its text, whatever its year.
    expect(copyFieldWriter("zoned", "at")("0000-01-01T00:00:00+01:00", 0)).toBe("0000-01-01T00:00:00+01:00");
    expect(mysqlValue("instant", new Date("0000-06-01T00:00:00Z"), "at", 0)).toBe("0000-06-01 00:00:00.000");
    expect(refusal(() => mysqlValue("instant", new Date(Date.UTC(10000, 0, 1)), "at", 5))).toMatch(
      /^MySQL: cannot write field "at" at row 5: the datetime \+010000-01-01T00:00:00\.000Z is outside the years 0\.\.9999: a DATETIME column holds no other year/,
    );
  });

  it("json values go through jsonText in every SQL encoder", () => {
    expect(refusal(() => sqliteValue("json", { a: -0 }, "j", 1))).toContain(
      'SQLite: cannot write field "j" at row 1: the json value holds -0 at $.a',
    );
    expect(refusal(() => mysqlValue("json", ["\uD800"], "j", 1))).toContain(
      'MySQL: cannot write field "j" at row 1: the json value holds a string with a lone UTF-16 surrogate at $[0]',
    );
    expect(refusal(() => copyFieldWriter("json", "j")({ n: Number.NaN }, 1))).toContain(
      'PostgreSQL: cannot write field "j" at row 1: the json value holds NaN at $.n',
    );
    expect(sqliteValue("json", { big: 2n ** 70n }, "j", 0)).toBe('{"big":1180591620717411303424}');
  });
});
