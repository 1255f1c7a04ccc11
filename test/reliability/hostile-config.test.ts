// Hostile config: asset keys, datasets, tables, list values and partition columns made to
// escape the base path are refused with ConfigError, and no file appears outside the base path;
// names made to inject SQL are quoted (or refused): a canary table survives and no other table
// appears, and on SQLite, PostgreSQL and MySQL every statement sent (recorded at the driver) is
// one of the destination's own shapes, naming only the names the assets gave.
import { randomBytes } from "node:crypto";
import { tracingChannel } from "node:diagnostics_channel";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { beforeAll, describe, expect, it } from "vitest";
import { asset } from "../../src/asset/definition.js";
import { CSVDestination, FileDestination, type Destination } from "../../src/destination/index.js";
import { LocalObjectStoreDestination } from "../../src/destination/store/index.js";
import {
  type DatabaseDestination,
  MySQLDestination,
  PostgresDestination,
  SQLiteDestination,
} from "../../src/destination/database/index.js";
import { mysqlDialect, mysqlLiteral, SESSION_SETUP } from "../../src/destination/database/mysql/mysql-dialect.js";
import { SERVER_QUERY } from "../../src/destination/database/mysql/mysql-statements.js";
import { postgresDialect, postgresLiteral } from "../../src/destination/database/postgres/postgres-dialect.js";
import { periodCountStatement } from "../../src/destination/database/sql-statements.js";
import { quoteBacktick, quoteDouble } from "../../src/destination/database/sql-dialect.js";
import { sqliteDialect } from "../../src/destination/database/sqlite/sqlite-dialect.js";
import { ConfigError } from "../../src/errors.js";
import {
  ListPartition,
  ListPartitionConfig,
  ListPartitionWindow,
  TimeGranularity,
  TimePartition,
  TimePartitionConfig,
} from "../../src/partitioning/index.js";
import { source } from "../../src/source/source.js";
import { MYSQL_CONNECTION, mysqlAvailable, PG_CONNECTION, postgresAvailable } from "../database/servers.js";
import { listAll, useTempDirs } from "./helpers.js";

const tempDir = useTempDirs();
const ESCAPES = ["..", "../escaped", "a/../../escaped", "/tmp/escaped-abs", "a\\..\\b", "nul\u0000byte", ".", ""];

/** The ConfigError in an error's cause chain, or null. */
function configErrorIn(error: unknown): ConfigError | null {
  for (let e = error; e; e = (e as { cause?: unknown }).cause) if (e instanceof ConfigError) return e;
  return null;
}

async function attempt(destination: Destination, options: { dataset?: string; table?: string; column?: string }): Promise<unknown> {
  const events = asset({
    key: "events",
    partitioning: new TimePartitionConfig({ column: options.column ?? "date" }),
    schema: z.object({ date: z.iso.date(), n: z.number() }),
    run: () => [{ date: "2024-01-02", n: 1 }],
  });
  const Src = source({
    key: "rel",
    ...(options.dataset !== undefined ? { dataset: options.dataset } : {}),
    ...(options.table !== undefined ? { table: () => options.table! } : {}),
    assets: [events],
  });
  try {
    await Src({ destinations: destination }).assets.events!.materialize(TimePartition.fromKey("2024-01-02"));
    return null;
  } catch (error) {
    return error;
  }
}

describe("names made to escape the base path", () => {
  it("asset keys and list values are refused with ConfigError when declared", () => {
    for (const key of ["../x", "a/b", "/abs", "a\u0000b", "..", "a.b.c", "x; DROP TABLE y"]) {
      expect(() => asset({ key, run: () => [] }), key).toThrow(ConfigError);
    }
    for (const value of ESCAPES)
      expect(() => new ListPartitionConfig({ column: "region", values: [value] }), JSON.stringify(value)).toThrow(ConfigError);
  });

  for (const [name, make] of [
    ["CSV", (base: string) => new CSVDestination({ basePath: base })],
    ["File", (base: string) => new FileDestination({ basePath: base })],
    ["local object store", (base: string) => new LocalObjectStoreDestination({ basePath: base, format: "jsonl" })],
  ] as const) {
    it(`${name}: a hostile dataset, table or partition column is refused with ConfigError and nothing lands outside the base path`, async () => {
      const parent = await tempDir();
      const base = join(parent, "base");
      await mkdir(base);
      for (const value of ESCAPES) {
        for (const field of ["dataset", "table", "column"] as const) {
          if (field === "dataset" && value === "") continue; // no dataset: the table sits at the root
          // An empty partition column is refused when the partitioning is built, with a TypeError (reported).
          if (field === "column" && value === "") continue;
          const error = await attempt(make(base), { [field]: value });
          expect(configErrorIn(error), `${field} ${JSON.stringify(value)} was not refused: ${String(error)}`).toBeInstanceOf(ConfigError);
        }
      }
      const prefix = (await attempt(new LocalObjectStoreDestination({ basePath: base, prefix: "../../escaped" }), {})) as Error;
      expect(configErrorIn(prefix)).toBeInstanceOf(ConfigError);
      expect((await listAll(parent)).filter((file) => !file.startsWith("base/"))).toEqual([]);
      expect(await listAll(base)).toEqual([]);
    });
  }
});

