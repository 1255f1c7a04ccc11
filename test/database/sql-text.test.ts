// Every SQL text a built-in SQL backend sends is its dialect's: written in a dialect file
// (`*-dialect.ts`) or a statements file (`*-statements.ts`), never in a destination, a driver or
// a helper. A statement written anywhere else would be missed by whoever reads the dialect to
// learn what the backend sends.

import { readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../support/source-files.js";

const DATABASE = resolve(import.meta.dirname, "../../src/destination/database");
const SQL_FILES = /(-dialect|sql-dialect|-statements|sql-statements)\.ts$/;
// The start of a statement in a string or template literal (upper case, as every file writes SQL).
const STATEMENT =
  /["'`]\s*(SELECT|INSERT INTO|CREATE (TABLE|INDEX|SCHEMA|DATABASE)|DELETE FROM|UPDATE \S+ SET|ALTER TABLE|DROP (TABLE|INDEX)|BEGIN|COMMIT|ROLLBACK|START TRANSACTION|SET (TRANSACTION|NAMES|SESSION)|COPY \S+ \(|PRAGMA|LOCK TABLE|COMMENT ON)(?!\w)/;

/** The text without its comments (a string holding "//", such as a URL, loses its end: no statement is added). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
}

describe("SQL text", () => {
  it("is written only in the dialect and statements files of src/destination/database", () => {
    const files = sourceFiles(DATABASE);
    expect(files.filter((file) => SQL_FILES.test(file)).length).toBeGreaterThan(3);
    const outside = files
      .filter((file) => !SQL_FILES.test(file))
      .flatMap((file) =>
        code(readFileSync(file, "utf8"))
          .split("\n")
          .filter((line) => STATEMENT.test(line))
          .map((line) => `${relative(DATABASE, file)}: ${line.trim()}`),
      );
    expect(outside).toEqual([]);
  });

  it("is found by this check where it would be written (the check itself works)", () => {
    expect(STATEMENT.test("const sql = `SELECT ${list} FROM t`;")).toBe(true);
    expect(STATEMENT.test('await client.query("BEGIN");')).toBe(true);
    expect(STATEMENT.test("const sql = `COPY ${table} (${names}) FROM STDIN`;")).toBe(true);
    // A message naming a statement is no statement.
    expect(STATEMENT.test("throw fail(error, `COPY into ${table} failed`);")).toBe(false);
  });
});
