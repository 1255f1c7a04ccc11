// A database backend written the way a user would write one from destinations.md: its own
// better-sqlite3 connection, the four hooks, and the two filter shapes the specification
// documents (`column = value`, `column >= start AND column < end`). Any other filter is an
// error here, so the contract suite proves the base never sends one.
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { DatabaseDestination } from "../../src/destination/database/index.js";
import { IOContext, type AssetRef } from "../../src/destination/index.js";
import { ListPartitionConfig, TimePartitionConfig, TimePartitionWindow, type PartitionFilter } from "../../src/partitioning/index.js";
import { TableData, type Row } from "../../src/representation/index.js";
import type { FieldSpec } from "../../src/schema/index.js";
import { destinationContract } from "../contract/destination.js";
import { stock, stockConfig, stockRows, stockSchema } from "../contract/multi.js";

const SQL_TYPES: Record<FieldSpec["type"], string> = {
  string: "TEXT",
  integer: "INTEGER",
  number: "REAL",
  boolean: "INTEGER",
  date: "DATE",
  datetime: "TIMESTAMP",
  json: "TEXT",
};

const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;

class UserSQLiteDestination extends DatabaseDestination {
  readonly db: Database.Database;
  /** Every filter the hooks received, for the assertions below. */
  readonly filters: PartitionFilter[] = [];

  constructor(path = ":memory:") {
    super();
    this.db = new Database(path);
    this.db.defaultSafeIntegers(true);
  }

  private name(table: string, dataset: string | null): string {
    return quote(dataset ? `${dataset}.${table}` : table);
  }

  /** Column name -> declared type, or null when the table does not exist. */
  private columns(table: string, dataset: string | null): Map<string, string> | null {
    const info = this.db.prepare(`PRAGMA table_info(${this.name(table, dataset)})`).all() as Array<{ name: string; type: string }>;
    return info.length === 0 ? null : new Map(info.map((column) => [column.name, column.type]));
  }

  /** The two documented shapes, rendered, and an array of them that must all hold (a multi partition's); anything else is refused. */
  private where(where: PartitionFilter | readonly PartitionFilter[] | null): [string, unknown[]] {
    if (where === null) return ["", []];
    if (Array.isArray(where)) {
      const parts = (where as readonly PartitionFilter[]).map((filter) => this.where(filter));
      return [` WHERE ${parts.map(([sql]) => `(${sql.slice(" WHERE ".length)})`).join(" AND ")}`, parts.flatMap(([, params]) => params)];
    }
    where = where as PartitionFilter;
    this.filters.push(where);
    const keys = Object.keys(where).sort().join(",");
    const column = quote(where.column);
    if (keys === "column,value" && "value" in where && typeof where.value === "string") return [` WHERE ${column} = ?`, [where.value]];
    if (keys === "column,end,start" && "start" in where && where.start instanceof Date && where.end instanceof Date) {
      // Dates and instants are ISO text, with or without a zone: compared as UTC instants.
      const utc = `strftime('%Y-%m-%dT%H:%M:%fZ', ${column})`;
      return [` WHERE ${utc} >= ? AND ${utc} < ?`, [where.start.toISOString(), where.end.toISOString()]];
    }
    throw new Error(`UserSQLiteDestination: a filter of no documented shape: ${JSON.stringify(where)}`);
  }

  insert(table: string, dataset: string | null, data: unknown, context: IOContext): void {
    const rows = TableData.from(data)!.rows;
    const schema = context.schema ?? [];
    const name = this.name(table, dataset);
    this.db.exec(
      `CREATE TABLE IF NOT EXISTS ${name} (${["_row INTEGER PRIMARY KEY", ...schema.map((f) => `${quote(f.name)} ${SQL_TYPES[f.type]}`)].join(", ")})`,
    );
    if (rows.length === 0 || schema.length === 0) {
      for (let i = 0; i < rows.length && schema.length === 0; i++) this.db.exec(`INSERT INTO ${name} DEFAULT VALUES`);
      return;
    }
    const insert = this.db.prepare(
      `INSERT INTO ${name} (${schema.map((f) => quote(f.name)).join(", ")}) VALUES (${schema.map(() => "?").join(", ")})`,
    );
    const cell = (field: FieldSpec, value: unknown): unknown => {
      if (value === null || value === undefined) return null;
      if (value instanceof Date) return field.type === "date" ? value.toISOString().slice(0, 10) : value.toISOString();
      if (field.type === "boolean") return value ? 1 : 0;
      if (field.type === "json") return JSON.stringify(value);
      return value;
    };
    this.db.transaction(() => {
      for (const row of rows) insert.run(...schema.map((field) => cell(field, row[field.name])));
    })();
  }