describe("names made to inject SQL", () => {
  it("SQLite: quoted as names (or refused); a canary table survives and no other table appears", async () => {
    const dir = await tempDir();
    const path = join(dir, "canary.sqlite");
    const canary = new SQLiteDestination({ path });
    const run = (sql: string) => (canary as unknown as { run(sql: string): Promise<Record<string, unknown>[]> }).run(sql);
    await run(`CREATE TABLE canary (x INTEGER)`);
    const hostile = [`t"; DROP TABLE canary; --`, `t'); DROP TABLE canary; --`, "t`; DROP TABLE canary; --", `t]; DROP TABLE canary; --`];
    const expected = new Set(["canary"]);
    for (const name of hostile) {
      for (const field of ["dataset", "table", "column"] as const) {
        const destination = new SQLiteDestination({ path });
        const error = await attempt(destination, { [field]: name });
        await destination.close();
        if (error) {
          expect(String((error as Error).name), String(error)).toMatch(/Error$/);
          continue;
        }
        const dataset = field === "dataset" ? name : "rel";
        const table = field === "table" ? name : "events";
        expected.add(`${dataset}.${table}`);
        expected.add(`${dataset}._interloper_partitions`);
        expected.add(`${dataset}._interloper_materializations`);
      }
    }
    const tables = (await run(`SELECT name FROM sqlite_master WHERE type = 'table'`)).map((row) => String(row["name"]));
    expect(tables).toContain("canary");
    expect(new Set(tables)).toEqual(expected);
    await canary.close();
  });
});

// ---- every statement sent, on SQLite, PostgreSQL and MySQL/MariaDB ---------------------------

type SqlKind = "sqlite" | "postgres" | "mysql";
let servers = { postgres: false, mysql: false };
beforeAll(async () => {
  servers = { postgres: await postgresAvailable(), mysql: await mysqlAvailable() };
}, 60_000);

/**
 * Names that end a quoted identifier or string early in some dialect, each followed by a
 * statement dropping the canary table (`canary`, its qualified name): a double quote, backtick,
 * single quote, bracket, a backslash before each (MySQL strings escape with it), semicolons,
 * `--`, `#` and `/* *\/` comments, placeholders (`?`, `??`, `$1`), a newline. None ends with a
 * space (MySQL refuses such names) and none is longer than 63 bytes with its dataset tag.
 */
function injections(canary: string): string[] {
  const drop = `DROP TABLE ${canary}`;
  return [
    `x"; ${drop}; --`,
    `x\`; ${drop}; --`,
    `x'); ${drop}; --`,
    `x]; ${drop}; --`,
    `x\\"; ${drop}; --`,
    `x\\\`; ${drop}; #`,
    `x\\'); ${drop}; /*`,
    `x*/; ${drop}; /*`,
    `x?? ? $1; ${drop}`,
    `x\n; ${drop};\n--x`,
    `"\`'\\;--/**/#x`,
  ];
}

/** A statement as its server's lexer reads it. */
interface Lexed {
  /** The text with every identifier as `I`, string as `S`, bound value as `P`, spaces single. */
  readonly skeleton: string;
  /** The identifiers, unquoted. */
  readonly identifiers: string[];
}

/**
 * Lexes SQL as the server does: identifiers in `"` (SQLite, PostgreSQL) or backticks (MySQL,
 * where a backslash is no escape), strings in `'` (E'...', and MySQL's unless its sql_mode has
 * NO_BACKSLASH_ESCAPES, with backslash escapes), placeholders `?` or `$n`. Everything else stays
 * in the skeleton as it is (a comment, a quote left open, a second statement), where no allowed
 * shape accepts it.
 */
