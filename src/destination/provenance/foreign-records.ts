// Records found where a partition's record belongs that name another asset or another partition:
// a data folder copied into another table's, a ledger or object moved by hand, a record forged or
// edited. Well-formed as they are, none is the partition's record: each is left out (the
// partition reads as provenance unknown), and the call says so once.
import type { IOLogger } from "../io-context.js";
import { count } from "../../text/english.js";
import type { Materialization } from "./materialization.js";

/** The records of one call over an asset that name another asset or partition, gathered for one warning. */
export class ForeignRecords {
  readonly #found: Materialization[] = [];

  constructor(
    /** The asset's qualified key. */
    private readonly asset: string,
  ) {}

  /** Whether `record` is the asset's record of `partition` (null: the unpartitioned asset's); one that is not is kept for the warning. */
  owns(record: Materialization, partition: string | null): boolean {
    if (record.asset === this.asset && record.partition === partition) return true;
    this.#found.push(record);
    return false;
  }

  /** One warning for the call when any record named another asset or partition: `owner` names the destination, `where` the place read. */
  warn(logger: IOLogger, owner: string, where: string): void {
    const found = this.#found;
    if (found.length === 0) return;
    const first = found[0]!;
    const named = `asset "${first.asset}"${first.partition === null ? "" : ` partition ${first.partition}`}`;
    logger.warn(
      `${owner}: ${count(found.length, "materialization record")} in ${where} among those of asset "${this.asset}" ${found.length === 1 ? "names" : "name"} another asset or partition (${found.length === 1 ? "" : "the first: "}${named}); left out, read as provenance unknown`,
    );
    found.length = 0;
  }
}
