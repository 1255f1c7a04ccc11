import type { Row } from "../../representation/index.js";
import type { FieldSpec } from "../../schema/index.js";
import { unstorable } from "../unstorable.js";

/**
 * How a number column holds integers: "double" exactly up to 2^53 in magnitude (a binary
 * double: every integer of that range, none beyond for sure), "exact" every integer it has
 * room for (NUMERIC, DECIMAL; a value past its precision is refused by the database itself).
 */
export type IntegerHold = "double" | "exact";

/** 2^53: every integer of at most this magnitude is a double exactly. */
const DOUBLE_EXACT = 2n ** 53n;

/**
 * The integer fields of a write whose existing column is a number column of another family:
 * an integer partition beside number partitions is stored as numbers, which the column holds
 * exactly, rather than refused as a changed type.
 */
export function widenedIntoDouble(
  fields: readonly FieldSpec[],
  columns: ReadonlyMap<string, string>,
  holds: (catalogType: string) => IntegerHold | null,
): FieldSpec[] {
  return fields.filter((field) => field.type === "integer" && columns.has(field.name) && holds(columns.get(field.name)!) === "double");
}

/**
 * Refuses, before anything is stored, an integer a double column would round: conformed
 * integers are safe numbers or bigints, and a bigint past 2^53 in magnitude may not survive.
 */
export function checkDoubleIntegers(
  destination: string,
  table: string,
  fields: readonly FieldSpec[],
  columns: ReadonlyMap<string, string>,
  rows: readonly Row[],
): void {
  if (fields.length === 0) return;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    for (const field of fields) {
      const value = row[field.name];
      if (typeof value === "bigint" && (value > DOUBLE_EXACT || value < -DOUBLE_EXACT)) {
        throw unstorable(
          destination,
          field.name,
          i,
          `${value} does not fit column "${field.name}" of table ${table} (${columns.get(field.name)}) exactly: a double holds integers up to 2^53 (9007199254740992) in magnitude; declare the field as a number to store it rounded, or store it in an integer column`,
        );
      }
    }
  }
}
