import { SchemaError } from "../errors.js";
import { type ConvertMode, converterFor } from "./converters.js";
import { describeValue } from "../text/describe-value.js";
import { assetPrefix } from "./describe.js";
import { describeFieldType, type FieldSpec } from "./field-spec.js";
import { compileShaper, ExtraKeys, type PreparedField, readField } from "./row-shaper.js";

/** Options of {@link reconcileRows}. */
export interface ReconcileOptions {
  /** Named in error messages. */
  readonly assetKey?: string;
  /** The store keeps "" apart from null (SQL): a string field's "" is kept, not read as null. */
  readonly typed?: boolean;
}

/** Converters for every field, in schema order. */
export function prepareFields(schema: readonly FieldSpec[], mode: ConvertMode): PreparedField[] {
  return schema.map((spec) => ({ spec, convert: converterFor(spec, mode) }));
}

/** `expected integer, got string "abc"`: the shared core of every conversion message. */
export function mismatch(spec: FieldSpec, value: unknown): string {
  return `expected ${describeFieldType(spec)}, got ${describeValue(value)}`;
}

/**
 * Restores each declared type from its stored form: CSV text ("" is null), JSON-ish values
 * (numbers for integers, ISO strings for dates, JSON text for json fields, ...). Output rows
 * hold the schema's fields in schema order, then the row's other fields unchanged. Nullability
 * is not enforced here (conform does that); a value that cannot be restored is a SchemaError
 * naming the field, the row, the value and the expected type. Input rows are never mutated.
 */
export function reconcileRows(
  rows: readonly Readonly<Record<string, unknown>>[],
  schema: readonly FieldSpec[],
  options: ReconcileOptions = {},
): Record<string, unknown>[] {
  return restoreEach(rows, rowReconciler(schema, options));
}

/** {@link reconcileRows} for one row at a time, its converters prepared once: for readers that build rows as they go. */
export function rowReconciler(schema: readonly FieldSpec[], options: ReconcileOptions = {}): RowRestorer {
  return rowRestorer(schema, options.typed ? "typed" : "stored", (spec, value, index) =>
    cannotReconcile(spec, value, index, options.assetKey),
  );
}

/** {@link reconcileRows}' refusal of a value it cannot restore. */
export function cannotReconcile(spec: FieldSpec, value: unknown, index: number, assetKey?: string): string {
  return `${assetPrefix(assetKey)}cannot restore field "${spec.name}" at row ${index}: ${mismatch(spec, value)}`;
}

/** Restores one row; `index` is its number in refusals. */
export type RowRestorer = (row: Readonly<Record<string, unknown>>, index: number) => Record<string, unknown>;

/**
 * Each row with the schema's fields converted (`mode`) in schema order, then its other fields
 * unchanged; a value that cannot be converted is a SchemaError with `message`'s text. The
 * shared loop of every restore from storage (CSV text, SQL, the typed formats).
 */
export function restoreRows(
  rows: readonly Readonly<Record<string, unknown>>[],
  schema: readonly FieldSpec[],
  mode: ConvertMode,
  message: (spec: FieldSpec, value: unknown, index: number) => string,
): Record<string, unknown>[] {
  return restoreEach(rows, rowRestorer(schema, mode, message));
}

function restoreEach(rows: readonly Readonly<Record<string, unknown>>[], restore: RowRestorer): Record<string, unknown>[] {
  const out = new Array<Record<string, unknown>>(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = restore(rows[i]!, i);
  return out;
}

/** {@link restoreRows} for one row at a time. */
function rowRestorer(
  schema: readonly FieldSpec[],
  mode: ConvertMode,
  message: (spec: FieldSpec, value: unknown, index: number) => string,
): RowRestorer {
  const fields = prepareFields(schema, mode);
  const shape = compileShaper(
    fields,
    (j, row, index) => {
      const { spec } = fields[j]!;
      throw new SchemaError(message(spec, readField(row, spec.name), index));
    },
    false,
  );
  const extras = new ExtraKeys(new Set(schema.map((spec) => spec.name)));
  return (row, index) => {
    const next = shape(row, index);
    copyFields(row, extras.of(row), next);
    return next;
  };
}

/** Copies the named fields of a row, as own fields even for a key like "__proto__". */
export function copyFields(row: Readonly<Record<string, unknown>>, keys: readonly string[], into: Record<string, unknown>): void {
  for (const key of keys) {
    if (key === "__proto__") {
      Object.defineProperty(into, key, { value: row[key], enumerable: true, writable: true, configurable: true });
    } else {
      into[key] = row[key];
    }
  }
}
