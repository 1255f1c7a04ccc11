// Provenance in an object store (issue 34): where ObjectStoreDestination keeps the record of each
// partition write, how it reads the current ones back from one listing, and the history.
//
// The record goes in the data object's own custom metadata ("materialization", JSON), so the put
// of the data is the one atomic step that makes data and record current together, whatever the
// number of writers, and a listing of the partitions (the one counting makes) gives every record
// without a GET. A record too large for the backend's metadata (S3 keeps 2 KB of it: a month
// reading 31 days passes that) goes in a sidecar object put BEFORE the data, the data object
// naming it ("materialization_id"): a sidecar no data object names is a put that failed, never a
// record. Each landed write then puts a copy of its record in the partition's history; a process
// killed between the two puts leaves that write out of the history only (its record is current).
//
// Layout: beside the table's folder, in a hidden folder of its parent (`{prefix}/{dataset}/`),
// so that the table's listing, which counting and `materializations` make, never grows with the
// history (under the table's own prefix, 20 entries a partition would make it 20 times longer on
// GCS and S3), and hive readers of the table never see it:
//   .materializations/{table}/records/[{column}={key}/]{id}.json           sidecars of large records
//   .materializations/{table}/history/[{column}={key}/]{stamp}-{id}.json   every landed record
// (a multi partition's folder is its nested folders: `history/date=2026-01-05/region=eu/...`).
import type { HistoryQuery } from "../destination.js";
import type { HiveLayout } from "../hive.js";
import type { IOContext } from "../io-context.js";
import { ForeignRecords } from "../provenance/foreign-records.js";
import { mergeNewestFirst } from "../provenance/history-order.js";
import { type Materialization, newestFirst, parseMaterialization } from "../provenance/materialization.js";
import { asciiJson, PROVENANCE_FOLDER, type StoredObject } from "./object-metadata.js";
import type { MaybePromise } from "../../maybe-promise.js";

const RECORD_KEY = "materialization";
const ID_KEY = "materialization_id";
/** History entries kept per partition after a prune: twice what the contract asks, so that a prune is rare. */
export const HISTORY_RETAINED = 20;
// Records read (sidecars, history entries) a few at a time, as counting downloads objects.
const PARALLEL_READS = 8;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HISTORY_ENTRY = /^(\d{17})-([0-9a-f-]{36})\.json$/;

/** What provenance needs of the store: the backend's hooks, checked, and its metadata limit. */
export interface ProvenanceStore {
  listObjects(prefix: string): Iterable<StoredObject> | AsyncIterable<StoredObject>;
  listNames(prefix: string): AsyncIterable<string>;
  objectBytes(name: string): Promise<Uint8Array | null>;
  putBookkeeping(name: string, text: string): Promise<void>;
  deleteObjects?: ((names: readonly string[]) => MaybePromise<void>) | undefined;
  objectUri(name: string): string;
  metadataFits(metadata: Record<string, string>): boolean;
  /** Whether landed writes put history entries. */
  readonly keepsHistory: boolean;
  /** Names the destination in warnings. */
  readonly owner: string;
}

/** What a write does around the put of its data object (see `ObjectProvenance.prepare`). */
export interface PreparedRecord {
  /** The custom metadata naming the record, to put with the data. */
  readonly metadata: Record<string, string>;
  /** After the data landed: the history entry, and now and then a prune. */
  landed(): Promise<void>;
  /**
   * After the data's put failed: removes the sidecar, if any, unless the data landed after all (a
   * lost response) and names it. Best effort: a sidecar nothing names is no record anyway.
   */
  failed(): Promise<void>;
}

/** The provenance of one asset in an object store: `tablePrefix` ends with "/", `layout` its partitions' folders (null: unpartitioned). */
export class ObjectProvenance {
  readonly #root: string;

