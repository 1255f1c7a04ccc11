// List values whose names look like the destinations' own files: every value a list
// partitioning accepts is written, read back and counted, in every destination that keys
// storage by it. A value holding `.tmp-` was once skipped by every file listing (taken for a
// temporary file), so coverage showed it missing forever and `--missing` rewrote it on every
// run; `__proto__` was dropped from CSV and File counts; on S3 a key holding `\r` came back from
// the listing with `\n` (XML line-end normalisation) and was never counted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CSVDestination, type Destination, FileDestination, IOContext, type AssetRef } from "../../src/destination/index.js";
import { GCSDestination, LocalObjectStoreDestination, S3Destination } from "../../src/destination/store/index.js";
import { ConfigError } from "../../src/errors.js";
import { decodeListedKey } from "../../src/destination/store/s3/s3-destination.js";
import { THIS_HOST } from "../../src/destination/store/local/atomic.js";
import { ListPartition, ListPartitionConfig, ListPartitionWindow } from "../../src/partitioning/index.js";
import { TableData } from "../../src/representation/index.js";
import { type Moto, motoAvailable, startMoto, TEST_CONNECTION } from "../object-store/moto.js";
import { type GcsServer, startGcsServer } from "../support/gcs-server.js";
import { useTempDirs } from "./helpers.js";

const tempDir = useTempDirs();

/** Values named like temporary files, sidecars, hidden files and object keys' escapes. */
const VALUES = [
  "eu",
  "a.tmp-b",
  ".tmp-",
  `.data.csv.tmp-${THIS_HOST}-1-0a1b2c3d`,
  "x.tmp-host-42-deadbeef",
  ".hidden",
  ".data.csv.rows.json",
  ".data.csv.ledger",
  "__proto__",
  "constructor",
  "new york",
  "a+b",
  "100%",
  "%20",
  "%2B",
  "ünï 🚀",
  "a&b<c>'\"",
];

const regions = new ListPartitionConfig({ column: "region", values: VALUES, allowWindow: true });
const all = new ListPartitionWindow(regions, VALUES[0]!, VALUES.at(-1)!);
const asset = (dataset: string): AssetRef => ({ key: "rel.regions", table: "regions", dataset, partitioning: regions });
const context = (dataset: string, window: ListPartitionWindow | ListPartition | null) =>
  new IOContext({ asset: asset(dataset), window, metadata: { runId: "names" } });
/** Partition i holds i + 1 rows, so a count of the wrong partition shows. */
const rowsOf = (value: string) => Array.from({ length: VALUES.indexOf(value) + 1 }, (_, n) => ({ region: value, n }));

async function expectEveryValueStored(destination: Destination, dataset: string): Promise<void> {
  await destination.write(context(dataset, all), VALUES.flatMap(rowsOf));
  for (const value of VALUES) {
    const partition = new ListPartition(value, regions);
    const read = TableData.from(await destination.readPartition(context(dataset, partition), partition))!;
    expect(read.length, JSON.stringify(value)).toBe(rowsOf(value).length);
  }
  const counts = await destination.partitionRowCounts(context(dataset, null));
  expect(Object.entries(counts).sort()).toEqual(VALUES.map((value) => [value, rowsOf(value).length]).sort());
  // A second count is served from the records the first one made or found: the same.
  expect(Object.entries(await destination.partitionRowCounts(context(dataset, null))).sort()).toEqual(Object.entries(counts).sort());
}

describe("list values named like temporary or hidden files are written, read and counted", () => {
  for (const [name, make] of [
    ["CSV", (base: string) => new CSVDestination({ basePath: base })],
    ["File", (base: string) => new FileDestination({ basePath: base })],
    ["local object store (jsonl)", (base: string) => new LocalObjectStoreDestination({ basePath: base, format: "jsonl" })],
    ["local object store (parquet)", (base: string) => new LocalObjectStoreDestination({ basePath: base, format: "parquet" })],
  ] as const) {
    it(`${name}: every value, counted exactly`, async () => {
      await expectEveryValueStored(make(await tempDir()), "rel");
    });
  }
});

