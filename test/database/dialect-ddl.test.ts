// Each dialect owns its DDL text and reads its driver's errors, with no destination or server.
import { describe, expect, it } from "vitest";
import { isStaleDefinition, mysqlDialect } from "../../src/destination/database/mysql/mysql-dialect.js";
import { postgresDialect, postgresWriteLock } from "../../src/destination/database/postgres/postgres-dialect.js";
import { sqliteDialect } from "../../src/destination/database/sqlite/sqlite-dialect.js";

const mysql = mysqlDialect(null);

describe("SQL dialects: DDL text and driver errors", () => {
  it("creates a dataset where the database has them", () => {
    expect(postgresDialect.createDataset("shop")).toBe('CREATE SCHEMA IF NOT EXISTS "shop"');
    expect(mysql.createDataset("shop")).toBe("CREATE DATABASE IF NOT EXISTS `shop` CHARACTER SET utf8mb4");
    expect(sqliteDialect.createDataset("shop")).toBeNull();
  });

  it("creates the partition index (SQLite's descending) and describes a table", () => {
    expect(sqliteDialect.createIndex('"t"', "i", '"day"')).toBe('CREATE INDEX IF NOT EXISTS "i" ON "t" ("day" DESC)');
    expect(mysql.createIndex("`t`", "i", "`day`")).toBe("CREATE INDEX `i` ON `t` (`day`)");
    expect(postgresDialect.describeTable('"s"."t"', "it's")).toEqual([`COMMENT ON TABLE "s"."t" IS E'it''s'`]);
    expect(sqliteDialect.describeTable('"t"', "x")).toEqual([]);
  });

  it("indexes a SQLite time column of text on the expression its filters compare", () => {
    expect(sqliteDialect.indexedExpression("day", "DATE", true)).toBe('"day"');
    expect(sqliteDialect.indexedExpression("day", "TEXT", true)).toBe(sqliteDialect.timeOperand('"day"', "TEXT"));
    expect(sqliteDialect.staleIndexedExpressions("day", "TEXT")).toEqual([`strftime('%Y-%m-%dT%H:%M:%fZ', "day")`]);
    expect(postgresDialect.indexedExpression("day", "text", true)).toBe('"day"');
  });

  it("reads 'another writer made it first' from each driver's errors, and nothing else", () => {
    expect(postgresDialect.isAlreadyDone(Object.assign(new Error("x"), { driverCode: "42P07" }))).toBe(true);
    expect(postgresDialect.isAlreadyDone(Object.assign(new Error("x"), { driverCode: "42601" }))).toBe(false);
    expect(mysql.isAlreadyDone(Object.assign(new Error("x"), { driverCode: "ER_DUP_KEYNAME" }))).toBe(true);
    expect(mysql.isAlreadyDone(new Error("x"))).toBe(false);
    expect(sqliteDialect.isAlreadyDone(new Error("table t already exists"))).toBe(true);
    expect(sqliteDialect.isAlreadyDone(new Error("no such table: t"))).toBe(false);
  });

  it("locks a PostgreSQL table against other writers, and reads MySQL's stale table definitions", () => {
    expect(postgresWriteLock('"s"."t"')).toBe('LOCK TABLE "s"."t" IN SHARE ROW EXCLUSIVE MODE');
    expect(isStaleDefinition(Object.assign(new Error("x"), { driverCode: "ER_TABLE_DEF_CHANGED" }))).toBe(true);
    expect(isStaleDefinition(Object.assign(new Error("x"), { driverCode: "ER_LOCK_DEADLOCK" }))).toBe(false);
  });
});
