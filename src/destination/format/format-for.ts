import { ConfigError } from "../../errors.js";
import { CSVFormat } from "./csv.js";
import type { FileFormat, FormatName } from "./file-format.js";
import { JSONLFormat } from "./jsonl.js";
import { ParquetFormat } from "./parquet.js";

const FORMATS: Record<FormatName, () => FileFormat> = {
  parquet: () => new ParquetFormat(),
  jsonl: () => new JSONLFormat(),
  csv: () => new CSVFormat(),
};

/** The format a name stands for; ConfigError naming the choices for any other value. */
export function formatFor(name: unknown, owner: string): FileFormat {
  const make = typeof name === "string" && Object.hasOwn(FORMATS, name) ? FORMATS[name as FormatName] : undefined;
  if (!make) throw new ConfigError(`${owner}: format ${JSON.stringify(name)} is not one of "parquet", "jsonl", "csv"`);
  return make();
}
