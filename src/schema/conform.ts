import { ConfigError, SchemaError } from "../errors.js";
import { INVALID } from "./converters.js";
import { describeValue } from "../text/describe-value.js";
import { assetPrefix, FieldProblems } from "./describe.js";
import { type FieldSpec, valueCheck } from "./field-spec.js";
import { inferFieldSpecs } from "./infer.js";
import { copyFields, mismatch, prepareFields } from "./reconcile.js";
import { compileShaper, ExtraKeys, fieldReader, readField } from "./row-shaper.js";

/** How an asset's rows meet its schema: see {@link conform}. */
export type ConformStrategy = "auto" | "strict" | "reconcile";

/** Options of {@link conform}. */
export interface ConformOptions {
  readonly strategy: ConformStrategy;
  /** The declared schema, or null when the asset declares none. */
  readonly schema: readonly FieldSpec[] | null;
  /** Named in every message. */
  readonly assetKey?: string;
  /** The index of the first row in a longer stream, so messages number rows as the stream does. */
  readonly rowOffset?: number;
}

/** Conformed rows, the effective schema, and what was changed on the way (dropped fields). */
export interface ConformResult {
  readonly rows: Record<string, unknown>[];
  readonly schema: FieldSpec[];
  readonly warnings: string[];
}

/**
 * Puts an asset's rows in the shape its destinations get.
 * - auto: with a schema, coerce to it, keeping extra fields; without one, infer it and pass
 *   the rows through.
 * - strict: the rows must already match the schema exactly; one SchemaError lists every field
 *   that does not (wrong type, missing, null where not nullable, not in the schema).
 * - reconcile: align to the schema: drop extra fields (a warning each), add missing nullable
 *   ones as null, coerce values.
 * A null in a non-nullable field, or a value that cannot be coerced, is a SchemaError. Under
 * every strategy, with a schema or an inferred one, an integer field's -0 becomes 0 (an integer
 * has no negative zero, and most stores cannot keep one): every destination gets the same value.
 */
export function conform(rows: readonly Record<string, unknown>[], options: ConformOptions): ConformResult {
  const { strategy, schema, assetKey } = options;
  const offset = options.rowOffset ?? 0;
  if (strategy === "auto" && schema === null) {
    const inferred = inferFieldSpecs(rows);
    return { rows: integerZeros(rows, inferred), schema: inferred, warnings: [] };
  }
  if (strategy !== "auto" && strategy !== "strict" && strategy !== "reconcile") {
    throw new ConfigError(
      `${assetPrefix(assetKey)}unknown schema strategy ${describeValue(strategy)}: expected "auto", "strict" or "reconcile"`,
    );
  }
  if (schema === null) {
    throw new SchemaError(`${assetPrefix(assetKey)}strategy "${strategy}" needs a declared schema, and none was given`);
  }
  if (strategy === "strict") return checkStrict(rows, schema, assetKey, offset);
  // Rows that already hold every field in its canonical form need no copy: the common case of a
  // typed asset, where copying would double the memory a partition takes.
  if (strategy === "auto" && conformsExactly(rows, schema))
    return { rows: rows as Record<string, unknown>[], schema: [...schema], warnings: [] };
  return coerce(rows, schema, strategy === "auto", assetKey, offset);
}

/** Why a value is refused from a non-nullable field, told apart so the fix is obvious. */
function absence(row: Readonly<Record<string, unknown>>, name: string, value: unknown): string {
  return value === undefined && !Object.hasOwn(row, name) ? "is missing" : `is ${describeValue(value)}`;
}

