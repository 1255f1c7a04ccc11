// The file formats of object-store destinations: `interloper/destination/formats`.
export type { FileFormat, FormatName } from "./file-format.js";
export { ParquetFormat } from "./parquet.js";
export { JSONLFormat } from "./jsonl.js";
export { CSVFormat } from "./csv.js";
