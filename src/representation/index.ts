// Importing the built-in shapes registers them (rows, then columns), so every user of
// TableData goes through this barrel and finds both.
export { RowsTable, isPlainObject, isRows, rowsRepresentation } from "./rows-table.js";
export { ColumnsTable, columnsRepresentation, looksLikeColumns } from "./columns-table.js";
export { TableData } from "./table-data.js";
export { setOwn } from "./own-field.js";
export type { Columns, NativeKinds, Row, TableSplit } from "./table-data.js";
export { detectRepresentation, registerRepresentation, representation, representationKinds, unregisterRepresentation } from "./registry.js";
export type { Representation } from "./registry.js";
export { batchesOf, collectRows, isRowStream, type RowStream } from "./stream.js";