function lex(sql: string, kind: SqlKind, mysqlBackslashEscapes = true): Lexed {
  const identifiers: string[] = [];
  let skeleton = "";
  let i = 0;
  // The text up to the closing quote at or after `from`, the closing quote doubled inside; null when unclosed.
  const quoted = (from: number, close: string, backslash: boolean): string | null => {
    let text = "";
    for (let j = from; j < sql.length; j++) {
      const c = sql[j]!;
      if (backslash && c === "\\" && j + 1 < sql.length) text += sql[++j];
      else if (c === close && sql[j + 1] === close) text += sql[j++];
      else if (c === close) {
        i = j + 1;
        return text;
      } else text += c;
    }
    return null;
  };
  const identifierQuote = kind === "mysql" ? "`" : '"';
  while (i < sql.length) {
    const c = sql[i]!;
    const escapeString = kind === "postgres" && (c === "E" || c === "e") && sql[i + 1] === "'" && !/[\w$]/.test(sql[i - 1] ?? "");
    if (c === identifierQuote) {
      const name = quoted(i + 1, c, false);
      if (name === null) return { skeleton: `${skeleton}<unclosed ${c}>`, identifiers };
      identifiers.push(name);
      skeleton += "I";
    } else if (c === "'" || escapeString) {
      const text = quoted(i + (escapeString ? 2 : 1), "'", escapeString || (kind === "mysql" && mysqlBackslashEscapes));
      if (text === null) return { skeleton: `${skeleton}<unclosed '>`, identifiers };
      skeleton += "S";
    } else if (kind === "postgres" && c === "$" && /\d/.test(sql[i + 1] ?? "")) {
      i += 1 + /^\d+/.exec(sql.slice(i + 1))![0].length;
      skeleton += "P";
    } else if (kind !== "postgres" && c === "?") {
      i++;
      skeleton += "P";
    } else if (/\s/.test(c)) {
      if (!skeleton.endsWith(" ")) skeleton += " ";
      i++;
    } else {
      skeleton += c;
      i++;
    }
  }
  return { skeleton: skeleton.trim(), identifiers };
}