describe("keys of a URL-encoded listing", () => {
  it("decode as S3 itself encodes them (a space as +, a + as %2B) and as moto does (a space as %20)", () => {
    // Real S3's answers to encoding-type=url (moto's server cannot show the + form).
    expect(decodeListedKey("a+b.txt")).toBe("a b.txt");
    expect(decodeListedKey("a%2Bb.txt")).toBe("a+b.txt");
    expect(decodeListedKey("100%25.csv")).toBe("100%.csv");
    expect(decodeListedKey("%ED%95%9C%EA%B8%80/x.txt")).toBe("한글/x.txt");
    expect(decodeListedKey("a%0Db")).toBe("a\rb");
    expect(decodeListedKey("a%20b")).toBe("a b");
  });
});

const available = motoAvailable();

describe.skipIf(!available)("S3 (moto): keys the XML of a listing would change", () => {
  let moto: Moto;
  beforeAll(async () => {
    moto = await startMoto();
    await moto.createBucket("names");
  }, 60_000);
  afterAll(async () => {
    await moto?.stop();
  });
  const make = (prefix: string) =>
    new S3Destination({ bucket: "names", prefix, format: "jsonl", connection: { ...TEST_CONNECTION, endpoint: moto.endpoint } });

  it("every list value is counted under a prefix and a dataset holding \\r, +, % and spaces", async () => {
    // Control characters are refused in list values, but not in prefixes and dataset names.
    await expectEveryValueStored(make("line\rend/a+b c%"), "cr\rlf\t");
  });

  it("listObjects gives back every key exactly as it was put", async () => {
    const destination = make("raw");
    // No "\n": moto's server cannot route a key holding one (S3 can).
    const names = [
      "raw/a\rb",
      "raw/\r",
      "raw/tab\tx",
      "raw/esc\u001b[2J",
      "raw/del\u007f",
      "raw/a b",
      "raw/a+b",
      "raw/100%",
      "raw/%2B",
      "raw/%",
      "raw/ünï",
      "raw/x&<>",
    ];
    for (const name of names) await destination.putObject(name, new Uint8Array([1]), "application/octet-stream", { row_count: "1" });
    const listed: string[] = [];
    for await (const object of destination.listObjects("raw/")) listed.push(object.name);
    expect(listed.sort()).toEqual([...names].sort());
  });
});

describe("GCS (the JSON API test server): names in object paths and query strings", () => {
  let server: GcsServer;
  beforeAll(async () => {
    server = await startGcsServer({ maxPageSize: 4 });
    server.createBucket("names");
  });
  afterAll(async () => {
    await server?.stop();
  });
  const make = (prefix: string) =>
    new GCSDestination({ bucket: "names", prefix, format: "jsonl", connection: { projectId: "test", apiEndpoint: server.endpoint } });

  it("every list value is counted under a prefix and a dataset holding tabs, +, % and spaces", async () => {
    await expectEveryValueStored(make("tab\tend/a+b c%/?#"), "t\tab");
  });

  it("listObjects gives back every name exactly as it was put", async () => {
    const destination = make("raw");
    const names = [
      "raw/tab\tx",
      "raw/esc\u001b[2J",
      "raw/del\u007f",
      "raw/a b",
      "raw/a+b",
      "raw/100%",
      "raw/%2B",
      "raw/%",
      "raw/ünï",
      "raw/x&<>",
      "raw/q?x=1#f",
      "raw/🚀",
    ];
    for (const name of names) await destination.putObject(name, new Uint8Array([1]), "application/octet-stream", { row_count: "1" });
    const listed: string[] = [];
    for await (const object of destination.listObjects("raw/")) listed.push(object.name);
    expect(listed.sort()).toEqual([...names].sort());
  });

  it("refuses a prefix holding a carriage return or line feed before any request, in one line", async () => {
    const from = server.requests.length;
    const partition = new ListPartition("eu", regions);
    for (const prefix of ["line\rend", "line\nend"]) {
      const error = (await make(prefix)
        .write(context("rel", partition), rowsOf("eu"))
        .then(
          () => null,
          (e: unknown) => e,
        )) as Error;
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.message).toMatch(
        /^GCSDestination: gs:\/\/names\/line\\u000[ad]end\/rel\/regions\/region=eu\/data\.jsonl holds a carriage return or line feed/,
      );
      expect(error.message).not.toMatch(/[\r\n]/);
    }
    expect(server.requests.length).toBe(from);
  });
});
