import { existsSync } from "node:fs";
import { ConfigError } from "../../../errors.js";
import type { AssetRef, IOContext } from "../../io-context.js";
import { SqlDestination } from "../sql-destination.js";
import { refuseCaseTwins, sqliteDialect } from "./sqlite-dialect.js";
import { SqliteDriver } from "./sqlite-driver.js";
import { declareOptions } from "../../options.js";

/** Options of SQLiteDestination. */
export interface SQLiteDestinationOptions {
  /** The database file; ":memory:" for a private in-memory database. */
  readonly path: string;
}

/**
 * Tables in an embedded SQLite database (better-sqlite3, an optional peer dependency): SQL with
 * no server. The dataset prefixes the table name ("shop.orders"), since SQLite has no schemas.
 */
export class SQLiteDestination extends SqlDestination {
  static override destinationName = "SQLite";
  static override readonly options = declareOptions<SQLiteDestinationOptions>({ path: "required" });
  protected readonly dialect = sqliteDialect;
  protected readonly driver: SqliteDriver;
  /** The database file, or ":memory:". */
  readonly path: string;
  #file: string | undefined;

  constructor(options: SQLiteDestinationOptions) {
    super(options);
    this.path = options.path;
    if (typeof this.path !== "string" || this.path.length === 0) {
      throw new ConfigError(`SQLiteDestination: expected { path } (a file, or ":memory:"), got ${JSON.stringify(options)}`);
    }
    this.driver = new SqliteDriver(this.path, () => this.file);
  }

  /**
   * The file opened: `path` made absolute (relative to the config's folder in a loaded config);
   * ":memory:" and "" (a private temporary database) as they are.
   */
  get file(): string {
    if (this.path === ":memory:" || this.path === "") return this.path;
    this.#file ??= this.resolvePath(this.path);
    return this.#file;
  }

  /**
   * No file yet holds no table whose column could change type: not opened (an open in a folder
   * another destination's write is about to make would fail, and be kept).
   */
  override async checkWrite(context: IOContext): Promise<void> {
    if (this.path !== ":memory:" && this.path !== "" && !existsSync(this.file)) return;
    await super.checkWrite(context);
  }

  /**
   * Refuses assets whose tables differ only in case: SQLite would store them as one table
   * (the second written would replace the first's rows, or be refused at its write).
   */
  override checkAssets(assets: readonly AssetRef[]): void {
    refuseCaseTwins(this.path, assets);
  }
}