  delete(table: string, dataset: string | null, where: PartitionFilter | readonly PartitionFilter[] | null): void {
    const columns = this.columns(table, dataset);
    if (!columns) return;
    const [condition, params] = this.where(where);
    this.db.prepare(`DELETE FROM ${this.name(table, dataset)}${condition}`).run(...params);
  }

  select(table: string, dataset: string | null, where: PartitionFilter | readonly PartitionFilter[] | null): Row[] | null {
    const columns = this.columns(table, dataset);
    if (!columns) return null;
    const [condition, params] = this.where(where);
    const rows = this.db.prepare(`SELECT * FROM ${this.name(table, dataset)}${condition} ORDER BY _row`).all(...params) as Row[];
    return rows.map((row) => {
      const out: Row = {};
      for (const [name, type] of columns) {
        if (name === "_row") continue;
        const value = row[name];
        // Safe integers come back as numbers, larger ones as bigints; JSON and booleans decoded.
        if (typeof value === "bigint" && type !== "INTEGER") out[name] = value;
        else if (typeof value === "bigint")
          out[name] = value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
        else out[name] = value;
      }
      return out;
    });
  }

  /** Rows per stored value of a column, or per combination of several (a multi partitioning's), joined by "|". */
  count(table: string, dataset: string | null, column: string | readonly string[]): Record<string, number> {
    const names = typeof column === "string" ? [column] : [...column];
    const columns = this.columns(table, dataset);
    if (!names.every((name) => columns?.has(name))) return {};
    const list = names.map(quote).join(", ");
    const rows = this.db
      .prepare(
        `SELECT ${list}, COUNT(*) AS n FROM ${this.name(table, dataset)} WHERE ${names.map((name) => `${quote(name)} IS NOT NULL`).join(" AND ")} GROUP BY ${list}`,
      )
      .raw()
      .all() as unknown[][];
    return Object.fromEntries(rows.map((row) => [row.slice(0, -1).map(String).join("|"), Number(row[row.length - 1])]));
  }

  override async close(): Promise<void> {
    this.db.close();
  }
}

destinationContract(
  "a user-written DatabaseDestination (better-sqlite3, four hooks, two filter shapes)",
  () => {
    const destination = new UserSQLiteDestination();
    return { destination, cleanup: () => destination.close() };
  },
  { optOut: { nonTabular: true } },
);

describe("a user-written DatabaseDestination", () => {
  const daily: AssetRef = {
    key: "shop.orders",
    table: "orders",
    dataset: "shop",
    partitioning: new TimePartitionConfig({ column: "date", allowWindow: true }),
  };
  const regions = new ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"], allowWindow: true });
  const sales: AssetRef = { key: "shop.sales", table: "sales", dataset: "shop", partitioning: regions };

  it("receives only { column, value } and { column, start, end }, on the asset's partition column or the base's own bookkeeping", async () => {
    const destination = new UserSQLiteDestination();
    try {
      const window = new TimePartitionWindow("2026-01-01", "2026-01-03");
      await destination.write(new IOContext({ asset: daily, window }), [
        { date: "2026-01-01", id: 1 },
        { date: "2026-01-03", id: 2 },
      ]);
      expect(await destination.read(new IOContext({ asset: daily, window }))).toEqual([
        { date: "2026-01-01", id: 1 },
        { date: "2026-01-03", id: 2 },
      ]);
      await destination.write(new IOContext({ asset: sales, window: regions.all() }), [
        { region: "us", n: 1 },
        { region: "eu", n: 2 },
      ]);
      expect(await destination.read(new IOContext({ asset: sales, window: regions.all() }))).toEqual([
        { region: "eu", n: 2 },
        { region: "us", n: 1 },
      ]);
      expect(await destination.read(new IOContext({ asset: sales, window: regions.partition("apac") }))).toEqual([]);
      const shapes = new Set(destination.filters.map((filter) => Object.keys(filter).sort().join(",")));
      expect([...shapes].sort()).toEqual(["column,end,start", "column,value"]);
    } finally {
      await destination.close();
    }
  });

  it("receives a multi window as conjunctions of the two shapes, one per dimension's column, one per combination of list values", async () => {
    const destination = new UserSQLiteDestination();
    try {
      const window = stockConfig.window("2026-01-05", "2026-01-06", { region: ["eu", "us"] });
      await destination.write(
        new IOContext({ asset: stock, window, schema: stockSchema }),
        stockRows().filter((row) => row["region"] !== "apac"),
      );
      destination.filters.length = 0;
      await destination.read(new IOContext({ asset: stock, window, schema: stockSchema }));
      // The window's rows in one select per region: the two days' bounds on "date", the region's value on "region".
      const data = destination.filters.filter((filter) => filter.column !== "entry");
      expect(data.map((filter) => ("value" in filter ? `${filter.column}=${filter.value}` : `${filter.column} range`))).toEqual([
        "date range",
        "region=eu",
        "date range",
        "region=us",
      ]);
    } finally {
      await destination.close();
    }
  });
});
