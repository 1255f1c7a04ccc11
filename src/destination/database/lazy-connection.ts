/**
 * A backend's connection (a pool, or SQLite's one database handle), opened on first use and
 * closed once: every backend needs exactly these rules, so they live here rather than in each.
 *
 * - `get()` opens on the first call; every later call shares that opening, even one still under way.
 * - An opening that failed is kept, so every use reports its error, until `close()` forgets it.
 * - `close()` forgets the connection first, so a use that starts meanwhile opens a fresh one
 *   (a destination is reusable after `close`), and then ends the old one, if it ever opened.
 */
export class LazyConnection<T> {
  #pending: Promise<T> | undefined;

  constructor(
    private readonly open: () => Promise<T>,
    private readonly end: (connection: T) => void | Promise<void>,
  ) {}

  /** The connection, opened on first use. */
  get(): Promise<T> {
    this.#pending ??= this.open();
    return this.#pending;
  }

  /** Ends the connection, once; nothing when none was opened. The next `get()` opens anew. */
  async close(): Promise<void> {
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending) await this.end(await pending);
  }
}
