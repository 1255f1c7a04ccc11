// Issue 16, item 8: the row counts of a SQL table (coverage) grouped the rows by every distinct
// value of the partition column and mapped each in JS, so a table of distinct datetimes came
// back whole (3,000,000 rows: 26.7 s and 1.87 GB on PostgreSQL). The database now groups them
// by partition: here the count statement returns one row per partition, recorded at `run`, on
// 60,000 distinct datetimes (150,000 with INTERLOPER_RELIABILITY_LONG=1), given as Dates and as
// ISO text with offsets. bench/database/postgres-coverage.ts times 3,000,000.
//
// Found on the way: MySQL read the offset of ISO text through CONVERT_TZ, which leaves a time
// outside 1970..2038 unconverted, so such a row was filtered into the wrong partition (a read
// of its own partition missed it, a rewrite left it behind).
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { DatabaseDestination } from "../../src/destination/database/index.js";
import { IOContext, type AssetRef } from "../../src/destination/index.js";
import { TimeGranularity, TimePartition, TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import type { FieldSpec } from "../../src/schema/index.js";
import { mysqlAvailable, postgresAvailable } from "../database/servers.js";
import { LONG, localDestination, useTempDirs } from "./helpers.js";

const tempDir = useTempDirs();
let servers = { postgres: false, mysql: false };
beforeAll(async () => {
  servers = { postgres: await postgresAvailable(), mysql: await mysqlAvailable() };
}, 60_000);

const ROWS = LONG ? 150_000 : 60_000;
const STEP_MS = 10_000;
const START = Date.UTC(2024, 0, 1);
const DAYS = Math.ceil((ROWS * STEP_MS) / 86_400_000);

async function dropDataset(kind: "postgres" | "mysql", dataset: string): Promise<void> {
  const destination = localDestination(kind, "") as unknown as { run(sql: string): Promise<unknown>; close(): Promise<void> };
  await destination.run(kind === "postgres" ? `DROP SCHEMA IF EXISTS "${dataset}" CASCADE` : `DROP DATABASE IF EXISTS \`${dataset}\``);
  await destination.close();
}

/** The number of rows each statement run returned, in order. */
function recordRows(destination: DatabaseDestination): number[] {
  const returned: number[] = [];
  const target = destination as unknown as { run(sql: string, params?: readonly unknown[]): Promise<unknown[]> };
  const run = target.run.bind(destination);
  target.run = async (sql, params) => {
    const rows = await run(sql, params);
    returned.push(rows.length);
    return rows;
  };
  return returned;
}

const dayKey = (time: number) => new Date(time).toISOString().slice(0, 10);
/** ISO text of an instant at +05:30, the offset written out. */
const at530 = (time: number) => `${new Date(time + 330 * 60_000).toISOString().slice(0, 19)}+05:30`;

describe("row counts of a SQL table of distinct datetimes", () => {
  for (const kind of ["sqlite", "postgres", "mysql"] as const) {
    for (const given of ["Dates", "ISO text with offsets"] as const) {
      it(`${kind}, ${given}: one row per partition comes back from the database, and the counts are right`, async () => {
        if (kind !== "sqlite" && !servers[kind]) return;
        const dataset = kind === "sqlite" ? "rel" : `il_rel_periods_${randomBytes(4).toString("hex")}`;
        const destination = localDestination(kind, await tempDir()) as DatabaseDestination;
        try {
          const asset: AssetRef = {
            key: "rel.events",
            table: "events",
            dataset,
            partitioning: new TimePartitionConfig({ column: "at", allowWindow: true }),
          };
          const schema: FieldSpec[] = [
            given === "Dates"
              ? { name: "at", type: "datetime", nullable: false }
              : { name: "at", type: "datetime", nullable: false, asDate: false },
            { name: "id", type: "integer", nullable: false },
          ];
          const rows = Array.from({ length: ROWS }, (_, id) => {
            const time = START + id * STEP_MS;
            return { at: given === "Dates" ? new Date(time) : at530(time), id };
          });
          const window = new TimePartitionWindow(dayKey(START), dayKey(START + (ROWS - 1) * STEP_MS), TimeGranularity.DAY);
          await destination.write(new IOContext({ asset, window, schema }), rows);

          const returned = recordRows(destination);
          const counts = await destination.partitionRowCounts(new IOContext({ asset, schema }));
          const expected: Record<string, number> = {};
          for (let id = 0; id < ROWS; id++) expected[dayKey(START + id * STEP_MS)] = (expected[dayKey(START + id * STEP_MS)] ?? 0) + 1;
          expect(counts).toEqual(expected);
          expect(Object.keys(counts)).toHaveLength(DAYS);
          // Catalog lookups, the count (a row per day) and the ledger (a row per day written).
          expect(Math.max(...returned), `rows returned per statement: ${returned.join(", ")}`).toBeLessThanOrEqual(DAYS);
        } finally {
          await destination.close();
          if (kind !== "sqlite") await dropDataset(kind, dataset);
        }
      }, 240_000);
    }
  }
});

describe("MySQL: ISO text with an offset, outside the years 1970..2038", () => {
  it("is read, replaced and counted in the partition its instant falls in", async () => {
    if (!servers.mysql) return;
    const dataset = `il_rel_offsets_${randomBytes(4).toString("hex")}`;
    const destination = localDestination("mysql", await tempDir()) as DatabaseDestination;
    try {
      const asset: AssetRef = { key: "rel.events", table: "events", dataset, partitioning: new TimePartitionConfig({ column: "at" }) };
      const schema: FieldSpec[] = [
        { name: "at", type: "datetime", nullable: false, asDate: false },
        { name: "n", type: "integer", nullable: false },
      ];
      // Each instant is in the UTC day before the local date its text shows.
      const cases = [
        { day: "2039-12-31", at: "2040-01-01T00:30:00+01:00" },
        { day: "1969-12-31", at: "1970-01-01T00:30:00+01:00" },
        { day: "2100-06-30", at: "2100-07-01T05:00:00+05:30" },
      ];
      for (const { day, at } of cases) {
        const partition = TimePartition.fromKey(day);
        const context = new IOContext({ asset, window: partition, schema });
        await destination.writePartition(context, partition, [{ at, n: 1 }]);
        await destination.writePartition(context, partition, [{ at, n: 2 }]);
        expect(await destination.readPartition(context, partition), day).toEqual([{ at, n: 2 }]);
      }
      expect(await destination.partitionRowCounts(new IOContext({ asset, schema }))).toEqual({
        "1969-12-31": 1,
        "2039-12-31": 1,
        "2100-06-30": 1,
      });
    } finally {
      await destination.close();
      await dropDataset("mysql", dataset);
    }
  }, 60_000);
});
