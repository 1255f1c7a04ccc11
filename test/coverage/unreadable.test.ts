// Issue 31.16: one partition file cut short (a crash of another tool, a disk full, an edit) made
// every count of the asset fail with a parser's bare `Quote Not Closed ... line 80`, naming no
// file, asset or partition: whole-project coverage, the HTML report, downstream runs and
// `materialize --missing` all stopped. Now coverage counts what it can and marks that partition
// "unreadable" with its file (text, calendar, JSON, HTML), `--missing` rebuilds it, and reads
// name the file, the asset and the partition. For CSV, File, and the local object store in
// Parquet and JSONL, on real files; and a CSV cut inside its header (issue 41.28), which read as
// an empty partition.
import { readFile, rm, truncate, writeFile } from "node:fs/promises";
import { z } from "zod";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { findAsset, projectOf } from "../../src/api/project.js";
import { coverage } from "../../src/api/coverage/index.js";
import { missingPlanOptions } from "../../src/api/missing.js";
import { UnreadableDataError } from "../../src/errors.js";
import { coverageText } from "../../src/cli/views/coverage-text.js";
import { summaryLines } from "../../src/cli/views/coverage-summary.js";
import { coverageHtml } from "../../src/cli/report/coverage-html.js";
import { makeTempDir } from "../contract/temp-dir.js";

let base: string;
let remove: () => Promise<void>;
beforeEach(async () => ({ path: base, remove } = await makeTempDir("interloper-unreadable-")));
afterEach(async () => remove());

const NOW = new Date("2026-01-06T12:00:00Z");
const CASES: Array<{ name: string; make: (base: string) => il.Destination; cut: (text: Buffer) => Buffer }> = [
  // Cut inside a quoted field: the parser's "Quote Not Closed".
  { name: "CSV", make: (b) => new il.CSVDestination({ basePath: b }), cut: (bytes) => bytes.subarray(0, bytes.indexOf('"') + 3) },
  { name: "File", make: (b) => new il.FileDestination({ basePath: b }), cut: (bytes) => bytes.subarray(0, bytes.length - 5) },
  // Cut inside the header (issue 41.28): a header alone that no line break ends, not an empty partition.
  { name: "CSV cut inside its header", make: (b) => new il.CSVDestination({ basePath: b }), cut: (bytes) => bytes.subarray(0, 6) },
  {
    name: "CSV object cut inside its header",
    make: (b) => new il.LocalObjectStoreDestination({ basePath: b, format: "csv" }),
    cut: (bytes) => bytes.subarray(0, 6),
  },
  {
    name: "Parquet",
    make: (b) => new il.LocalObjectStoreDestination({ basePath: b, format: "parquet" }),
    cut: (bytes) => bytes.subarray(0, bytes.length - 9),
  },
  {
    name: "JSONL",
    make: (b) => new il.LocalObjectStoreDestination({ basePath: b, format: "jsonl" }),
    cut: (bytes) => bytes.subarray(0, bytes.length - 4),
  },
];