// The statements the destinations send, by skeleton: the only shapes allowed.
const UTF8MB4 = "(?: CHARACTER SET utf8mb4(?: COLLATE utf8mb4_(?:nopad|0900)_bin)?)?";
const TYPE = `(?:bigint|text|date|double precision|boolean|timestamptz|jsonb|BIGINT|TEXT${UTF8MB4}|VARCHAR\\(\\d+\\)${UTF8MB4}|DATE|DOUBLE|BOOLEAN|DATETIME(?:\\(3\\))?|JSON(?: TEXT)?|INTEGER|REAL)`;
const ROW_ID = "(?:INTEGER PRIMARY KEY|bigint GENERATED ALWAYS AS IDENTITY \\(CACHE \\d+\\)|BIGINT AUTO_INCREMENT PRIMARY KEY)";
const TABLE = "(?:I\\.)?I";
const BY_TIME = "I >= P AND I < P";
const BY_PREFIX = "substr\\(I, 1, \\d+\\) = P";
const WHERE = `(?: WHERE (?:1 = 0|I = P|I IN \\(P(?:, P)*\\)|${BY_TIME}))?`;
const SHAPES: readonly RegExp[] = [
  // Catalog queries: names are bound values.
  /^SELECT m\.name AS stored, p\.name, p\.type FROM sqlite_master AS m, pragma_table_info\(m\.name\) AS p WHERE m\.type = S AND m\.name = P COLLATE NOCASE ORDER BY p\.cid$/,
  // SQLite's schema cookie: the catalog query above is sent again only when it moved.
  /^PRAGMA schema_version$/,
  /^SELECT column_name, data_type FROM information_schema\.columns WHERE table_schema = P AND table_name = P ORDER BY ordinal_position$/,
  /^SELECT COLUMN_NAME AS name, COLUMN_TYPE AS type, CHARACTER_SET_NAME AS charset, COLLATION_NAME AS collation, IS_NULLABLE AS nullable FROM information_schema\.COLUMNS WHERE TABLE_SCHEMA = COALESCE\(P, DATABASE\(\)\) AND TABLE_NAME = P ORDER BY ORDINAL_POSITION$/,
  // Transactions and read snapshots.
  /^(?:BEGIN|BEGIN IMMEDIATE|COMMIT|ROLLBACK|START TRANSACTION|START TRANSACTION READ ONLY|BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY|SET TRANSACTION ISOLATION LEVEL (?:REPEATABLE READ|READ COMMITTED))$/,
  // MySQL's partition locks: their names are bound values.
  /^SELECT GET_LOCK\(P, @@lock_wait_timeout\) AS l0(?:, GET_LOCK\(P, @@lock_wait_timeout\) AS l\d+)*$/,
  /^SELECT RELEASE_LOCK\(P\) AS r0(?:, RELEASE_LOCK\(P\) AS r\d+)*$/,
  new RegExp(`^LOCK TABLE ${TABLE} IN SHARE ROW EXCLUSIVE MODE$`),
  // Definitions.
  /^CREATE (?:SCHEMA|DATABASE) IF NOT EXISTS I(?: CHARACTER SET utf8mb4)?$/,
  new RegExp(`^CREATE TABLE IF NOT EXISTS ${TABLE} \\(I ${ROW_ID}(?:, I ${TYPE})*\\)$`),
  new RegExp(`^ALTER TABLE ${TABLE} ADD COLUMN I ${TYPE}$`),
  // SQLite's partition index is descending (a backfill writes newest first).
  new RegExp(`^CREATE INDEX (?:IF NOT EXISTS )?I ON ${TABLE} \\(I(?: DESC)?\\)$`),
  new RegExp(`^COMMENT ON TABLE ${TABLE} IS S$`),
  new RegExp(`^ALTER TABLE ${TABLE} COMMENT = S$`),
  // Rows.
  new RegExp(`^DELETE FROM ${TABLE}${WHERE}$`),
  new RegExp(`^COPY ${TABLE} \\(I(?:, I)*\\) FROM STDIN$`),
  new RegExp(`^INSERT INTO ${TABLE} \\(I(?:, I)*\\) VALUES \\(P(?:, P)*\\)(?:, \\(P(?:, P)*\\))*$`),
  new RegExp(`^SELECT I(?:, I)* FROM ${TABLE}${WHERE} ORDER BY I$`),
  new RegExp(`^SELECT I AS v, COUNT\\(\\*\\) AS n FROM ${TABLE} WHERE I IS NOT NULL GROUP BY I$`),
  // Materialization records (provenance-statements.ts): an asset's entries by their prefix, bound.
  new RegExp(`^SELECT I, I FROM ${TABLE} WHERE I IS NOT NULL AND (?:${BY_PREFIX}|I IN \\(P(?:, P)*\\))$`),
  new RegExp(`^SELECT I, I FROM ${TABLE} WHERE (?:${BY_PREFIX}|I = P AND I = P) ORDER BY I DESC, I DESC LIMIT \\d+$`),
  new RegExp(
    `^DELETE FROM ${TABLE} WHERE I IN \\(SELECT ranked\\.r FROM \\(SELECT I AS r, ROW_NUMBER\\(\\) OVER \\(PARTITION BY I ORDER BY I DESC, I DESC\\) AS n FROM ${TABLE} WHERE I IN \\(P(?:, P)*\\)\\) AS ranked WHERE ranked\\.n > \\d+\\)$`,
  ),
  new RegExp(`^DELETE FROM ${TABLE} WHERE ${BY_PREFIX}$`),
  // The latest history row of each partition written, so that a new row never sorts before it (clock skew, issue 41.23).
  new RegExp(`^SELECT I, MAX\\(I\\) AS I FROM ${TABLE} WHERE I IN \\(P(?:, P)*\\) GROUP BY I$`),
];

/**
 * The row counts by period (one statement per column type and granularity, its SQL written by
 * the dialect with the names as the only variable part), as their skeletons: allowed exactly.
 */
const PERIOD_COUNTS: Record<SqlKind, Set<string>> = {
  sqlite: periodSkeletons("sqlite", sqliteDialect, ["DATE", "DATETIME", "TEXT"]),
  postgres: periodSkeletons("postgres", postgresDialect, ["date", "timestamp with time zone", "text"]),
  mysql: periodSkeletons("mysql", mysqlDialect("utf8mb4_nopad_bin"), ["date", "datetime(3)", "varchar(255)"]),
};
function periodSkeletons(kind: SqlKind, dialect: Parameters<typeof periodCountStatement>[0], types: readonly string[]): Set<string> {
  const skeletons = new Set<string>();
  for (const dataset of ["d", null]) {
    for (const type of types) {
      for (const granularity of TimeGranularity.all)
        skeletons.add(lex(periodCountStatement(dialect, "t", dataset, "c", type, granularity)!, kind).skeleton);
    }
  }
  return skeletons;
}

