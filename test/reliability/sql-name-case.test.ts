// Issue 16, item 2: SQLite finds a table by its name in any case, quoted or not, so assets
// `orders` and `Orders` of one dataset wrote one table, and the second write silently replaced
// the first's rows. Now the second write is refused with a SchemaError naming both tables
// (and a project binding both to one SQLiteDestination does not load); nothing of it is
// written. Fields whose names differ only in case (`id`, `ID`) are one column to SQLite and
// MySQL: refused before anything is written, whether new or added to an existing table.
// PostgreSQL keeps quoted names apart: there the same tables and fields are distinct. The
// partition ledger keeps them apart too: its entries compare their table name exactly.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { z } from "zod";
import { beforeAll, describe, expect, it } from "vitest";
import { asset } from "../../src/asset/definition.js";
import { projectOf } from "../../src/api/project.js";
import { type DatabaseDestination, SQLiteDestination } from "../../src/destination/database/index.js";
import { IOContext, type AssetRef } from "../../src/destination/index.js";
import { ConfigError, DataNotFoundError, SchemaError } from "../../src/errors.js";
import { TimePartition, TimePartitionConfig } from "../../src/partitioning/index.js";
import type { FieldSpec } from "../../src/schema/index.js";
import { source } from "../../src/source/source.js";
import { mysqlAvailable, postgresAvailable } from "../database/servers.js";
import { localDestination, useTempDirs } from "./helpers.js";

const tempDir = useTempDirs();
let servers = { postgres: false, mysql: false };
beforeAll(async () => {
  servers = { postgres: await postgresAvailable(), mysql: await mysqlAvailable() };
}, 60_000);

async function dropDataset(kind: "postgres" | "mysql", dataset: string): Promise<void> {
  const destination = localDestination(kind, "") as unknown as { run(sql: string): Promise<unknown>; close(): Promise<void> };
  await destination.run(kind === "postgres" ? `DROP SCHEMA IF EXISTS "${dataset}" CASCADE` : `DROP DATABASE IF EXISTS \`${dataset}\``);
  await destination.close();
}

/** The error a promise rejects with, or null. */
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error as Error,
  );

const ordersSchema = z.object({ id: z.number().int(), item: z.string() });
const orders = asset({
  key: "orders",
  schema: ordersSchema,
  run: () => [
    { id: 1, item: "first" },
    { id: 2, item: "second" },
  ],
});
const Orders = asset({ key: "Orders", schema: ordersSchema, run: () => [{ id: 9, item: "other" }] });

