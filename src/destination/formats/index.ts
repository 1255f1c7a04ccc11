// The file formats of object-store destinations: `interloper/destination/formats`.
export type { FileFormat, FormatName } from "./file-format.js";
export { ParquetFormat } from "./parquet-format.js";
export { JSONLFormat } from "./jsonl-format.js";
export { CSVFormat } from "./csv-format.js";
