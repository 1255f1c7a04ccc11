// The file store: partitions as files in hive folders, `{prefix}/{dataset}/{table}/{column}={key}/data.{ext}`.
//
// - object-store-destination.ts: ObjectStoreDestination, the base. It owns the layout, the
//   format (../format/), typed reads, row counts and dropping; a backend implements put, get,
//   list and delete of objects (and names them in messages, `objectUri`).
// - partition-counts.ts: the one count of every file store: a backend's listing of a table's
//   partitions (by default from `listObjects`' `row_count` metadata), each partition without a
//   trusted count read and counted, a few at a time, those that cannot be read reported.
// - own-files.ts: the one rule of what a drop removes (the asset's data files at its table's
//   level and in its `{column}={key}` folders), deleted through the backend.
// - local/: the local folder backend. LocalFolder puts (atomic replace, durable by default),
//   gets, lists and deletes files, and keeps the one ledger: the `row_count` of each file, in
//   `{table}/.data.{ext}.ledger`; it lists a table's partitions from one folder level and the
//   ledger (folder-partitions.ts). LocalObjectStoreDestination hands its hooks to it.
// - s3/, gcs/: the cloud backends (bucket-destination.ts holds their client and credentials);
//   a bucket keeps `row_count` as object metadata, and its puts are atomic by themselves.
//
// CSVDestination and FileDestination (../file/) are the local folder store with the CSV and v8
// formats: they count and drop as above, through the same LocalFolder, but write and read
// through local/partition-files.ts rather than ObjectStoreDestination: see
// ../file/file-table-destination.ts for why.
export { ObjectStoreDestination, type StoredObject } from "./object-store-destination.js";
export { LocalObjectStoreDestination, type LocalObjectStoreOptions } from "./local/local-object-store-destination.js";
export { S3Destination, type S3DestinationOptions } from "./s3/s3-destination.js";
export type { S3ConnectionOptions } from "./s3/s3-client.js";
export { GCSDestination, type GCSDestinationOptions } from "./gcs/gcs-destination.js";
export type { GCSConnectionOptions, GCSServiceAccountKey } from "./gcs/gcs-client.js";
export { ObjectStoreError } from "./errors.js";
