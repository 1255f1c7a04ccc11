import { SchemaError } from "../../errors.js";
import type { Row } from "../../representation/index.js";
import { type FieldSpec, toText } from "../../schema/index.js";
import { fieldReader } from "../../schema/row-shaper.js";
import { jsonText, utf8Text } from "../unstorable.js";
import { CHUNK_BYTES, recycleChunks } from "../byte-chunks.js";
import { CsvBytes } from "./csv-bytes.js";

/** Writes one column's value into the record being encoded; `row` names it in a refusal. */
type CellWriter = (out: CsvBytes, value: unknown, row: number, first: boolean) => void;

/**
 * Encodes rows as the records of one CSV file whose header is `header` (written first): the one
 * CSV writer, of CSVDestination's files and of the object stores' CSV format. A row holding a
 * column the header lacks is refused (its value would be lost), unless `others` is "ignore"; so is
 * any row when the header is empty (it would be a record of no fields, which reads back as none).
 */
export class CsvEncoder {
  readonly bytes = new CsvBytes();
  private readonly known: ReadonlySet<string> | null;
  private readonly reads: Array<(row: Readonly<Row>) => unknown>;
  private readonly cells: CellWriter[];

  /**
   * `schema`'s fields give their columns' text: every value of a json field is JSON text, a Date
   * in a date field is "YYYY-MM-DD". `others`: what a row's column outside the header gets.
   */
  constructor(
    private readonly header: readonly string[],
    private readonly assetKey: string,
    schema: readonly FieldSpec[] | null,
    others: "refuse" | "ignore" = "refuse",
  ) {
    this.known = others === "refuse" ? new Set(header) : null;
    this.reads = header.map(fieldReader);
    const specs = new Map(schema?.map((spec) => [spec.name, spec]));
    this.cells = header.map((name) => cellWriter(name, specs.get(name)));
    if (header.length > 0) this.bytes.record(header);
  }

  /** The bytes of a whole file holding `rows`, in one buffer. */
  static encodeAll(
    rows: readonly Readonly<Row>[],
    header: readonly string[],
    assetKey: string,
    schema: readonly FieldSpec[] | null,
    others: "refuse" | "ignore" = "refuse",
  ): Buffer {
    const encoder = new CsvEncoder(header, assetKey, schema, others);
    encoder.encode(rows);
    const chunks = encoder.bytes.finish();
    const bytes = Buffer.concat(chunks);
    recycleChunks(chunks);
    return bytes;
  }

  /**
   * Encodes rows from `from` on until `budget` bytes are held, and gives the index of the first
   * row left; `offset` is the number of the first row in refusals (rows of earlier batches).
   */
  encode(rows: readonly Readonly<Row>[], from = 0, offset = 0, budget = Infinity): number {
    const { header, known, reads, cells, bytes } = this;
    const width = header.length;
    let i = from;
    for (; i < rows.length && bytes.size < budget; i++) {
      const row = rows[i]!;
      if (known) for (const key in row) if (!known.has(key)) this.refuseColumn(key, offset + i);
      if (width === 0) this.refuseNoColumns(offset + i);
      for (let j = 0; j < width; j++) cells[j]!(bytes, reads[j]!(row), offset + i, j === 0);
      bytes.endRecord();
    }
    return i;
  }

  private refuseColumn(key: string, row: number): never {
    throw new SchemaError(
      `asset "${this.assetKey}": row ${row} has the column "${key}", which is not in the CSV header (${this.header.join(", ")}) taken from the first row`,
    );
  }

  /**
   * A row without columns would be a record of no fields, which no CSV reader gives back: the
   * file would read as fewer rows than were written (and counted).
   */
  private refuseNoColumns(row: number): never {
    throw new SchemaError(
      `asset "${this.assetKey}": row ${row} has no columns, and a CSV file cannot hold a row without any; give every row its columns`,
    );
  }

  /** Every chunk left once rows from `from` on are encoded: those held, then the rest as it is encoded. */
  *rest(rows: readonly Readonly<Row>[], from = 0, offset = 0): Generator<Uint8Array> {
    yield* this.bytes.takeFullChunks();
    yield* this.chunks(rows, from, offset);
    yield* this.bytes.finish();
  }

  /** Encodes rows from `from` on, giving each chunk as soon as it is full (the last partial one stays). */
  *chunks(rows: readonly Readonly<Row>[], from = 0, offset = 0): Generator<Uint8Array> {
    for (let i = from; i < rows.length;) {
      i = this.encode(rows, i, offset, this.bytes.size + CHUNK_BYTES);
      yield* this.bytes.takeFullChunks();
    }
  }
}

/**
 * The writer of one column's values: each type's text form (the one reconcileRows reads back),
 * in the one pass that writes it. A string is refused when UTF-8 cannot hold it; an object (a
 * json value) is JSON text, refused where that text would change it; in a json field a string
 * or a number is JSON text too, so "123" reads back as text and NaN is refused.
 */
function cellWriter(column: string, spec: FieldSpec | undefined): CellWriter {
  const json = spec?.type === "json";
  const date = spec?.type === "date";
  return (out, value, row, first) => {
    switch (typeof value) {
      case "string":
        return out.field(json ? jsonText(value, "CSV", column, row) : utf8Text(value, "CSV", column, row), first);
      case "number":
        return json ? out.field(jsonText(value, "CSV", column, row), first) : out.number(value, first);
      case "bigint":
        return out.field(value.toString(), first);
      case "boolean":
        return out.field(value ? "true" : "false", first);
      case "undefined":
        return out.field(null, first);
      case "object":
        if (value === null) return out.field(null, first);
        if (value instanceof Date) return out.field(date ? toText(value, spec) : toText(value), first);
        return out.field(jsonText(value, "CSV", column, row), first);
      default:
        // A function or a symbol: toText refuses it, naming the field.
        return out.field(toText(value, { name: column, type: "string", nullable: true }), first);
    }
  };
}
