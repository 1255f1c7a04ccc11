/**
 * Per database file, the end of the last write any SQLiteDestination of this process queued on
 * it. Connections of one process must take turns to write: a second one's BEGIN IMMEDIATE (or
 * DDL) would wait in SQLite's busy handler, which sleeps synchronously, so the first one's
 * transaction, paused at an await, could never commit, and after the busy timeout the second
 * would fail with "database is locked". Readers take no turn: in WAL mode they wait for nobody.
 */
const writeTurns = new Map<string, Promise<void>>();

/** Runs `fn`, a write to the (absolute) `file`, once the writes queued on it before are done. */
export function afterOtherWrites<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const next = (writeTurns.get(file) ?? Promise.resolve()).then(fn, fn);
  const done = next.then(
    () => undefined,
    () => undefined,
  );
  writeTurns.set(file, done);
  void done.then(() => {
    if (writeTurns.get(file) === done) writeTurns.delete(file);
  });
  return next;
}