describe("SQLite: tables whose names differ only in case", () => {
  it("the second asset's write is refused, naming both tables, and the first's rows are intact", async () => {
    const path = join(await tempDir(), "shop.sqlite");
    // Two projects on one file (one project binding both does not load: see below).
    const first = source({ key: "shop", dataset: "shop", assets: [orders] })({ destinations: new SQLiteDestination({ path }) }).assets
      .orders!;
    const second = source({ key: "shop", dataset: "shop", assets: [Orders] })({ destinations: new SQLiteDestination({ path }) }).assets
      .Orders!;
    await first.materialize();

    const error = await failure(second.materialize());
    expect(error).not.toBeNull();
    let cause: unknown = error;
    while (cause && !(cause instanceof SchemaError)) cause = (cause as { cause?: unknown }).cause;
    expect(cause, String(error)).toBeInstanceOf(SchemaError);
    const message = (cause as Error).message;
    expect(message).not.toContain("\n");
    expect(message).toContain('"shop.Orders"');
    expect(message).toContain('"shop.orders"');
    expect(message).toMatch(/ignore case/);
    expect(message).toMatch(/set `table`/);

    expect(await first.read()).toEqual([
      { id: 1, item: "first" },
      { id: 2, item: "second" },
    ]);
    // Nor is the other table read or counted as this one.
    expect(await failure(second.read())).toBeInstanceOf(SchemaError);
    for (const destination of [...first.destinations, ...second.destinations]) await (destination as DatabaseDestination).close();
  });

  it("a project binding both to one SQLiteDestination does not load: ConfigError naming both assets", () => {
    const destination = new SQLiteDestination({ path: ":memory:" });
    const shop = source({ key: "shop", dataset: "shop", assets: [orders, Orders] });
    const error = (() => {
      try {
        projectOf({ sources: [shop({ destinations: destination })] });
        return null;
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.message).toContain('"shop.orders"');
    expect(error!.message).toContain('"shop.Orders"');
    expect(error!.message).toMatch(/ignore case/);
    // Tables apart in any case, or in datasets apart, load.
    expect(() =>
      projectOf({
        sources: [
          source({ key: "shop", dataset: "shop", assets: [orders] })({ destinations: destination }),
          source({ key: "shop2", dataset: "shop2", assets: [Orders] })({ destinations: destination }),
        ],
      }),
    ).not.toThrow();
  });

  it("datasets that differ only in case share a ledger, which keeps their tables' partitions apart", async () => {
    const destination = new SQLiteDestination({ path: join(await tempDir(), "ledger.sqlite") });
    const day = TimePartition.fromKey("2024-01-02");
    const schema: FieldSpec[] = [{ name: "date", type: "date", nullable: false }];
    const ref = (dataset: string, table: string): AssetRef => ({
      key: `${dataset}.${table}`,
      table,
      dataset,
      partitioning: new TimePartitionConfig({ column: "date" }),
    });
    const a = new IOContext({ asset: ref("shop", "a"), window: day, schema });
    const b = new IOContext({ asset: ref("Shop", "b"), window: day, schema });
    await destination.writePartition(a, day, []);
    expect(await destination.readPartition(b, day).catch((e: unknown) => e)).toBeInstanceOf(DataNotFoundError);
    await destination.writePartition(b, day, [{ date: "2024-01-02" }]);
    expect(await destination.readPartition(a, day)).toEqual([]);
    expect(await destination.partitionRowCounts(a.withWindow(null))).toEqual({ "2024-01-02": 0 });
    expect(await destination.partitionRowCounts(b.withWindow(null))).toEqual({ "2024-01-02": 1 });
    await destination.close();
  });
});

describe("fields whose names differ only in case", () => {
  for (const kind of ["sqlite", "postgres", "mysql"] as const) {
    it(`${kind}: refused before anything is written where column names ignore case, two columns elsewhere`, async () => {
      if (kind !== "sqlite" && !servers[kind]) return;
      const dataset = kind === "sqlite" ? "rel" : `il_rel_case_${randomBytes(4).toString("hex")}`;
      const destination = localDestination(kind, await tempDir()) as DatabaseDestination;
      try {
        const ref = (table: string): AssetRef => ({ key: `rel.${table}`, table, dataset, partitioning: null });
        const both: FieldSpec[] = [
          { name: "id", type: "integer", nullable: false },
          { name: "ID", type: "string", nullable: true },
        ];
        const caseBlind = kind !== "postgres";

        // A new table with both.
        const error = await failure(destination.write(new IOContext({ asset: ref("fresh"), schema: both }), [{ id: 1, ID: "one" }]));
        if (caseBlind) {
          expect(error, String(error)).toBeInstanceOf(SchemaError);
          expect(error!.message).toContain('"id" and "ID"');
          expect(error!.message).toMatch(/ignore case/);
          expect(error!.message).not.toContain("\n");
          expect(await destination.select("fresh", dataset, null)).toBeNull();
        } else {
          expect(error).toBeNull();
          expect(await destination.read(new IOContext({ asset: ref("fresh"), schema: both }))).toEqual([{ id: 1, ID: "one" }]);
        }

        // An existing table with `id`, and a later schema adding `ID`, or renaming it so.
        const v1: FieldSpec[] = [both[0]!];
        await destination.write(new IOContext({ asset: ref("grown"), schema: v1 }), [{ id: 1 }]);
        for (const later of [both, [both[1]!]]) {
          const row = Object.fromEntries(later.map((field) => [field.name, field.type === "integer" ? 2 : "two"]));
          const grown = await failure(destination.write(new IOContext({ asset: ref("grown"), schema: later }), [row]));
          if (caseBlind) {
            expect(grown, String(grown)).toBeInstanceOf(SchemaError);
            expect(grown!.message).toMatch(/"ID" and|"ID" of asset/);
            expect(await destination.read(new IOContext({ asset: ref("grown"), schema: v1 }))).toEqual([{ id: 1 }]);
          } else {
            expect(grown).toBeNull();
          }
        }
      } finally {
        await destination.close();
        if (kind !== "sqlite") await dropDataset(kind, dataset);
      }
    }, 60_000);
  }
});

describe("the ledger of written partitions compares table names exactly", () => {
  // MySQL's ledger column has a binary collation (its server's default would ignore case).
  for (const kind of ["postgres", "mysql"] as const) {
    it(`${kind}: tables "orders" and "Orders" each keep their own empty partitions`, async () => {
      if (!servers[kind]) return;
      const dataset = `il_rel_ledger_${randomBytes(4).toString("hex")}`;
      const destination = localDestination(kind, await tempDir()) as DatabaseDestination;
      try {
        const day = TimePartition.fromKey("2024-01-02");
        const schema: FieldSpec[] = [{ name: "date", type: "date", nullable: false }];
        const context = (table: string) =>
          new IOContext({
            asset: { key: `rel.${table}`, table, dataset, partitioning: new TimePartitionConfig({ column: "date" }) },
            window: day,
            schema,
          });
        await destination.writePartition(context("orders"), day, []);
        await destination.writePartition(context("Orders"), day, [{ date: "2024-01-02" }]);
        expect(await destination.readPartition(context("orders"), day)).toEqual([]);
        expect(await destination.partitionRowCounts(context("orders").withWindow(null))).toEqual({ "2024-01-02": 0 });
        expect(await destination.partitionRowCounts(context("Orders").withWindow(null))).toEqual({ "2024-01-02": 1 });
      } finally {
        await destination.close();
        await dropDataset(kind, dataset);
      }
    }, 60_000);
  }
});