/** A database of the test's own: the canary, the statements recorded, the catalog, cleanup. */
interface SqlServer {
  /** The canary table's qualified name, as an injection would name it. */
  readonly canary: string;
  /** The prefix of every dataset the test makes. */
  readonly tag: string;
  destination(): DatabaseDestination;
  /** Starts recording every SQL text the destinations send; the function returned stops and gives them. */
  record(): () => string[];
  /** Lexes a statement as this server reads it. */
  lex(sql: string): Lexed;
  /** A table's description as the catalog holds it; undefined where tables have none (SQLite). */
  comment(dataset: string, table: string): Promise<string | null | undefined>;
  /** The canary's rows. */
  canaryRows(): Promise<number>;
  /** "dataset\u0000table" -> column names, of every dataset the test made. */
  tables(): Promise<Map<string, string[]>>;
  /** Drops everything the test made. */
  close(): Promise<void>;
}

const tableKey = (dataset: string, table: string) => `${dataset}\u0000${table}`;

async function sqliteServer(dir: string): Promise<SqlServer> {
  const Database = (await import("better-sqlite3")).default;
  const path = join(dir, "canary.sqlite");
  const own = new Database(path);
  own.exec(`CREATE TABLE canary (x INTEGER); INSERT INTO canary VALUES (1)`);
  const proto = Database.prototype as unknown as Record<"prepare" | "exec", (this: unknown, sql: string, ...rest: unknown[]) => unknown>;
  return {
    canary: "canary",
    tag: "rel",
    destination: () => new SQLiteDestination({ path }),
    record() {
      const statements: string[] = [];
      const originals = { prepare: proto.prepare, exec: proto.exec };
      for (const method of ["prepare", "exec"] as const) {
        proto[method] = function (this: unknown, sql: string, ...rest: unknown[]) {
          if (this !== own) statements.push(sql);
          return originals[method].call(this, sql, ...rest);
        };
      }
      return () => {
        Object.assign(proto, originals);
        return statements;
      };
    },
    lex: (sql) => lex(sql, "sqlite"),
    comment: async () => undefined,
    canaryRows: async () => (own.prepare("SELECT COUNT(*) AS n FROM canary").get() as { n: number }).n,
    async tables() {
      const tables = new Map<string, string[]>();
      for (const { name } of own.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'canary'").all() as {
        name: string;
      }[]) {
        const columns = (own.prepare("SELECT name FROM pragma_table_info(?)").all(name) as { name: string }[]).map((c) => c.name);
        // "dataset.table" is one name; no dataset here ("rel", or "rel" and an injection) has a dot.
        tables.set(tableKey(name.slice(0, name.indexOf(".")), name.slice(name.indexOf(".") + 1)), columns);
      }
      return tables;
    },
    close: async () => void own.close(),
  };
}

