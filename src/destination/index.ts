export { Destination, HISTORY_KEPT, type DestinationRelations, type DropTarget, type HistoryQuery } from "./destination.js";
export type { CheckResult, Materialization, ProvenanceDraft, UpstreamRead } from "./provenance/materialization.js";
export { destination, type DestinationOptions } from "./decorator.js";
export type { PartitionCounts, UnreadablePartition } from "./unreadable.js";
export { declareOptions, type DeclaredOptions, type OptionKind, type OptionKinds } from "./options.js";
export { IOContext, type AssetRef, type IOLogger, type IOLogLevel, type RunMetadata } from "./io-context.js";
export { CSVDestination, type CSVDestinationOptions } from "./file/csv-destination.js";
export { FileDestination, type FileDestinationOptions } from "./file/file-destination.js";
export { MemoryDestination } from "./memory/memory-destination.js";
export type { PartitionFilter } from "../partitioning/index.js";
export {
  GCSDestination,
  LocalObjectStoreDestination,
  ObjectStoreDestination,
  ObjectStoreError,
  S3Destination,
  type GCSConnectionOptions,
  type GCSDestinationOptions,
  type GCSServiceAccountKey,
  type LocalObjectStoreOptions,
  type S3ConnectionOptions,
  type S3DestinationOptions,
  type StoredObject,
} from "./store/index.js";
export {
  DatabaseDestination,
  DatabaseError,
  MySQLDestination,
  PostgresDestination,
  SQLiteDestination,
  type ConnectionOptions,
  type DatabaseHooks,
  type PartitionRecords,
  type MySQLDestinationOptions,
  type PostgresDestinationOptions,
  type SQLiteDestinationOptions,
} from "./database/index.js";
