import type { FileFormat, FormatName } from "../format/file-format.js";
import { declareOptions } from "../options.js";
import { ObjectStoreDestination } from "./object-store-destination.js";
import { IOContext, type AssetRef } from "../io-context.js";
import { objectNameRefusal, refuseUnstorableValues } from "../value-limits.js";

/** Options of a destination in a cloud bucket, its client's connection of type `C`. */
export interface BucketOptions<C> {
  readonly bucket: string;
  readonly prefix?: string;
  readonly format?: FormatName | FileFormat;
  readonly connection?: C;
}

/**
 * An object store in a cloud bucket, reached through a client created on first use (an
 * optional peer dependency). It keeps the `connection` option private: credentials never appear
 * in errors, `toJSON()` or `inspect`. A backend says how to check, redact and connect.
 */
export abstract class BucketDestination<C extends object, H> extends ObjectStoreDestination {
  static override readonly options = declareOptions<BucketOptions<object>>({
    bucket: "required",
    prefix: "optional",
    format: "optional",
    connection: "private",
  });
  /** The bucket's name. */
  readonly bucket: string;
  readonly #connection: C;
  #handle: Promise<H> | undefined;

  /** `checkConnection` refuses, with ConfigError, a connection the client would only fail on later. */
  protected constructor(options: BucketOptions<C>, checkConnection: (connection: C | undefined) => void) {
    super(options);
    this.bucket = options.bucket;
    this.checkBucket(this.bucket);
    checkConnection(options?.connection);
    this.#connection = { ...(options.connection ?? {}) } as C;
  }

  /** The connection with its credentials replaced by "[redacted]". */
  protected abstract redacted(connection: C): C;
  /** Creates the client. */
  protected abstract connect(connection: C): Promise<H>;
  /** Releases what a client holds open (sockets); nothing by default. */
  protected release(_handle: H): void {}

  /** The connection options, credentials redacted. */
  get connection(): C {
    return this.redacted(this.#connection);
  }

  /** The connection as given, secrets included: for the client and for the redaction of errors only. */
  protected get settings(): C {
    return this.#connection;
  }

  /** The client, created on first use; a failed creation is tried again by the next call. */
  protected client(): Promise<H> {
    this.#handle ??= this.connect(this.#connection);
    return this.#handle.catch((error: unknown) => {
      this.#handle = undefined;
      throw error;
    });
  }

  /** Refuses, when the config is loaded, a declared list value whose objects' names would be too long for the bucket. */
  override checkAssets(assets: readonly AssetRef[]): void {
    refuseUnstorableValues(
      assets,
      this.displayName,
      objectNameRefusal((asset) => this.tablePrefix(new IOContext({ asset }))),
    );
  }

  /** Releases the client; a later call creates a new one. */
  override async close(): Promise<void> {
    const pending = this.#handle;
    this.#handle = undefined;
    const handle = await pending?.catch(() => null);
    if (handle) this.release(handle);
  }

  /** What `JSON.stringify` shows: the configuration, credentials redacted. */
  toJSON(): Record<string, unknown> {
    const format = typeof this.format === "object" ? this.format.extension : this.format;
    return { destination: this.constructor.name, bucket: this.bucket, prefix: this.prefix, format, connection: this.connection };
  }

  [Symbol.for("nodejs.util.inspect.custom")](
    _depth: number,
    options: object,
    inspect: (value: unknown, options: object) => string,
  ): string {
    return `${this.constructor.name} ${inspect(this.toJSON(), options)}`;
  }
}