describe.each(CASES)("$name: one partition's file cut short", ({ make, cut }) => {
  function project(destination: il.Destination) {
    const orders = il.asset({
      key: "orders",
      partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
      run: (c) => [1, 2, 3].map((id) => ({ date: c.partition!.key, id, note: `say "hi" ${id}` })),
    });
    const daily = il.asset({
      key: "daily",
      partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
      requires: { orders },
      run: (_c, { orders: rows }) => [{ date: (rows as Array<{ date: string }>)[0]!.date, n: (rows as unknown[]).length }],
    });
    return projectOf(il.defineConfig({ sources: [il.source({ key: "shop", assets: [orders, daily] })({ destinations: destination })] }));
  }

  it("coverage marks it unreadable with its file, --missing rebuilds it, and reads name the file, asset and partition", async () => {
    const destination = make(base);
    const p = project(destination);
    await il.materialize(p, { window: "2026-01-01..2026-01-05" });
    const asset = findAsset(p, "shop.orders");
    const partition = il.TimePartition.fromKey("2026-01-03");
    const file =
      destination instanceof il.ObjectStoreDestination
        ? destination.objectUri(`shop/orders/date=2026-01-03/data.${destination.format as string}`)
        : (destination as il.CSVDestination).pathOf(asset.ioContext(partition), partition);
    await writeFile(file, cut(await readFile(file)));

    const [orders, daily] = await coverage(p, undefined, { now: NOW });
    expect(orders).toMatchObject({ asset: "shop.orders", expected: 5, materialized: 4, missing: 0, unreadable: 1, rows: 12 });
    const broken = orders!.partitions.find((x) => x.key === "2026-01-03")!;
    expect(broken).toMatchObject({ status: "unreadable", rows: null, file });
    expect(broken.error).toMatch(/\S/);
    expect(daily).toMatchObject({ materialized: 5, unreadable: 0 });
    // JSON, text (facts, calendar, summary) and HTML all say it.
    expect(JSON.parse(JSON.stringify(orders))).toMatchObject({
      unreadable: 1,
      partitions: expect.arrayContaining([expect.objectContaining({ status: "unreadable", file })]),
    });
    const text = coverageText(orders!, 200).join("\n");
    expect(text).toContain(`unreadable 1`);
    expect(text).toContain(`unreadable (stored, cannot be read; --missing rebuilds them): 2026-01-03 (${file}: `);
    expect(text).toContain("✗");
    expect(summaryLines([orders!], 200)[0]).toContain("unreadable 2026-01-03");
    const html = coverageHtml([orders!], NOW);
    expect(html).toContain('class="partition unreadable"');
    expect(html).toContain(`data-file="${file}"`);

    // A read, and a downstream run reading it, name the file, the asset and the partition.
    const read = asset.read(partition).catch((error: unknown) => error);
    expect(await read).toBeInstanceOf(UnreadableDataError);
    expect(((await read) as Error).message).toMatch(
      new RegExp(`^cannot read partition 2026-01-03 of asset "shop.orders" from ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: \\S`),
    );
    const downstream = await il.materialize(p, { assets: ["shop.daily"], partition: "2026-01-03" });
    expect(downstream.status).toBe("failed");
    expect((downstream.result as il.RunResult).assetExecutions["shop.daily"]!.error!.message).toContain(file);

    // --missing rebuilds it, and it reads back.
    const options = await missingPlanOptions(p, { assets: ["shop.orders"], now: NOW });
    expect([...options.only!]).toEqual(["2026-01-03"]);
    expect((await il.materialize(p, options)).status).toBe("completed");
    expect(await asset.read(partition)).toHaveLength(3);
    expect((await coverage(p, "shop.orders", { now: NOW }))[0]).toMatchObject({ materialized: 5, unreadable: 0 });
  });
});

it("a file that cannot be opened for its count is unreadable too, and an empty cut file is no crash", async () => {
  const destination = new il.CSVDestination({ basePath: base });
  const orders = il.asset({
    key: "orders",
    partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
    run: (c) => [{ date: c.partition!.key }],
  });
  const p = projectOf(il.defineConfig({ sources: [il.source({ key: "shop", assets: [orders] })({ destinations: destination })] }));
  await il.materialize(p, { window: "2026-01-01..2026-01-02" });
  const asset = findAsset(p, "shop.orders");
  const partition = il.TimePartition.fromKey("2026-01-02");
  await truncate(destination.pathOf(asset.ioContext(partition), partition), 0);
  // An empty CSV holds no rows: counted as empty, not unreadable.
  expect((await coverage(p, undefined, { now: NOW }))[0]).toMatchObject({ materialized: 1, empty: 1, unreadable: 0 });
});

it("a header alone that ends its line is an empty partition when counted again, one cut inside it unreadable, saying so", async () => {
  const destination = new il.CSVDestination({ basePath: base });
  const orders = il.asset({
    key: "orders",
    partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
    schema: z.object({ date: z.iso.date(), n: z.number().int() }),
    run: (c) => (c.partition!.key === "2026-01-02" ? [] : [{ date: c.partition!.key, n: 1 }]),
  });
  const p = projectOf(il.defineConfig({ sources: [il.source({ key: "shop", assets: [orders] })({ destinations: destination })] }));
  await il.materialize(p, { window: "2026-01-01..2026-01-03" });
  const asset = findAsset(p, "shop.orders");
  const file = (key: string) => destination.pathOf(asset.ioContext(null), il.TimePartition.fromKey(key));
  // Written anew (another file, as a copy makes it): its ledger line no longer trusted, it is counted again.
  const header = await readFile(file("2026-01-02"));
  expect(header.toString()).toBe("date,n\n");
  await rm(file("2026-01-02"));
  await writeFile(file("2026-01-02"), header);
  await writeFile(file("2026-01-03"), "date,n");
  const [counted] = await coverage(p, undefined, { now: NOW });
  expect(counted).toMatchObject({ materialized: 1, empty: 1, unreadable: 1 });
  expect(counted!.partitions.find((x) => x.key === "2026-01-03")!.error).toContain("the file ends inside its header line");
});
