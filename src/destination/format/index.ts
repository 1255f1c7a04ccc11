// The file formats, one file each: CSV (csv.ts, with its reader and writer), JSONL (jsonl.ts),
// Parquet (parquet.ts), and v8 (v8.ts: FileDestination's, not public). Published as
// `interloper/destination/formats`, through ../formats/index.ts.
export type { FileFormat, FormatName } from "./file-format.js";
export { ParquetFormat } from "./parquet.js";
export { JSONLFormat } from "./jsonl.js";
export { CSVFormat } from "./csv.js";
