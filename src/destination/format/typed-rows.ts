import type { Row } from "../../representation/index.js";
import type { FieldSpec } from "../../schema/index.js";
import { restoreRows } from "../../schema/reconcile.js";

/**
 * Restores a schema's canonical types from a typed format's values (JSONL, Parquet). Unlike
 * `reconcileRows`, which reads CSV text where "" stands for null, an empty string here is a
 * real string and a json field's value is the value itself, not JSON text: these formats keep
 * null apart from "" and nest JSON, so nothing may be reinterpreted on the way back.
 */
export function restoreTypedRows(rows: readonly Readonly<Row>[], schema: readonly FieldSpec[], what: string): Row[] {
  return restoreRows(
    rows,
    schema,
    "output",
    (spec, value, index) => `${what}: cannot restore field "${spec.name}" (${spec.type}) at row ${index} from ${String(value)}`,
  );
}
