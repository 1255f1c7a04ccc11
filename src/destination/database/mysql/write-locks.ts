import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type * as MySQL from "mysql2/promise";
import { DatabaseError } from "../secrets.js";
import { isLockConflict } from "./mysql-dialect.js";
import { getLocksQuery, releaseLocksQuery } from "./mysql-statements.js";

// The locking of MySQL write transactions: partition locks, and runs again after a deadlock.

// Writes run at READ COMMITTED, which takes no gap locks: two writers of a partition that holds
// no row yet would both find nothing to delete, both insert, and the partition would hold both
// writers' rows. A user-level lock per partition written (GET_LOCK, held by the session across
// the transaction) makes writers of one partition take turns, and leaves writers of different
// partitions free. Every writer takes its locks before its transaction starts and in one sorted
// order, so no writer waits for a lock while holding rows another needs.

/** Names per GET_LOCK or RELEASE_LOCK statement, each a bound value. */
const PER_STATEMENT = 100;

/** A partition's lock: its name (at most 64 characters, as the server requires) and what it guards. */
export interface PartitionLock {
  readonly name: string;
  readonly partition: string | null;
}

/**
 * The locks of a write of `partitions` of a table (of the whole table when null: an unpartitioned
 * asset's writes take turns on it), sorted by name. The name hashes database, table and key
 * exactly, so `eu` and `EU` are two locks.
 */
export function partitionLocks(database: string, table: string, partitions: readonly string[] | null): PartitionLock[] {
  const keys = partitions === null ? [null] : [...new Set(partitions)];
  const locks = keys.map((partition) => ({
    name: `interloper:${createHash("sha1")
      .update(JSON.stringify([database, table, partition]))
      .digest("hex")}`,
    partition,
  }));
  return locks.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += PER_STATEMENT) out.push(items.slice(i, i + PER_STATEMENT));
  return out;
}

/**
 * Takes `locks` in order on `connection`, each waited for up to the server's lock_wait_timeout
 * (the wait it gives DDL for a table lock), appending each one taken to `held`, so the caller
 * releases what was taken whatever fails. One not had in time is a DatabaseError naming it.
 */
export async function takeLocks(
  connection: MySQL.PoolConnection,
  locks: readonly PartitionLock[],
  held: PartitionLock[],
  table: string,
): Promise<void> {
  for (const batch of chunks(locks)) {
    const [rows] = await connection.execute(
      getLocksQuery(batch.length),
      batch.map((lock) => lock.name),
    );
    const row = (rows as Record<string, unknown>[])[0] ?? {};
    const taken = batch.filter((_, i) => Number(row[`l${i}`]) === 1);
    held.push(...taken);
    const missed = batch.find((lock) => !taken.includes(lock));
    if (missed) {
      const what = missed.partition === null ? `table ${table}` : `partition ${JSON.stringify(missed.partition)} of table ${table}`;
      throw new DatabaseError(`MySQL: another writer of ${what} held it past the server's lock_wait_timeout; expected it to finish first`);
    }
  }
}

/** Releases `locks` on `connection`; a failure leaves them held until the connection closes. */
export async function releaseLocks(connection: MySQL.PoolConnection, locks: readonly PartitionLock[]): Promise<void> {
  for (const batch of chunks(locks)) {
    await connection.execute(
      releaseLocksQuery(batch.length),
      batch.map((lock) => lock.name),
    );
  }
}

/**
 * Runs `body` holding `locks` on `connection` (taken before it, released after it, whatever it
 * does). `broken` is called when a release fails: the connection may still hold a lock, and
 * must be closed (which frees them) rather than go back to the pool.
 */
export async function holdingLocks<T>(
  connection: MySQL.PoolConnection,
  locks: readonly PartitionLock[],
  table: string,
  body: () => Promise<T>,
  broken: () => void,
): Promise<T> {
  const held: PartitionLock[] = [];
  try {
    await takeLocks(connection, locks, held, table);
    return await body();
  } finally {
    if (held.length > 0) await releaseLocks(connection, held).catch(broken);
  }
}

/** Times a write transaction runs at most while the server picks it as a deadlock's victim. */
const WRITE_ATTEMPTS = 5;

/**
 * Runs `attempt`, a whole transaction that rolls itself back when it fails, again after a
 * deadlock or a lock wait timeout, up to WRITE_ATTEMPTS times, after a short random pause
 * (20, 40, 80, 160 ms, each between half and one and a half times that) so that two writers
 * that collided do not collide again in step. Nothing of a rolled-back attempt remains.
 */
export async function retryOnLockConflict<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (n >= WRITE_ATTEMPTS || !isLockConflict(error)) throw error;
      await sleep(Math.round(10 * 2 ** n * (0.5 + Math.random())));
    }
  }
}
