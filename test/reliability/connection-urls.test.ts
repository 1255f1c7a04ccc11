// Connection URLs that do not parse, or name another scheme, are bad configuration: one line on
// stderr naming the option and what was expected, exit 2, no stack trace and no password. They
// once reached the driver, which threw a bare TypeError ("unexpected error: Invalid URL", exit 1)
// in `coverage` and `materialize --missing`, or failed every write of a backfill one by one.
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { MySQLDestination, PostgresDestination } from "../../src/destination/database/index.js";
import { S3Destination } from "../../src/destination/store/index.js";
import { postgresAvailable } from "../database/servers.js";
import { SECRETS } from "../../fixtures/projects/reliability/interloper.config.js";
import { ensureBuilt, localDestination, runCli, useTempDirs } from "./helpers.js";

const tempDir = useTempDirs();
let postgres = false;
beforeAll(async () => {
  await ensureBuilt();
  postgres = await postgresAvailable();
}, 180_000);

const PG = SECRETS.pgPassword;
const MY = SECRETS.mysqlPassword;

/** A fixture environment, the option a message must name, and the URL as the message may show it. */
const CASES: { readonly what: string; readonly env: Record<string, string>; readonly option: string; readonly shown: string }[] = [
  {
    what: "PostgreSQL, an unclosed IPv6 host",
    env: { REL_DEST: "postgres", REL_PG_URL: `postgres://postgres:${PG}@[::1/test` },
    option: "connection.url is not a valid URL",
    shown: "postgres://***@[::1/test",
  },
  {
    what: "PostgreSQL, a port out of range",
    env: { REL_DEST: "postgres", REL_PG_URL: `postgres://postgres:${PG}@127.0.0.1:99999/test` },
    option: "connection.url is not a valid URL",
    shown: "postgres://***@127.0.0.1:99999/test",
  },
  {
    what: "PostgreSQL, not a URL at all",
    env: { REL_DEST: "postgres", REL_PG_URL: "host=db user=postgres" },
    option: "connection.url is not a valid URL",
    shown: "host=db user=postgres",
  },
  {
    what: "PostgreSQL, a MySQL URL",
    env: { REL_DEST: "postgres", REL_PG_URL: `mysql://postgres:${PG}@127.0.0.1/test` },
    option: 'connection.url has the scheme "mysql:"',
    shown: "mysql://***@127.0.0.1/test",
  },
  {
    what: "PostgreSQL, a password in the query",
    env: { REL_DEST: "postgres", REL_PG_URL: `postgres://postgres@[::1/test?password=${PG}` },
    option: "connection.url is not a valid URL",
    shown: "postgres://***@[::1/test?password=***",
  },
  {
    what: "MySQL, an unclosed IPv6 host",
    env: { REL_DEST: "mysql", REL_MYSQL_URL: `mysql://root:${MY}@[::1/test` },
    option: "connection.url is not a valid URL",
    shown: "mysql://***@[::1/test",
  },
  {
    what: "MySQL, a malformed %-escape in the password",
    env: { REL_DEST: "mysql", REL_MYSQL_URL: `mysql://root:%zz${MY}@127.0.0.1/test` },
    option: "connection.url has a user or password with a malformed %-escape",
    shown: "mysql://***@127.0.0.1/test",
  },
  {
    what: "MySQL, a PostgreSQL URL",
    env: { REL_DEST: "mysql", REL_MYSQL_URL: `postgres://root:${MY}@127.0.0.1/test` },
    option: 'connection.url has the scheme "postgres:"',
    shown: "postgres://***@127.0.0.1/test",
  },
  {
    what: "S3, an endpoint that is no URL",
    env: { REL_DEST: "s3", REL_S3_ENDPOINT: "localhost:9000" },
    option: 'connection.endpoint has the scheme "localhost:"',
    shown: "localhost:9000",
  },
  {
    what: "S3, an endpoint with a space",
    env: { REL_DEST: "s3", REL_S3_ENDPOINT: "http://local host:9000" },
    option: "connection.endpoint is not a valid URL",
    shown: "http://local host:9000",
  },
];

