/** Options every interloper error accepts: the wrapped error, when there is one. */
export interface InterloperErrorOptions {
  readonly cause?: unknown;
}

/** How a message names an option of the API (`window`); the command line names its flags. */
export type OptionNamer = (option: string) => string;

/** A message that names options: written once, said with the API's names or a front end's. */
export type OptionPhrase = (name: OptionNamer) => string;

/** The API's own name for an option, as its messages say it: `window`. */
export const apiOptionName: OptionNamer = (option) => `\`${option}\``;

/** Root of every error interloper raises; `code` is stable across versions, messages are not. */
export class InterloperError extends Error {
  readonly code: string = "INTERLOPER_ERROR";
  private readonly phrase: OptionPhrase | null;

  /** `message` may be a phrase naming options, so that the command line can say them as flags. */
  constructor(message: string | OptionPhrase, options?: InterloperErrorOptions) {
    super(
      typeof message === "function" ? message(apiOptionName) : message,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = new.target.name;
    this.phrase = typeof message === "function" ? message : null;
  }

  /** The message with each option named by `name` (the message itself when it names none). */
  messageNaming(name: OptionNamer): string {
    return this.phrase ? this.phrase(name) : this.message;
  }
}

/** A definition, config file or option is invalid. */
export class ConfigError extends InterloperError {
  override readonly code: string = "CONFIG_ERROR";
}

/** A partition key, window or partitioning does not fit what was expected. */
export class PartitionError extends InterloperError {
  override readonly code: string = "PARTITION_ERROR";
}

/** A destination holds no data where some was asked for. */
export class DataNotFoundError extends InterloperError {
  override readonly code: string = "DATA_NOT_FOUND";
}

/**
 * Stored data cannot be read back (a file cut short or corrupted): names the file, the asset
 * and the partition (null: an unpartitioned asset).
 */
export class UnreadableDataError extends InterloperError {
  override readonly code: string = "UNREADABLE_DATA";
  readonly file: string;
  readonly asset: string;
  readonly partition: string | null;

  constructor(details: { file: string; asset: string; partition: string | null; reason: string }, options?: InterloperErrorOptions) {
    const what = details.partition === null ? `asset "${details.asset}"` : `partition ${details.partition} of asset "${details.asset}"`;
    super(`cannot read ${what} from ${details.file}: ${details.reason}`, options);
    this.file = details.file;
    this.asset = details.asset;
    this.partition = details.partition;
  }
}

/** Data does not match its schema, or no schema could be resolved. */
export class SchemaError extends InterloperError {
  override readonly code: string = "SCHEMA_ERROR";
}

/** The graph of assets is invalid. */
export class DAGError extends InterloperError {
  override readonly code: string = "DAG_ERROR";
}

/** Assets depend on each other in a cycle; `cycle` lists the keys in order. */
export class CircularDependencyError extends DAGError {
  override readonly code: string = "CIRCULAR_DEPENDENCY";
  readonly cycle: readonly string[];

  constructor(cycle: readonly string[], options?: InterloperErrorOptions) {
    super(`circular dependency: ${cycle.join(" -> ")}`, options);
    this.cycle = cycle;
  }
}

/** An asset requires a key that no asset in the graph has. */
export class DependencyNotFoundError extends DAGError {
  override readonly code: string = "DEPENDENCY_NOT_FOUND";
}

/** An asset failed while producing or storing its data. */
export class AssetError extends InterloperError {
  override readonly code: string = "ASSET_ERROR";
}

/**
 * Writing an asset's data failed in at least one of its destinations. `written` names the
 * destinations that hold the new data all the same, `failedDestinations` those whose write failed.
 */
export class DestinationWriteError extends AssetError {
  override readonly code: string = "DESTINATION_WRITE_ERROR";
  readonly written: readonly string[];
  readonly failedDestinations: readonly string[];

  constructor(
    message: string,
    options: InterloperErrorOptions & { readonly written: readonly string[]; readonly failedDestinations: readonly string[] },
  ) {
    super(message, options);
    this.written = Object.freeze([...options.written]);
    this.failedDestinations = Object.freeze([...options.failedDestinations]);
  }
}

/** One failed check of a CheckError: the partition (null: unpartitioned), the check and what it found. */
export interface FailedCheck {
  readonly partition: string | null;
  readonly check: string;
  readonly failures: number;
  readonly message: string;
  readonly examples: readonly string[];
}

/**
 * An `error` check failed on the data about to be written: nothing of the execution was written.
 * The message's first line names the asset, the partition, each failed check, how many rows
 * failed and a few examples; `failed` holds the same as data.
 */
export class CheckError extends InterloperError {
  override readonly code: string = "CHECK_FAILED";
  readonly asset: string;
  readonly failed: readonly FailedCheck[];

  constructor(message: string, options: InterloperErrorOptions & { readonly asset: string; readonly failed: readonly FailedCheck[] }) {
    super(message, options);
    this.asset = options.asset;
    this.failed = Object.freeze(options.failed.map((f) => Object.freeze({ ...f, examples: Object.freeze([...f.examples]) })));
  }
}
