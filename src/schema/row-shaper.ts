import { type Converter, INVALID } from "./converters.js";
import type { FieldSpec } from "./field-spec.js";

/** Called for a value its converter refused, or a null where `requireValues` forbids one. */
export type Report = (field: number, row: Readonly<Record<string, unknown>>, index: number) => void;

/** Builds the output row (schema fields, schema order) of one input row. */
export type RowShaper = (row: Readonly<Record<string, unknown>>, index: number) => Record<string, unknown>;

/**
 * A row's own value for a field. Plain property access would find Object.prototype's members
 * for a field named "constructor" or "__proto__" that the row does not have.
 */
export function readField(row: Readonly<Record<string, unknown>>, name: string): unknown {
  return shadowsPrototype(name) && !Object.hasOwn(row, name) ? undefined : row[name];
}

/** Whether a name needs {@link readField} rather than plain property access. */
function shadowsPrototype(name: string): boolean {
  return name in Object.prototype;
}

/** {@link readField} for one field, decided once: plain access for every ordinary name. */
export function fieldReader(name: string): (row: Readonly<Record<string, unknown>>) => unknown {
  return shadowsPrototype(name) ? (row) => (Object.hasOwn(row, name) ? row[name] : undefined) : (row) => row[name];
}

/** A field's spec with its converter, prepared once per call. */
export interface PreparedField {
  readonly spec: FieldSpec;
  readonly convert: Converter;
}

type ShaperFactory = (c: Converter[], i: symbol, r: Report) => RowShaper;
const factories = new Map<string, ShaperFactory>();
const MAX_FACTORIES = 256;

/**
 * Compiles the row builder for a schema. Rows built by assigning keys one by one in a loop go
 * through V8's slow keyed stores and map transitions; an object literal with the schema's keys
 * gets one hidden class for every row and is about four times faster over millions of rows. The
 * keys are embedded as JSON string literals, so any field name is safe. Where code generation
 * is disabled (--disallow-code-generation-from-strings) the plain loop takes over.
 */
export function compileShaper(
  fields: readonly PreparedField[],
  report: Report,
  requireValues: boolean,
  positions?: ReadonlyArray<number | null>,
): RowShaper {
  const converters = fields.map((field) => field.convert);
  const lines: string[] = [];
  const entries: string[] = [];
  fields.forEach(({ spec }, j) => {
    const key = JSON.stringify(spec.name);
    // Given positions, the input is an array of values (a parsed record): field j is at
    // positions[j], or absent (null).
    const position = positions?.[j];
    const read =
      position !== undefined
        ? position === null
          ? "undefined"
          : `row[${position}]`
        : shadowsPrototype(spec.name)
          ? `(Object.hasOwn(row, ${key}) ? row[${key}] : undefined)`
          : `row[${key}]`;
    const nullCheck = requireValues && !spec.nullable ? ` || v${j} === null` : "";
    lines.push(`const v${j} = c[${j}](${read});`, `if (v${j} === I${nullCheck}) report(${j}, row, index);`);
    // A literal `"__proto__": v` would set the prototype; the computed form defines a field.
    entries.push(`${spec.name === "__proto__" ? `[${key}]` : key}: v${j}`);
  });
  const body = `return function shape(row, index) {\n${lines.join("\n")}\nreturn { ${entries.join(", ")} };\n};`;
  try {
    // Compiling costs far more than shaping a small partition: one factory per schema shape.
    let factory = factories.get(body);
    if (!factory) {
      factory = new Function("c", "I", "report", body) as ShaperFactory;
      if (factories.size < MAX_FACTORIES) factories.set(body, factory);
    }
    return factory(converters, INVALID, report);
  } catch {
    return loopShaper(fields, report, requireValues, positions);
  }
}

function loopShaper(
  fields: readonly PreparedField[],
  report: Report,
  requireValues: boolean,
  positions: ReadonlyArray<number | null> | undefined,
): RowShaper {
  return (row, index) => {
    const out: Record<string, unknown> = {};
    for (let j = 0; j < fields.length; j++) {
      const { spec, convert } = fields[j]!;
      const position = positions?.[j];
      const value = convert(
        position === undefined ? readField(row, spec.name) : position === null ? undefined : (row as unknown as unknown[])[position],
      );
      if (value === INVALID || (value === null && requireValues && !spec.nullable)) report(j, row, index);
      Object.defineProperty(out, spec.name, { value, enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
}

/**
 * The keys of a row that a schema does not declare. Rows nearly always share one key order, so
 * the row's keys are compared with the previous row's and the answer reused when they match,
 * instead of a set lookup per key.
 */
export class ExtraKeys {
  private lastKeys: readonly string[] = [];
  private lastExtras: readonly string[] = [];

  constructor(private readonly declared: ReadonlySet<string>) {}

  /** The row's own keys outside the schema, in the row's order (often a shared empty array). */
  of(row: Readonly<Record<string, unknown>>): readonly string[] {
    const keys = this.lastKeys;
    let position = 0;
    for (const key in row) {
      if (keys[position] !== key) return this.recompute(row);
      position++;
    }
    return position === keys.length ? this.lastExtras : this.recompute(row);
  }

  private recompute(row: Readonly<Record<string, unknown>>): readonly string[] {
    const keys: string[] = [];
    const extras: string[] = [];
    for (const key in row) {
      if (!Object.hasOwn(row, key)) continue;
      keys.push(key);
      if (!this.declared.has(key)) extras.push(key);
    }
    this.lastKeys = keys;
    this.lastExtras = extras;
    return extras;
  }
}
