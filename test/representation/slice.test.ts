import { describe, expect, it } from "vitest";
import { ListPartition, ListPartitionConfig, TimeGranularity, TimePartition } from "../../src/partitioning/index.js";
import { TableData } from "../../src/representation/index.js";
import type { Row } from "../../src/representation/index.js";

const utcDay = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d));

/** Runs a case on the rows and on the same data as columns: both shapes must agree. */
function bothShapes(rows: Row[]): TableData[] {
  const asRows = TableData.from(rows)!;
  return [asRows, TableData.from(asRows.to("columns"))!];
}

describe.each(["rows", "columns"])("slice (%s)", (kind) => {
  const pick = (rows: Row[]) => bothShapes(rows).find((t) => t.kind === kind)!;

  it("slices by a daily partition over ISO date strings", () => {
    const table = pick([
      { date: "2026-01-01", n: 1 },
      { date: "2026-01-02", n: 2 },
      { date: "2026-01-01", n: 3 },
      { date: "2025-12-31", n: 4 },
    ]);
    const slice = table.slice(new TimePartition("2026-01-01"), "date");
    expect(slice.kind).toBe(kind);
    expect(slice.rows).toEqual([
      { date: "2026-01-01", n: 1 },
      { date: "2026-01-01", n: 3 },
    ]);
  });

  it("slices by a monthly partition over daily ISO date strings", () => {
    const table = pick([
      { date: "2026-01-31", n: 1 },
      { date: "2026-02-01", n: 2 },
      { date: "2026-02-28", n: 3 },
      { date: "2026-03-01", n: 4 },
    ]);
    const slice = table.slice(new TimePartition("2026-02-01", TimeGranularity.MONTH), "date");
    expect(slice.rows.map((r) => r.n)).toEqual([2, 3]);
  });

  it("slices by a monthly partition over Dates", () => {
    const table = pick([
      { date: utcDay(2026, 1, 31), n: 1 },
      { date: utcDay(2026, 2, 1), n: 2 },
      { date: new Date(Date.UTC(2026, 1, 28, 23, 59, 59, 999)), n: 3 },
      { date: utcDay(2026, 3, 1), n: 4 },
    ]);
    const slice = table.slice(TimePartition.fromKey("2026-02"), "date");
    expect(slice.rows.map((r) => r.n)).toEqual([2, 3]);
  });

  it("slices by an hourly partition over ISO timestamps", () => {
    const table = pick([
      { at: "2026-05-20T12:59:59Z", n: 1 },
      { at: "2026-05-20T13:00:00Z", n: 2 },
      { at: "2026-05-20T13:45:10.250Z", n: 3 },
      { at: "2026-05-20T14:00:00Z", n: 4 },
      { at: "2026-05-20T15:30:00+02:00", n: 5 },
    ]);
    const slice = table.slice(new TimePartition("2026-05-20T13:00:00Z", TimeGranularity.HOUR), "at");
    expect(slice.rows.map((r) => r.n)).toEqual([2, 3, 5]);
  });

  it("slices by a list partition", () => {
    const config = new ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"] });
    const table = pick([
      { region: "us", n: 1 },
      { region: "eu", n: 2 },
      { region: "us", n: 3 },
      { region: null, n: 4 },
    ]);
    expect(table.slice(config.partition("us"), "region").rows.map((r) => r.n)).toEqual([1, 3]);
    expect(table.slice(new ListPartition("apac"), "region").length).toBe(0);
  });

  it("gives an empty slice of the same kind when no row matches, or the column is missing", () => {
    const table = pick([{ date: "2026-01-01", n: 1 }]);
    const none = table.slice(new TimePartition("2027-01-01"), "date");
    expect(none.kind).toBe(kind);
    expect(none.length).toBe(0);
    expect(table.slice(new TimePartition("2026-01-01"), "missing").length).toBe(0);
  });
});

it("keeps the row objects of a rows table (slices share them)", () => {
  const rows = [{ date: "2026-01-01" }, { date: "2026-01-02" }];
  const slice = TableData.from(rows)!.slice(new TimePartition("2026-01-02"), "date");
  expect(slice.rows[0]).toBe(rows[1]);
});