  constructor(
    private readonly store: ProvenanceStore,
    private readonly context: IOContext,
    private readonly tablePrefix: string,
    private readonly layout: HiveLayout | null,
    private readonly fileName: string,
  ) {
    const table = tablePrefix.slice(0, -1);
    const cut = table.lastIndexOf("/");
    this.#root = `${table.slice(0, cut + 1)}${PROVENANCE_FOLDER}/${table.slice(cut + 1)}/`;
  }

  /**
   * The metadata that makes `record` current with the data put beside `base` (its row count):
   * the record itself when the backend keeps that much metadata, else its id, its sidecar put first.
   */
  async prepare(dataName: string, segment: string | null, record: Materialization, base: Record<string, string>): Promise<PreparedRecord> {
    const text = asciiJson(record);
    const inline = { ...base, [RECORD_KEY]: text };
    const sidecar = this.store.metadataFits(inline) ? null : this.recordName(segment, record.id);
    if (sidecar) await this.store.putBookkeeping(sidecar, text);
    return {
      metadata: sidecar ? { ...base, [ID_KEY]: record.id } : inline,
      landed: async () => {
        if (!this.store.keepsHistory) return;
        await this.store.putBookkeeping(`${this.historyPrefix(segment)}${stampOf(record)}-${record.id}.json`, text);
        // One write in four prunes (by its random id): a listing a write would be a round trip more.
        if (this.store.deleteObjects && "0123".includes(record.id[0]!)) await this.prune(segment, record.id);
      },
      failed: async () => {
        if (sidecar && this.store.deleteObjects) await this.takeBack(dataName, sidecar, record.id).catch(() => undefined);
      },
    };
  }

  /** Deletes the sidecar of a failed put, unless the data object names it (its put landed, unanswered). */
  private async takeBack(dataName: string, sidecar: string, id: string): Promise<void> {
    for await (const object of this.store.listObjects(dataName)) if (object.name === dataName && object.metadata[ID_KEY] === id) return;
    await this.store.deleteObjects!([sidecar]);
  }

  /** The current record of each stored partition (of the window, if any), from one listing of the data objects. */
  async current(): Promise<Record<string, Materialization>> {
    const partitioned = this.layout !== null;
    const wanted = this.context.window ? new Set(this.context.window.keys) : null;
    const found: Array<{ key: string; object: StoredObject }> = [];
    const listed = this.layout ? `${this.tablePrefix}${this.layout.columns[0]}=` : `${this.tablePrefix}${this.fileName}`;
    for await (const object of this.store.listObjects(listed)) {
      const key = partitioned ? this.partitionKeyOf(object.name) : object.name === listed ? "" : null;
      if (key !== null && (!wanted || wanted.has(key))) found.push({ key, object });
    }
    return this.recordsOfListed(found);
  }

  /**
   * The current records of listed data objects, by partition key: from their metadata, a sidecar
   * read where the record did not fit (a count's listing gives them without another HEAD).
   */
  async recordsOfListed(
    found: ReadonlyArray<{ readonly key: string; readonly object: StoredObject }>,
  ): Promise<Record<string, Materialization>> {
    const damaged: string[] = [];
    const partitioned = this.layout !== null;
    const foreign = new ForeignRecords(this.context.asset.key);
    const records: Record<string, Materialization> = Object.create(null);
    for (let start = 0; start < found.length; start += PARALLEL_READS) {
      const batch = found.slice(start, start + PARALLEL_READS);
      const read = await Promise.all(batch.map(({ key, object }) => this.recordOf(key, object, damaged)));
      batch.forEach(({ key }, i) => {
        if (read[i] && foreign.owns(read[i]!, partitioned ? key : null)) records[key] = read[i]!;
      });
    }
    this.warn(damaged, foreign);
    return records;
  }

