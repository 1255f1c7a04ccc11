// Object-store destinations: the base and its backends.
export { ObjectStoreDestination, type StoredObject } from "./object-store-destination.js";
export { LocalObjectStoreDestination, type LocalObjectStoreOptions } from "./local/local-object-store-destination.js";
export { S3Destination, type S3DestinationOptions } from "./s3/s3-destination.js";
export type { S3ConnectionOptions } from "./s3/s3-client.js";
export { GCSDestination, type GCSDestinationOptions } from "./gcs/gcs-destination.js";
export type { GCSConnectionOptions, GCSServiceAccountKey } from "./gcs/gcs-client.js";
export { ObjectStoreError } from "./errors.js";
