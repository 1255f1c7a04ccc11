// Issue 23: the queue's URL and schema, which errors count as the server going away, and the
// message when pg-boss is not installed.
import { describe, expect, it } from "vitest";
import { importOptional } from "../../src/destination/optional-import.js";
import { ConfigError } from "../../src/errors.js";
import { isConnectionError } from "../../src/queue/complete-job.js";
import { parseQueueUrl, queueServerError, QueueServerError } from "../../src/queue/queue-connection.js";

describe("the queue URL", () => {
  it("takes its schema from ?schema=, else the default, and passes the rest on", () => {
    expect(parseQueueUrl("postgres://u:p@db:5433/jobs?schema=team_a&sslmode=disable")).toEqual({
      url: "postgres://u:p@db:5433/jobs?sslmode=disable",
      schema: "team_a",
    });
    expect(parseQueueUrl("postgresql://db/jobs")).toEqual({ url: "postgresql://db/jobs", schema: "interloper_queue" });
    expect(parseQueueUrl("postgres://db/jobs", "mine").schema).toBe("mine");
  });

  it("refuses what is not a PostgreSQL URL or a plain schema name, in one line", () => {
    expect(() => parseQueueUrl("db:5432")).toThrow(ConfigError);
    expect(() => parseQueueUrl("mysql://db/jobs")).toThrow("the queue URL must start with postgres://, got mysql://…");
    expect(() => parseQueueUrl("postgres://db/jobs?schema=a;drop")).toThrow(/lower-case SQL name/);
  });
});

describe("a lost queue server", () => {
  it("is told from a statement's own error", () => {
    expect(isConnectionError(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" }))).toBe(true);
    expect(isConnectionError(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isConnectionError(Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }))).toBe(
      true,
    );
    expect(isConnectionError(Object.assign(new Error('relation "x" does not exist'), { code: "42P01" }))).toBe(false);
  });

  it("is one line naming the server, what happened and what to do", () => {
    const error = queueServerError("db:5432", new Error("Connection terminated unexpectedly\nmore"));
    expect(error).toBeInstanceOf(QueueServerError);
    expect(error.message).toBe(
      "the queue server db:5432 is unreachable: the connection failed (Connection terminated unexpectedly); check that PostgreSQL is up and reachable from here",
    );
    const coded = (message: string, code: string) => queueServerError("db:5432", Object.assign(new Error(message), { code })).message;
    expect(coded('database "jobs" does not exist', "3D000")).toBe(
      'the queue server db:5432 has no such database (database "jobs" does not exist): create it (createdb NAME) or name another at the end of --queue',
    );
    expect(coded('password authentication failed for user "etl"', "28P01")).toBe(
      'the queue server db:5432 refused the login (password authentication failed for user "etl"): fix the user of --queue, or give the password in PGPASSWORD',
    );
    expect(coded("getaddrinfo ENOTFOUND db", "ENOTFOUND")).toBe(
      'the queue server\'s host "db" is not known (getaddrinfo ENOTFOUND db): fix the host of --queue',
    );
  });
});

describe("pg-boss missing", () => {
  it("names the package and the command that installs it", async () => {
    await expect(importOptional("pg-boss-not-installed", "npm install pg pg-boss@10", "a work queue (--queue)")).rejects.toThrow(
      'a work queue (--queue) needs the optional package "pg-boss-not-installed", which is not installed: run `npm install pg pg-boss@10`',
    );
  });
});