  /** Past records, newest first: of one partition, or of every one when `query.partition` is undefined. */
  async history(query: HistoryQuery): Promise<Materialization[]> {
    const layout = this.layout;
    const segment = query.partition && layout ? layout.folder(query.partition) : null;
    const prefix = this.historyPrefix(segment);
    // Each entry with the partition folder it is in ("" for the partition asked, or unpartitioned).
    const entries: Array<{ name: string; order: string; folder: string }> = [];
    for await (const name of this.store.listNames(prefix)) {
      if (!name.startsWith(prefix)) continue;
      const parts = name.slice(prefix.length).split("/");
      const file = parts.pop()!;
      // An entry of the partition asked, or one in any partition's folders (every level of them) when none is.
      const depthHolds = parts.length === 0 ? !layout || segment !== null : segment === null && layout?.keyOf(parts) != null;
      if (depthHolds && HISTORY_ENTRY.test(file)) entries.push({ name, order: file, folder: parts.join("/") });
    }
    entries.sort((a, b) => (a.order < b.order ? 1 : a.order > b.order ? -1 : 0));
    const byFolder = new Map<string, Materialization[]>();
    const damaged: string[] = [];
    const foreign = new ForeignRecords(this.context.asset.key);
    // The partition key records of a folder name ("": the partition asked, or the unpartitioned asset).
    const keyOf = (folder: string) => (!layout ? null : folder === "" ? query.partition!.key : layout.keyOf(folder.split("/")));
    const owned = (record: Materialization | null, folder: string) => (record && foreign.owns(record, keyOf(folder)) ? record : null);
    // Damaged entries are skipped, so the next ones are read until `limit` records are found.
    for (let start = 0, found = 0; start < entries.length && found < query.limit; start += PARALLEL_READS) {
      const batch = entries.slice(start, start + PARALLEL_READS);
      const read = await Promise.all(batch.map(({ name }) => this.readRecord(name, null, damaged)));
      read.forEach((record, i) => {
        const folder = batch[i]!.folder;
        if (!record || !foreign.owns(record, keyOf(folder))) return;
        const list = byFolder.get(folder);
        if (list) list.push(record);
        else byFolder.set(folder, [record]);
        found++;
      });
    }
    // A partition's history starts with its current record: the write whose data is there landed
    // last, though a write ending later (or in the same millisecond) may have been put first.
    // Several partitions' histories are merged by end time, each keeping that order (history-order.ts).
    const lists: Materialization[][] = [];
    const folders = segment !== null || !layout ? [[segment ?? "", byFolder.get("") ?? []] as const] : [...byFolder];
    for (let start = 0; start < folders.length; start += PARALLEL_READS) {
      const batch = folders.slice(start, start + PARALLEL_READS);
      const currents = await Promise.all(batch.map(([folder]) => this.currentOf(folder || null, damaged)));
      batch.forEach(([folder, records], i) => lists.push(currentFirst(records, owned(currents[i]!, folder))));
    }
    this.warn(damaged, foreign);
    return mergeNewestFirst(lists).slice(0, Math.max(0, query.limit));
  }

  /** The current record of one partition (or of an unpartitioned asset): its data object's, or null when none is stored. */
  private async currentOf(segment: string | null, damaged: string[]): Promise<Materialization | null> {
    const dataName = `${this.tablePrefix}${segment ? `${segment}/` : ""}${this.fileName}`;
    for await (const object of this.store.listObjects(dataName)) {
      if (object.name !== dataName) continue;
      const key = segment && this.layout ? this.layout.keyOf(segment.split("/")) : "";
      return key === null ? null : this.recordOf(key, object, damaged);
    }
    return null;
  }

