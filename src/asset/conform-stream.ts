import { AssetError, SchemaError } from "../errors.js";
import { batchesOf, type Row, type RowStream } from "../representation/index.js";
import { integerZeros } from "../schema/conform.js";
import { valueCheck } from "../schema/field-spec.js";
import { conform, inferFieldSpecs, type FieldSpec } from "../schema/index.js";
import type { Asset } from "./asset.js";

/** Rows looked at before a stream's schema is fixed, when the asset declares none. */
export const INFERENCE_PREFIX_ROWS = 1_000;

/** A conformed stream: its schema is known before the first row is written. */
export interface ConformedStream {
  readonly schema: readonly FieldSpec[];
  readonly batches: AsyncIterable<Row[]>;
  /** Rows that have passed through so far (final once the batches are consumed). */
  rows(): number;
  readonly warnings: string[];
}

/**
 * Conforms a stream batch by batch. With a declared schema each batch is conformed like a
 * table; without one, the schema is inferred from a bounded prefix, then every later row must
 * fit it: an integer field may widen to number, anything else that contradicts a type already
 * written fails with a SchemaError naming the row, the field and the value. An integer field's
 * -0 becomes 0, as `conform` makes it.
 */
export async function conformStream(asset: Asset, stream: RowStream): Promise<ConformedStream> {
  const source = batchesOf(stream)[Symbol.asyncIterator]();
  const warnings: string[] = [];
  const dropped = new Set<string>();
  let count = 0;
  const prefix: Row[][] = [];
  let schema: FieldSpec[];
  if (asset.schema) {
    if (asset.strategy !== "auto" && asset.strategy !== "strict" && asset.strategy !== "reconcile")
      throw new AssetError(`asset "${asset.qualifiedKey}": unknown strategy`);
    schema = [...asset.schema];
  } else {
    if (asset.strategy !== "auto")
      throw new SchemaError(`asset "${asset.qualifiedKey}": strategy "${asset.strategy}" needs a declared schema`);
    let seen = 0;
    while (seen < INFERENCE_PREFIX_ROWS) {
      const next = await source.next();
      if (next.done) break;
      prefix.push(next.value);
      seen += next.value.length;
    }
    schema = inferFieldSpecs(prefix.flat());
  }
  const declared = asset.schema !== null;
  const checks = declared ? null : fitCheck(asset, schema);
  async function* batches(): AsyncGenerator<Row[]> {
    const all = (async function* () {
      yield* prefix;
      for (let next = await source.next(); !next.done; next = await source.next()) yield next.value;
    })();
    for await (const batch of all) {
      let out: Row[];
      if (declared) {
        const result = conform(batch, { strategy: asset.strategy, schema, assetKey: asset.qualifiedKey, rowOffset: count });
        // One warning per dropped field, naming the first row of the stream that held it.
        for (const w of result.warnings) {
          const field = /dropped field "([^"]*)"/.exec(w)?.[1];
          if (field === undefined || !dropped.has(field)) {
            if (field !== undefined) dropped.add(field);
            warnings.push(w);
          }
        }
        out = result.rows;
      } else {
        checks!(batch, count);
        out = integerZeros(batch, schema);
      }
      count += out.length;
      yield out;
    }
  }
  return { schema, batches: batches(), rows: () => count, warnings };
}

/** Checks later rows against an inferred schema, widening integer to number in place. */
function fitCheck(asset: Asset, schema: FieldSpec[]): (batch: readonly Row[], offset: number) => void {
  const known = new Map(schema.map((spec, index) => [spec.name, index]));
  const fits = schema.map(valueCheck);
  return (batch, offset) => {
    for (let i = 0; i < batch.length; i++) {
      const row = batch[i]!;
      for (const name in row) {
        const index = known.get(name);
        const value = row[name];
        if (index === undefined) {
          throw new SchemaError(
            `asset "${asset.qualifiedKey}": row ${offset + i} has the field "${name}", which the first ${INFERENCE_PREFIX_ROWS} rows did not have and which cannot be added to data already written; declare a schema`,
          );
        }
        const spec = schema[index]!;
        if (value === null || value === undefined || fits[index]!(value)) continue;
        if (spec.type === "integer" && typeof value === "number") {
          schema[index] = { ...spec, type: "number" };
          fits[index] = valueCheck(schema[index]!);
          continue;
        }
        throw new SchemaError(
          `asset "${asset.qualifiedKey}": row ${offset + i} has "${name}" = ${JSON.stringify(value) ?? String(value)}, but the schema inferred from the first rows says ${spec.type}; declare a schema to fix the types`,
        );
      }
    }
  };
}
