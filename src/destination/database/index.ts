export { DatabaseDestination } from "./database-destination.js";
export type { DatabaseHooks, PartitionRecords } from "./hooks.js";
export { DatabaseError } from "./secrets.js";
export { SQLiteDestination, type SQLiteDestinationOptions } from "./sqlite/sqlite-destination.js";
export { PostgresDestination, type PostgresDestinationOptions } from "./postgres/postgres-destination.js";
export { MySQLDestination, type MySQLDestinationOptions } from "./mysql/mysql-destination.js";
export type { ConnectionOptions } from "./connection.js";
