// PostgreSQL reads dates and timestamps of the years 1 to 9999 only (issue 41, item 28): the
// partition 9999-12-31 ends at +010000-01-01, a bound it cannot parse. It is refused before
// anything is sent, with one line saying why, never the server's "time zone displacement out
// of range"; the day before it is written and read back. The command line refuses such a
// period earlier, as not begun (test/e2e/multi-cli.test.ts).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IOContext, type AssetRef } from "../../src/destination/index.js";
import { PartitionError } from "../../src/errors.js";
import { TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import type { FieldSpec } from "../../src/schema/index.js";
import { isolatedPostgres, postgresAvailable } from "./servers.js";

const daily = new TimePartitionConfig({ column: "date", start: "2026-01-01" });
const notes: AssetRef = { key: "shop.notes", table: "notes", dataset: "shop", partitioning: daily };
const schema: FieldSpec[] = [
  { name: "date", type: "date", nullable: false },
  { name: "n", type: "integer", nullable: true },
];
const ctx = (day: string) => new IOContext({ asset: notes, window: new TimePartitionWindow(day, day), schema, metadata: { runId: "r" } });

describe.skipIf(!(await postgresAvailable()))("PostgresDestination: partitions at the end of the year 9999", () => {
  let h: ReturnType<typeof isolatedPostgres>;
  beforeEach(() => {
    h = isolatedPostgres();
  });
  afterEach(async () => {
    await h.cleanup();
  });

  it("refuses 9999-12-31 before sending anything, naming the years it holds; 9999-12-30 is written", async () => {
    const last = "9999-12-30";
    await h.destination.write(ctx(last), [{ date: last, n: 1 }]);
    expect(await h.destination.read(ctx(last))).toEqual([{ date: last, n: 1 }]);
    const error = await h.destination.write(ctx("9999-12-31"), [{ date: "9999-12-31", n: 1 }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    const message = String((error as Error).message);
    expect(message).toContain("PostgreSQL holds dates and timestamps of the years 1 to 9999");
    expect(message).not.toContain("displacement");
    const causes: unknown[] = [];
    for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) causes.push(e);
    expect(causes.some((e) => e instanceof PartitionError)).toBe(true);
  });
});