function coerce(
  rows: readonly Record<string, unknown>[],
  schema: readonly FieldSpec[],
  keepExtras: boolean,
  assetKey: string | undefined,
  offset: number,
): ConformResult {
  const fields = prepareFields(schema, "output");
  const problems = new FieldProblems();
  const shape = compileShaper(
    fields,
    (j, row, index) => {
      const { spec, convert } = fields[j]!;
      const name = spec.name;
      if (problems.has(name)) return;
      const value = readField(row, name);
      const text = convert(value) === INVALID ? mismatch(spec, value) : `is not nullable but ${absence(row, name, value)}`;
      problems.add(name, j, `"${name}" ${text} (row ${offset + index})`);
    },
    true,
  );
  const extras = new ExtraKeys(new Set(schema.map((spec) => spec.name)));
  const dropped = new Map<string, number>();
  const out = new Array<Record<string, unknown>>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const next = shape(row, i);
    const extra = extras.of(row);
    if (keepExtras) {
      copyFields(row, extra, next);
    } else {
      for (const key of extra) if (!dropped.has(key)) dropped.set(key, offset + i);
    }
    out[i] = next;
  }
  if (problems.size > 0) {
    const summary = problems.summary("cannot be conformed to the schema", "cannot be conformed to the schema");
    throw new SchemaError(`${assetPrefix(assetKey)}${summary}`);
  }
  const warnings = [...dropped].map(
    ([name, row]) => `${assetPrefix(assetKey)}dropped field "${name}", which is not in the schema (first in row ${row})`,
  );
  return { rows: out, schema: [...schema], warnings };
}

function checkStrict(
  rows: readonly Record<string, unknown>[],
  schema: readonly FieldSpec[],
  assetKey: string | undefined,
  offset: number,
): ConformResult {
  const checks = schema.map(valueCheck);
  const reads = schema.map(({ name }) => fieldReader(name));
  const extras = new ExtraKeys(new Set(schema.map((spec) => spec.name)));
  const problems = new FieldProblems();
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    for (let j = 0; j < schema.length; j++) {
      const spec = schema[j]!;
      const value = reads[j]!(row);
      if (value === null || value === undefined ? spec.nullable : checks[j]!(value)) continue;
      if (problems.has(spec.name)) continue;
      const text = value === null || value === undefined ? `is not nullable but ${absence(row, spec.name, value)}` : mismatch(spec, value);
      problems.add(spec.name, j, `"${spec.name}" ${text} (row ${offset + i})`);
    }
    // Extras rank after every declared field; the stable sort keeps them in order of discovery.
    for (const key of extras.of(row)) {
      if (!problems.has(key)) problems.add(key, schema.length, `"${key}" is not in the schema (row ${offset + i})`);
    }
  }
  if (problems.size > 0) {
    throw new SchemaError(`${assetPrefix(assetKey)}${problems.summary("does not match the schema", "do not match the schema")}`);
  }
  return { rows: integerZeros(rows, schema), schema: [...schema], warnings: [] };
}

/**
 * Whether every row holds every field of the schema, each value already of its declared shape
 * (an integer field's -0 is not: coercion makes it 0).
 */
function conformsExactly(rows: readonly Record<string, unknown>[], schema: readonly FieldSpec[]): boolean {
  const checks = schema.map((spec) => (spec.type === "integer" ? isCanonicalInteger : valueCheck(spec)));
  const reads = schema.map(({ name }) => fieldReader(name));
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    for (let j = 0; j < schema.length; j++) {
      const value = reads[j]!(row);
      if (value === undefined) return false;
      if (value === null ? !schema[j]!.nullable : !checks[j]!(value)) return false;
    }
  }
  return true;
}

/** An integer field's canonical value: a bigint, or a safe integer number other than -0. */
function isCanonicalInteger(value: unknown): boolean {
  return typeof value === "bigint" || (Number.isSafeInteger(value) && (value !== 0 || 1 / (value as number) > 0));
}

/**
 * A copy of the rows with every integer field's -0 as 0, for the paths that pass rows through
 * without coercing them (strict, and auto without a schema). The rows that hold none are passed
 * as they are; one that holds a -0 is copied, never changed in place.
 */
export function integerZeros(rows: readonly Record<string, unknown>[], schema: readonly FieldSpec[]): Record<string, unknown>[] {
  const out = rows.slice();
  const integers = schema.filter((spec) => spec.type === "integer").map((spec) => [spec.name, fieldReader(spec.name)] as const);
  if (integers.length === 0) return out;
  for (let i = 0; i < out.length; i++) {
    let row = out[i]!;
    for (const [name, read] of integers) {
      const value = read(row);
      if (value !== 0 || 1 / (value as number) > 0) continue;
      if (row === rows[i]) row = out[i] = { ...row };
      // Defined, not assigned: a field named "__proto__" is an own field of the copy.
      Object.defineProperty(row, name, { value: 0, enumerable: true, writable: true, configurable: true });
    }
  }
  return out;
}
