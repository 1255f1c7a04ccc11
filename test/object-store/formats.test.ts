import { describe, expect, it } from "vitest";
import { CSVFormat, type FileFormat, JSONLFormat, ParquetFormat } from "../../src/destination/format/index.js";
import { importOptional } from "../../src/destination/optional-import.js";
import { ConfigError } from "../../src/errors.js";
import type { Row } from "../../src/representation/index.js";
import type { FieldSpec } from "../../src/schema/index.js";
import { FIELDS_OF_EVERY_TYPE } from "../support/field-specs.js";

// Every type, and a datetime given as text (asDate false).
const schema: FieldSpec[] = [...FIELDS_OF_EVERY_TYPE, { name: "ts", type: "datetime", nullable: true, asDate: false }];

function rows(): Row[] {
  return [
    {
      s: 'ünïcödé 𝄞 日本, "quoted"\nnew line',
      i: 9007199254740993n,
      n: -0,
      b: true,
      d: "1969-12-31",
      o: new Date(Date.UTC(1900, 0, 1)),
      t: new Date(Date.UTC(1960, 1, 29, 1, 2, 3, 4)),
      ts: "2026-03-01T16:30:00+05:30",
      j: { a: [1, "x", null], nested: { s: "123" }, big: 2 ** 60 },
    },
    {
      s: "plain",
      i: -9223372036854775808n,
      n: Number.NaN,
      b: false,
      d: "2026-01-01",
      o: new Date(Date.UTC(2024, 1, 29)),
      t: new Date(0),
      ts: "1969-07-20T20:17:40Z",
      j: "123",
    },
    { s: "safe", i: 42, n: Number.POSITIVE_INFINITY, b: true, d: "0001-01-01", o: null, t: new Date(-1), ts: null, j: [true, 1.5] },
    { s: "negatives", i: -7, n: Number.NEGATIVE_INFINITY, b: null, d: null, o: null, t: null, ts: null, j: false },
    { s: null, i: null, n: 0.1 + 0.2, b: null, d: null, o: null, t: null, ts: null, j: null },
  ];
}

const formats: Array<[string, FileFormat]> = [
  ["parquet", new ParquetFormat()],
  ["jsonl", new JSONLFormat()],
  ["csv", new CSVFormat()],
];

describe.each(formats)("%s format", (name, format) => {
  it("round trips every field type with nulls, -0, NaN, ±Infinity, bigints past 2^53, dates before 1970 and unicode", async () => {
    const back = await format.deserialize(await format.serialize(rows(), schema), schema);
    expect(back).toEqual(rows());
    expect(Object.is(back[0]!["n"], -0)).toBe(true);
    expect(typeof back[0]!["i"]).toBe("bigint");
    expect(typeof back[2]!["i"]).toBe("number");
    expect(back[0]!["o"]).toBeInstanceOf(Date);
    expect(typeof back[0]!["d"]).toBe("string");
  });

  it("writes every schema column for rows that lack some, as null", async () => {
    const back = await format.deserialize(await format.serialize([{ s: "only" }], schema), schema);
    expect(back).toEqual([{ s: "only", i: null, n: null, b: null, d: null, o: null, t: null, ts: null, j: null }]);
  });

  it("round trips a file with no rows", async () => {
    expect(await format.deserialize(await format.serialize([], schema), schema)).toEqual([]);
  });

  it("has an extension and a content type", () => {
    expect(format.extension).toBe(name);
    expect(format.contentType).toMatch(/\//);
  });
});

describe("null and the empty string", () => {
  const strings: FieldSpec[] = [
    { name: "s", type: "string", nullable: true },
    { name: "j", type: "json", nullable: true },
  ];
  const values: Row[] = [
    { s: "", j: "" },
    { s: null, j: null },
  ];

  it.each([
    ["parquet", new ParquetFormat()],
    ["jsonl", new JSONLFormat()],
    ["csv", new CSVFormat()],
  ] as const)("%s keeps them apart", async (_name, format) => {
    expect(await format.deserialize(await format.serialize(values, strings), strings)).toEqual(values);
  });

  it("csv writes null as an empty field and the empty string as an empty quoted one", () => {
    const text = new TextDecoder().decode(
      new CSVFormat().serialize([{ s: "" }, { s: null }, {}, { s: "x" }], [{ name: "s", type: "string", nullable: true }]),
    );
    expect(text).toBe('s\n""\n\n\nx\n');
  });

  it("csv reads a file written before the empty string was quoted as it did: an empty field is null in a nullable string field", async () => {
    const bytes = new TextEncoder().encode('s,j\n,\n,""""""\n');
    expect(await new CSVFormat().deserialize(bytes, strings)).toEqual([
      { s: null, j: null },
      { s: null, j: "" },
    ]);
  });
});

describe("JSONL text", () => {
  it("writes a bigint as a JSON number with its exact digits, and non-finite numbers as text", async () => {
    const text = new TextDecoder().decode(
      new JSONLFormat().serialize(
        [{ i: 2n ** 70n, n: Number.NaN }],
        [
          { name: "i", type: "integer", nullable: false },
          { name: "n", type: "number", nullable: false },
        ],
      ),
    );
    expect(text).toBe('{"i":1180591620717411303424,"n":"NaN"}\n');
  });

  it("reads a file without a schema, keeping unsafe integers exact", async () => {
    const bytes = new TextEncoder().encode('{"a":12345678901234567890,"b":{"c":1}}\n\n{"a":1,"b":null}\n');
    expect(await new JSONLFormat().deserialize(bytes, null)).toEqual([
      { a: 12345678901234567890n, b: { c: 1 } },
      { a: 1, b: null },
    ]);
  });
});

describe("Parquet without a schema", () => {
  it("reads the field types from the file itself", async () => {
    const format = new ParquetFormat();
    const back = await format.deserialize(await format.serialize(rows(), schema), null);
    // Dates held as Date objects come back in the default form of a date field, "YYYY-MM-DD".
    expect(back).toEqual(rows().map((row) => ({ ...row, o: row["o"] instanceof Date ? row["o"].toISOString().slice(0, 10) : row["o"] })));
  });
});

describe("optional dependencies", () => {
  it("names the missing package and the install command", async () => {
    const error = await importOptional("interloper-no-such-package", "npm install interloper-no-such-package", "the test format").catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('"interloper-no-such-package"');
    expect((error as Error).message).toContain("`npm install interloper-no-such-package`");
    expect((error as Error).message).toContain("the test format");
  });

  it("names the Parquet libraries' install command for the Parquet format", async () => {
    const error = await importOptional("hyparquet-writer-missing", "npm install hyparquet hyparquet-writer", "the Parquet format").catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toContain("npm install hyparquet hyparquet-writer");
  });
});
