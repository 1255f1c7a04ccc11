import type { DatabaseDestination } from "./database-destination.js";

/*
 * The hook contract of a database backend is written once, as the members of
 * DatabaseDestination (their documentation is there); these names are its views for code that
 * calls the hooks of any backend.
 */

/** The four hooks a database backend writes, in its SQL dialect (see DatabaseDestination). */
export type DatabaseHooks = Pick<DatabaseDestination, "insert" | "delete" | "select" | "count">;

/**
 * The optional hooks keeping the record of which partitions were written (see
 * DatabaseDestination.recordPartitions): a backend implements all or none.
 */
export type PartitionRecords = Pick<DatabaseDestination, "recordPartitions" | "writtenPartitions" | "forgetPartitions">;