  /** The names of every provenance object of the asset, for dropping it. */
  async names(): Promise<string[]> {
    const names: string[] = [];
    for await (const name of this.store.listNames(this.#root)) if (name.startsWith(this.#root)) names.push(name);
    return names;
  }

  /** Deletes a partition's history entries beyond the newest HISTORY_RETAINED (the `current` write's counted first), with their sidecars. */
  private async prune(segment: string | null, current: string): Promise<void> {
    const prefix = this.historyPrefix(segment);
    const entries: string[] = [];
    for await (const name of this.store.listNames(prefix)) {
      const file = name.slice(prefix.length);
      if (name.startsWith(prefix) && HISTORY_ENTRY.test(file)) entries.push(file);
    }
    if (entries.length <= HISTORY_RETAINED) return;
    // Entries sort by their writers' clocks: the pruning write's own (current) is kept whatever its clock said.
    const others = entries.filter((file) => HISTORY_ENTRY.exec(file)![2] !== current);
    const old = others.sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)).slice(HISTORY_RETAINED - 1);
    const names = old.flatMap((file) => [`${prefix}${file}`, this.recordName(segment, HISTORY_ENTRY.exec(file)![2]!)]);
    for (let start = 0; start < names.length; start += 1000) await this.store.deleteObjects!(names.slice(start, start + 1000));
  }

  /** The record a data object names: in its metadata, or in the sidecar its id names; null when it names none. */
  private async recordOf(key: string, object: StoredObject, damaged: string[]): Promise<Materialization | null> {
    const inline = object.metadata[RECORD_KEY];
    if (inline !== undefined) {
      const record = parseMaterialization(inline);
      if (!record) damaged.push(this.store.objectUri(object.name));
      return record;
    }
    const id = object.metadata[ID_KEY];
    if (id === undefined) return null;
    if (!UUID.test(id)) {
      damaged.push(this.store.objectUri(object.name));
      return null;
    }
    return this.readRecord(this.recordName(key === "" || !this.layout ? null : this.layout.segmentsOfKey(key).join("/"), id), id, damaged);
  }

  /** A stored record's object, read and checked (its id too, when known); a missing or invalid one is damaged. */
  private async readRecord(name: string, id: string | null, damaged: string[]): Promise<Materialization | null> {
    // A backend's failure fails the call; only a missing or invalid record is damaged.
    const bytes = await this.store.objectBytes(name);
    const record = bytes ? parseMaterialization(new TextDecoder().decode(bytes)) : null;
    if (record && (id === null || record.id === id)) return record;
    damaged.push(this.store.objectUri(name));
    return null;
  }

  /** One warning for the whole call, naming the objects (the first few); one more for records of another asset or partition. */
  private warn(damaged: readonly string[], foreign: ForeignRecords): void {
    foreign.warn(this.context.logger, this.store.owner, this.store.objectUri(this.tablePrefix));
    if (damaged.length === 0) return;
    const shown = damaged.slice(0, 3).join(", ");
    const more = damaged.length > 3 ? ` and ${damaged.length - 3} more` : "";
    this.context.logger.warn(
      `${this.store.owner}: ${damaged.length} provenance record(s) of asset "${this.context.asset.key}" cannot be read and are left out (provenance unknown): ${shown}${more}`,
    );
  }

  /** The key of `{column}={key}/{fileName}` (a multi partition's nested folders) under the table prefix; null for any other object. */
  private partitionKeyOf(name: string): string | null {
    if (!name.startsWith(this.tablePrefix) || !this.layout) return null;
    const parts = name.slice(this.tablePrefix.length).split("/");
    if (parts[parts.length - 1] !== this.fileName) return null;
    return this.layout.keyOf(parts.slice(0, -1));
  }

  private historyPrefix(segment: string | null): string {
    return `${this.#root}history/${segment ? `${segment}/` : ""}`;
  }

  private recordName(segment: string | null, id: string): string {
    return `${this.#root}records/${segment ? `${segment}/` : ""}${id}.json`;
  }
}

/** The record's end time as 17 digits (`20260101083000123`): history entries sort by name as records by time. */
function stampOf(record: Materialization): string {
  return record.endedAt.replace(/\D/g, "").padEnd(17, "0").slice(0, 17);
}

/** One partition's records, newest first, its current record (null: none stored) first whatever its end time. */
function currentFirst(records: readonly Materialization[], current: Materialization | null): Materialization[] {
  const past = [...records].sort(newestFirst).filter((record) => record.id !== current?.id);
  return current ? [current, ...past] : past;
}
