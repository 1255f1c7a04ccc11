import { SchemaError } from "../../errors.js";
import type { Row } from "../../representation/index.js";
import type { FieldSpec } from "../../schema/index.js";
import { converterFor } from "../../schema/converters.js";
import { copyFields } from "../../schema/reconcile.js";
import { compileShaper, ExtraKeys, type PreparedField, readField } from "../../schema/row-shaper.js";

/**
 * Restores a schema's canonical types from a typed format's values (JSONL, Parquet). Unlike
 * `reconcileRows`, which reads CSV text where "" stands for null, an empty string here is a
 * real string and a json field's value is the value itself, not JSON text: these formats keep
 * null apart from "" and nest JSON, so nothing may be reinterpreted on the way back.
 */
export function restoreTypedRows(rows: readonly Readonly<Row>[], schema: readonly FieldSpec[], what: string): Row[] {
  const fields: PreparedField[] = schema.map((spec) => ({ spec, convert: converterFor(spec, "output") }));
  const shape = compileShaper(
    fields,
    (j, row, index) => {
      const { spec } = fields[j]!;
      throw new SchemaError(`${what}: cannot restore field "${spec.name}" (${spec.type}) at row ${index} from ${String(readField(row, spec.name))}`);
    },
    false,
  );
  const extras = new ExtraKeys(new Set(schema.map((spec) => spec.name)));
  const out = new Array<Row>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const next = shape(row, i);
    copyFields(row, extras.of(row), next);
    out[i] = next;
  }
  return out;
}