async function postgresServer(): Promise<SqlServer> {
  const pg = (await import("pg")).default;
  const hex = randomBytes(4).toString("hex");
  const tag = `ilh${hex}`;
  const canarySchema = `ilc${hex}`;
  const own = new pg.Client(PG_CONNECTION);
  await own.connect();
  await own.query(
    `CREATE SCHEMA ${canarySchema}; CREATE TABLE ${canarySchema}.canary (x integer); INSERT INTO ${canarySchema}.canary VALUES (1)`,
  );
  // Every SQL text reaches the server in a Query (simple protocol: DDL, COPY) or Parse
  // (extended protocol: statements with values) message of a pg Connection.
  const proto = pg.Connection.prototype as unknown as Record<"query" | "parse", (this: unknown, arg: unknown) => unknown>;
  const ownConnection = (own as unknown as { connection: unknown }).connection;
  return {
    canary: `${canarySchema}.canary`,
    tag,
    destination: () => new PostgresDestination({ connection: PG_CONNECTION }),
    record() {
      const statements: string[] = [];
      const originals = { query: proto.query, parse: proto.parse };
      proto.query = function (this: unknown, text: unknown) {
        if (this !== ownConnection) statements.push(String(text));
        return originals.query.call(this, text);
      };
      proto.parse = function (this: unknown, message: unknown) {
        if (this !== ownConnection) statements.push(String((message as { text: string }).text));
        return originals.parse.call(this, message);
      };
      return () => {
        Object.assign(proto, originals);
        return statements;
      };
    },
    lex: (sql) => lex(sql, "postgres"),
    async comment(dataset, table) {
      const sql =
        "SELECT obj_description(c.oid, 'pg_class') AS d FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2";
      return (await own.query(sql, [dataset, table])).rows[0]?.d ?? null;
    },
    canaryRows: async () => Number((await own.query(`SELECT COUNT(*) AS n FROM ${canarySchema}.canary`)).rows[0].n),
    async tables() {
      const tables = new Map<string, string[]>();
      const rows = (
        await own.query(
          "SELECT table_schema, table_name, column_name FROM information_schema.columns WHERE starts_with(table_schema, $1) ORDER BY ordinal_position",
          [tag],
        )
      ).rows;
      for (const row of rows) {
        const key = tableKey(row.table_schema, row.table_name);
        tables.set(key, [...(tables.get(key) ?? []), row.column_name]);
      }
      return tables;
    },
    async close() {
      const schemas = (
        await own.query("SELECT schema_name FROM information_schema.schemata WHERE starts_with(schema_name, $1) OR schema_name = $2", [
          tag,
          canarySchema,
        ])
      ).rows;
      for (const { schema_name } of schemas) await own.query(`DROP SCHEMA "${String(schema_name).replaceAll('"', '""')}" CASCADE`);
      await own.end();
    },
  };
}