describe.concurrent("malformed connection URLs through the CLI", () => {
  for (const { what, env, option, shown } of CASES) {
    for (const args of [
      ["materialize", "events", "-w", "2024-01-01..2024-01-03", "--missing"],
      ["coverage", "events", "-w", "2024-01-01..2024-01-03"],
    ]) {
      it(`${what}: \`${args.slice(0, 2).join(" ")}\` exits 2 with one line naming the option`, async () => {
        const data = await tempDir();
        const result = await runCli(args, data, env);
        expect(result.code, result.stderr).toBe(2);
        const lines = result.stderr.trimEnd().split("\n");
        expect(lines, result.stderr).toHaveLength(1);
        // The CLI says where the config threw: "interloper: config <file>:<line> threw while loading: ...".
        expect(lines[0]).toMatch(/^interloper: config .* threw while loading: (PostgresDestination|MySQLDestination|S3Destination): /);
        expect(lines[0]).toContain(option);
        expect(lines[0]).toContain(`got ${JSON.stringify(shown)}`);
        expect(lines[0]).toContain("expected ");
        expect(result.stderr + result.stdout).not.toContain("s3cr3t");
        expect(result.stdout).toBe("");
      });
    }
  }

  it("a well-formed URL still works, its password unseen (PostgreSQL trusts every local connection)", async () => {
    if (!postgres) return;
    const data = await tempDir();
    const dataset = `il_rel_url_${randomBytes(4).toString("hex")}`;
    try {
      const result = await runCli(["materialize", "settings"], data, {
        REL_DEST: "postgres",
        REL_DATASET: dataset,
        REL_PG_URL: `postgresql://postgres:${PG}@127.0.0.1:5432/test`,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr + result.stdout).not.toContain("s3cr3t");
    } finally {
      const own = localDestination("postgres", "") as unknown as { run(sql: string): Promise<unknown>; close(): Promise<void> };
      await own.run(`DROP SCHEMA IF EXISTS "${dataset}" CASCADE`);
      await own.close();
    }
  });
});

describe("malformed connection URLs, in process", () => {
  it("a constructor refuses them with a ConfigError, naming DATABASE_URL when the URL came from there", () => {
    expect(() => new PostgresDestination({ connection: { url: "postgres://u:p@[::1/db" } })).toThrow(ConfigError);
    expect(() => new MySQLDestination({ connection: { url: "mysql://u:%zz@h/db" } })).toThrow(ConfigError);
    expect(() => new S3Destination({ bucket: "b", connection: { endpoint: "not a url" } })).toThrow(ConfigError);
    const saved = process.env["DATABASE_URL"];
    process.env["DATABASE_URL"] = `postgres://u:${PG}@[::1/db`;
    try {
      expect(() => new PostgresDestination()).toThrow(
        /^PostgresDestination: DATABASE_URL is not a valid URL: expected postgres:\/\/user:password@host:5432\/database, got "postgres:\/\/\*\*\*@\[::1\/db"$/,
      );
    } finally {
      if (saved === undefined) delete process.env["DATABASE_URL"];
      else process.env["DATABASE_URL"] = saved;
    }
  });

  it("the forms the drivers read are accepted: postgres, postgresql, socket paths, no host; mysql, mariadb; http(s) endpoints", () => {
    for (const url of [
      "postgres://u:p@h:5432/db",
      "postgresql://h/db",
      "/var/run/postgresql db",
      "postgres://u@/db?host=/var/run/postgresql",
      "socket:/var/run/postgresql?db=x",
      "postgres://u:p a%zz@h/db",
    ]) {
      expect(() => new PostgresDestination({ connection: { url } }), url).not.toThrow();
    }
    for (const url of ["mysql://u:p@h:3306/db", "mariadb://h/db", "mysql://u:p%25@h/db"])
      expect(() => new MySQLDestination({ connection: { url } }), url).not.toThrow();
    for (const endpoint of ["http://127.0.0.1:9000", "https://s3.example.com"])
      expect(() => new S3Destination({ bucket: "b", connection: { endpoint } }), endpoint).not.toThrow();
  });
});
