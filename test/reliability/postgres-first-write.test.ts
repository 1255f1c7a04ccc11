// Two writers creating the same PostgreSQL table at once (two processes, two shards, two
// destination instances: each sees no table and sends CREATE TABLE IF NOT EXISTS). Found by
// model.test.ts (two instances writing a new table's first partition at once): when the other
// creation commits while PostgreSQL runs ours, between its check for the table and its check for
// the table's row type, ours fails with `type "months" already exists` (42710), and the write
// failed. That moment cannot be reached on demand from outside the server, so here the other
// writer's table is committed at the point our CREATE TABLE is sent, and the server's own 42710
// for that name is what the statement returns.
import pg from "pg";
import { describe, expect, it } from "vitest";
import { PostgresDestination } from "../../src/destination/database/index.js";
import { quoteDouble } from "../../src/destination/database/sql-dialect.js";
import { PG_CONNECTION, postgresAvailable, uniqueName } from "../database/servers.js";
import { days, eventRows, eventsContext, normalRows } from "./helpers.js";

const available = await postgresAvailable();
type Run = (sql: string, params?: readonly unknown[]) => Promise<unknown>;

/** A destination, a session of the test beside it, a fresh schema; all removed after `body`. */
async function withSchema(body: (destination: PostgresDestination, other: pg.Client, dataset: string) => Promise<void>): Promise<void> {
  const dataset = uniqueName("il_rel_ddl");
  const other = new pg.Client(PG_CONNECTION);
  await other.connect();
  const destination = new PostgresDestination({ connection: PG_CONNECTION });
  try {
    await other.query(`CREATE SCHEMA ${quoteDouble(dataset)}`);
    await body(destination, other, dataset);
  } finally {
    await other.query(`DROP SCHEMA IF EXISTS ${quoteDouble(dataset)} CASCADE`);
    await other.end();
    await destination.close();
  }
}

describe("PostgreSQL: a first write racing another writer's creation of its table", () => {
  it("succeeds when its CREATE TABLE fails because the other writer's table was committed meanwhile", async () => {
    if (!available) return;
    await withSchema(async (destination, other, dataset) => {
      const table = `${quoteDouble(dataset)}.${quoteDouble("events")}`;
      const self = destination as unknown as { run: Run };
      const run = self.run.bind(destination);
      let raced = false;
      self.run = async (sql, params) => {
        if (raced || !sql.startsWith(`CREATE TABLE IF NOT EXISTS ${table}`)) return run(sql, params);
        raced = true;
        // The other writer's table, as this destination makes it, committed now ...
        await other.query(
          `CREATE TABLE ${table} ("_interloper_row" bigint GENERATED ALWAYS AS IDENTITY, "date" date NOT NULL, "n" bigint NOT NULL, "writer" text NOT NULL, "text" text NOT NULL)`,
        );
        // ... and the error the server gives a CREATE TABLE that meets its row type mid-statement.
        return run(`CREATE TYPE ${table} AS (x integer)`);
      };
      const day = days("2024-03-05", "2024-03-05");
      await destination.write(eventsContext(day, dataset), eventRows("2024-03-05", "w1"));
      expect(raced).toBe(true);
      expect(normalRows(await destination.read(eventsContext(day, dataset)))).toEqual(eventRows("2024-03-05", "w1"));
      expect(await destination.partitionRowCounts(eventsContext(null, dataset))).toEqual({
        "2024-03-05": eventRows("2024-03-05", "w1").length,
      });
    });
  }, 60_000);

  it("still fails, naming it, when a type of the table's name exists and no table does", async () => {
    if (!available) return;
    await withSchema(async (destination, other, dataset) => {
      await other.query(`CREATE TYPE ${quoteDouble(dataset)}.${quoteDouble("events")} AS (x integer)`);
      const day = days("2024-03-05", "2024-03-05");
      await expect(destination.write(eventsContext(day, dataset), eventRows("2024-03-05", "w1"))).rejects.toThrow(
        /PostgreSQL query failed: .*"events"/,
      );
    });
  }, 60_000);
});