async function mysqlServer(): Promise<SqlServer> {
  const mysql = (await import("mysql2/promise")).default;
  const hex = randomBytes(4).toString("hex");
  const tag = `ilh${hex}`;
  const canaryDatabase = `ilc${hex}`;
  const own = await mysql.createConnection(MYSQL_CONNECTION);
  await own.query(`CREATE DATABASE ${canaryDatabase}`);
  await own.query(`CREATE TABLE ${canaryDatabase}.canary (x INT)`);
  await own.query(`INSERT INTO ${canaryDatabase}.canary VALUES (1)`);
  // The destination's sessions keep the server's sql_mode, which decides how strings are read.
  const [[{ mode }]] = (await own.query("SELECT @@SESSION.sql_mode AS mode")) as unknown as [[{ mode: string }]];
  const backslashEscapes = !mode.includes("NO_BACKSLASH_ESCAPES");
  return {
    canary: `${canaryDatabase}.canary`,
    tag,
    destination: () => new MySQLDestination({ connection: MYSQL_CONNECTION }),
    record() {
      // mysql2 publishes every query and prepared statement, as sent, on these tracing channels.
      const statements: string[] = [];
      const subscriber = { start: (context: unknown) => void statements.push(String((context as { query: string }).query)) };
      const channels = [tracingChannel("mysql2:query"), tracingChannel("mysql2:execute")];
      for (const channel of channels) channel.subscribe(subscriber as never);
      return () => {
        for (const channel of channels) channel.unsubscribe(subscriber as never);
        return statements;
      };
    },
    lex: (sql) => lex(sql, "mysql", backslashEscapes),
    async comment(dataset, table) {
      const [rows] = await own.execute(
        "SELECT TABLE_COMMENT AS d FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
        [dataset, table],
      );
      return (rows as { d: string }[])[0]?.d ?? null;
    },
    canaryRows: async () => Number(((await own.query(`SELECT COUNT(*) AS n FROM ${canaryDatabase}.canary`))[0] as { n: number }[])[0]!.n),
    async tables() {
      const tables = new Map<string, string[]>();
      const [rows] = await own.execute(
        "SELECT TABLE_SCHEMA AS s, TABLE_NAME AS t, COLUMN_NAME AS c FROM information_schema.COLUMNS WHERE LEFT(TABLE_SCHEMA, ?) = ? ORDER BY ORDINAL_POSITION",
        [tag.length, tag],
      );
      for (const row of rows as { s: string; t: string; c: string }[]) {
        const key = tableKey(row.s, row.t);
        tables.set(key, [...(tables.get(key) ?? []), row.c]);
      }
      return tables;
    },
    async close() {
      const [rows] = await own.execute(
        "SELECT SCHEMA_NAME AS s FROM information_schema.SCHEMATA WHERE LEFT(SCHEMA_NAME, ?) = ? OR SCHEMA_NAME = ?",
        [tag.length, tag, canaryDatabase],
      );
      for (const { s } of rows as { s: string }[]) await own.query(`DROP DATABASE \`${s.replaceAll("`", "``")}\``);
      await own.end();
    },
  };
}

const DAY = "2024-01-02";

const FIELDS = ["dataset", "table", "partition column", "column", "description"] as const;

/** A table an attempt made, and the description it was given. */
interface Made {
  readonly dataset: string;
  readonly table: string;
  readonly columns: string[];
  readonly description: string | null;
}

/**
 * Stores one row through an asset whose dataset, table, partition column, other column or
 * description (the one text that enters SQL as a string literal) is `name`, a table per attempt,
 * and reads it back (the partition, its row count): stored as given, or refused with a
 * ConfigError. Returns the table made, or null when refused.
 */
async function storeNamed(server: SqlServer, field: (typeof FIELDS)[number], name: string, attempt: number): Promise<Made | null> {
  const dataset = field === "dataset" ? `${server.tag}${name}` : server.tag;
  // A table of its own per attempt: the same column name is a date in one and text in another.
  const table = field === "table" ? name : `events${attempt}`;
  const partitionColumn = field === "partition column" ? name : "day";
  const column = field === "column" ? name : "note";
  const row = { [partitionColumn]: DAY, [column]: name };
  const events = asset({
    key: "events",
    partitioning: new TimePartitionConfig({ column: partitionColumn }),
    schema: z.object({ [partitionColumn]: z.iso.date(), [column]: z.string() }),
    run: () => [row],
    ...(field === "description" ? { description: name } : {}),
  });
  const destination = server.destination();
  try {
    const stored = source({ key: "rel", dataset, table: () => table, assets: [events] })({ destinations: destination }).assets.events!;
    const partition = TimePartition.fromKey(DAY);
    await stored.materialize(partition);
    expect(await stored.read(partition), `${field} ${JSON.stringify(name)}`).toEqual([row]);
    expect(await stored.partitionRowCounts()).toEqual({ [DAY]: 1 });
    return { dataset, table, columns: ["_interloper_row", partitionColumn, column], description: field === "description" ? name : null };
  } catch (error) {
    expect(configErrorIn(error), `${field} ${JSON.stringify(name)} failed, yet was not refused: ${String(error)}`).toBeInstanceOf(
      ConfigError,
    );
    return null;
  } finally {
    await destination.close();
  }
}

/** Stores every value (that a list partitioning accepts) as a list partition at once; reads each back. */
async function storeListValues(server: SqlServer, names: readonly string[]): Promise<Made> {
  // Refused as list values: path separators, "=", "..", control characters (a newline among them).
  const values = names.filter((name) => !/[\\/=\u0000-\u001f\u007f]|\.\./.test(name));
  const regions = new ListPartitionConfig({ column: "region", values, allowWindow: true });
  const rowOf = (value: string) => ({ region: value, n: values.indexOf(value) });
  const events = asset({
    key: "events",
    partitioning: regions,
    schema: z.object({ region: z.string(), n: z.number().int() }),
    run: (context) => context.window!.partitions.map((p) => rowOf(p.key)),
  });
  const destination = server.destination();
  try {
    const stored = source({ key: "rel", dataset: server.tag, table: () => "regions", assets: [events] })({ destinations: destination })
      .assets.events!;
    const all = new ListPartitionWindow(regions, values[0]!, values.at(-1)!);
    await stored.materialize(all);
    for (const value of values) expect(await stored.read(new ListPartition(value, regions)), JSON.stringify(value)).toEqual([rowOf(value)]);
    expect(await stored.read(all)).toEqual(values.map(rowOf));
    expect(await stored.partitionRowCounts()).toEqual(Object.fromEntries(values.map((value) => [value, 1])));
    return { dataset: server.tag, table: "regions", columns: ["_interloper_row", "region", "n"], description: null };
  } finally {
    await destination.close();
  }
}

describe("names made to inject SQL: every statement sent is one of the destination's own", () => {
  it("the check refuses each injection when quoting fails, and accepts it quoted", () => {
    const accepted = (sql: string, kind: SqlKind) => SHAPES.some((shape) => shape.test(lex(sql, kind).skeleton));
    for (const kind of ["sqlite", "postgres", "mysql"] as const) {
      const mark = kind === "mysql" ? "`" : '"';
      const quote = kind === "mysql" ? quoteBacktick : quoteDouble;
      for (const name of injections("c.canary")) {
        const quoted = `DELETE FROM ${quote("d")}.${quote(name)} WHERE ${quote(name)} = ${kind === "postgres" ? "$1" : "?"}`;
        expect(accepted(quoted, kind), quoted).toBe(true);
        expect(lex(quoted, kind).identifiers).toEqual(["d", name, name]);
        // Quoted without doubling the quote inside: the name ends early, the rest is SQL.
        if (name.includes(mark))
          expect(accepted(`DELETE FROM ${mark}d${mark}.${mark}${name}${mark}`, kind), `${kind}: ${name}`).toBe(false);
      }
    }
    // A MySQL string with its quotes doubled but its backslashes left: \' ends it early.
    const text = "x\\'; DROP TABLE c.canary; -- ";
    expect(accepted(`ALTER TABLE \`d\`.\`t\` COMMENT = '${text.replaceAll("'", "''")}'`, "mysql")).toBe(false);
    expect(accepted(`ALTER TABLE \`d\`.\`t\` COMMENT = ${mysqlLiteral(text)}`, "mysql")).toBe(true);
    expect(accepted(`COMMENT ON TABLE "d"."t" IS ${postgresLiteral(text)}`, "postgres")).toBe(true);
  });

  for (const kind of ["sqlite", "postgres", "mysql"] as const) {
    it(`${kind}: stored as quoted names (or refused with ConfigError); each statement has a known shape naming only the given names; the canary survives`, async () => {
      if (kind !== "sqlite" && !servers[kind]) return;
      const server =
        kind === "sqlite" ? await sqliteServer(await tempDir()) : kind === "postgres" ? await postgresServer() : await mysqlServer();
      try {
        const names = injections(server.canary);
        const made: Made[] = [];
        let refused = 0;
        const stop = server.record();
        let statements: string[];
        try {
          for (const name of names) {
            for (const field of FIELDS) {
              const table = await storeNamed(server, field, name, made.length + refused);
              if (table) made.push(table);
              else refused++;
            }
          }
          made.push(await storeListValues(server, names));
        } finally {
          statements = stop();
        }
        // Every dataset made holds its tables and the ledger.
        const expected = new Map<string, string[]>();
        for (const { dataset, table, columns } of made) {
          expected.set(tableKey(dataset, table), columns);
          expected.set(tableKey(dataset, "_interloper_partitions"), ["_interloper_row", "entry", "record"]);
          expected.set(tableKey(dataset, "_interloper_materializations"), ["_interloper_row", "slot", "entry", "ended", "record"]);
        }
        // The given names, and the one alias of our own the statements quote ("latest", of the history's newest row).
        const allowed = new Set([...[...expected].flatMap(([key, columns]) => [...key.split("\u0000"), ...columns]), "latest"]);
        expect(statements.length).toBeGreaterThan(names.length * 4);
        for (const sql of statements) {
          // MySQL's per-connection setup and per-pool question: fixed texts, naming nothing an asset gave.
          if (kind === "mysql" && (sql === SESSION_SETUP || sql === SERVER_QUERY)) continue;
          const { skeleton, identifiers } = server.lex(sql);
          const known = SHAPES.some((shape) => shape.test(skeleton)) || PERIOD_COUNTS[kind].has(skeleton);
          expect(known, `a statement of no known shape was sent: ${JSON.stringify(sql)} (read as ${skeleton})`).toBe(true);
          for (const identifier of identifiers) {
            const known =
              allowed.has(identifier) ||
              /^il_idx_[0-9a-f]{8}$/.test(identifier) ||
              (kind === "sqlite" && [...expected.keys()].some((key) => key.replace("\u0000", ".") === identifier));
            expect(known, `${JSON.stringify(sql)} names ${JSON.stringify(identifier)}, which no asset gave`).toBe(true);
          }
        }
        expect(await server.canaryRows()).toBe(1);
        expect(await server.tables()).toEqual(expected);
        for (const { dataset, table, description } of made) {
          const comment = await server.comment(dataset, table);
          if (comment !== undefined)
            expect(comment || null, `the description of ${JSON.stringify(table)} in ${JSON.stringify(dataset)}`).toBe(description);
        }
        // The servers take every one of these names; only an over-long one may be refused.
        expect(refused).toBe(0);
      } finally {
        await server.close();
      }
    }, 120_000);
  }
});
