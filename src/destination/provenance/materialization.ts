// The record of one partition write (a materialization), which the destination holding the
// partition keeps beside the data, written in the same step: what ran (run, backfill, code
// version, interloper's version), when, how many rows, and which stored upstream partitions it
// read, each by the id of the materialization it read. Staleness is computed from these records.
import { randomUUID } from "node:crypto";
import { FIELD_TYPES, type FieldSpec } from "../../schema/index.js";

/** One upstream partition a write read, by the materialization it read (null: none was stored then, or unknown). */
export interface UpstreamRead {
  /** The upstream asset's qualified key. */
  readonly asset: string;
  /** Its partition key; null for an unpartitioned upstream. */
  readonly partition: string | null;
  /** The id of the upstream's materialization that was read; null when the upstream's provenance was unknown or nothing was stored. */
  readonly materialization: string | null;
}

/** The verdict of one check on the data of a write (see `il.checks`), as the record keeps it. */
export interface CheckResult {
  readonly name: string;
  readonly severity: "error" | "warn";
  readonly passed: boolean;
  /** Rows that failed; for a check of the whole table, 1 when it failed, else 0. */
  readonly failures: number;
  readonly message: string;
}

/** How one stored partition was made. */
export interface Materialization {
  /** Unique: a random UUID. */
  readonly id: string;
  /** The asset's qualified key. */
  readonly asset: string;
  /** The partition key; null for an unpartitioned asset. */
  readonly partition: string | null;
  readonly runId: string;
  readonly backfillId: string | null;
  /** When the execution that wrote it started and when this write ended (ISO 8601, UTC). */
  readonly startedAt: string;
  readonly endedAt: string;
  /** Rows written; null for a value that is not a table. */
  readonly rows: number | null;
  /** The asset's `codeVersion` when it was written; null when it declares none. */
  readonly codeVersion: string | null;
  /** The version of interloper that wrote it. */
  readonly interloperVersion: string;
  /** The upstream partitions it read. */
  readonly upstream: readonly UpstreamRead[];
  /** The verdicts of the asset's checks on the data written; absent when it has none (or the record is older than checks). */
  readonly checks?: readonly CheckResult[];
  /**
   * The schema the write inferred, for an asset that declares none: what its data was when
   * written, which a format keeping only text (CSV) cannot say when it is read back, and which
   * `verify` reads it with. Absent for an asset with a schema (or a record older than this).
   */
  readonly schema?: readonly FieldSpec[];
}

/** What a run knows of a write before the destination writes it: all of the record but its rows and end. */
export interface ProvenanceDraft {
  readonly startedAt: string;
  readonly codeVersion: string | null;
  readonly interloperVersion: string;
  /** The upstream partitions a partition's data was made from (null: the whole of an unpartitioned asset). */
  upstream(partition: string | null): readonly UpstreamRead[];
  /** The verdicts of the asset's checks on a partition's data; undefined when none ran. */
  checks?(partition: string | null): readonly CheckResult[] | undefined;
  /** Whether the write's schema was inferred (the asset declares none), and so is kept in the record. */
  readonly inferredSchema?: boolean;
  /**
   * Set by a copy from another destination (`materialize --missing --from`): the record the
   * partition was written with there, which the copy keeps as it is (same id, run and upstream
   * reads), so that nothing that read it becomes stale.
   */
  kept?(partition: string | null): Materialization | undefined;
}

/** A new record for a partition write ending now. */
export function newMaterialization(
  draft: ProvenanceDraft,
  run: { readonly asset: string; readonly runId: string; readonly backfillId: string | null },
  partition: string | null,
  rows: number | null,
  schema: readonly FieldSpec[] | null = null,
): Materialization {
  const kept = draft.kept?.(partition);
  if (kept) return kept;
  const checks = draft.checks?.(partition);
  return {
    id: randomUUID(),
    asset: run.asset,
    partition,
    runId: run.runId,
    backfillId: run.backfillId,
    startedAt: draft.startedAt,
    endedAt: new Date().toISOString(),
    rows,
    codeVersion: draft.codeVersion,
    interloperVersion: draft.interloperVersion,
    upstream: draft.upstream(partition),
    ...(checks && checks.length > 0 ? { checks: checks.map(storedResult) } : {}),
    ...(draft.inferredSchema && schema ? { schema: schema.map(storedField) } : {}),
  };
}

/** Only the fields a field spec has, as plain data. */
function storedField(spec: FieldSpec): FieldSpec {
  const { name, type, nullable, asDate } = spec;
  return asDate === undefined ? { name, type, nullable } : { name, type, nullable, asDate };
}

function isFieldSpec(value: unknown): value is FieldSpec {
  const spec = value as Record<string, unknown> | null;
  return (
    typeof spec === "object" &&
    spec !== null &&
    typeof spec["name"] === "string" &&
    FIELD_TYPES.includes(spec["type"] as FieldSpec["type"]) &&
    typeof spec["nullable"] === "boolean" &&
    (spec["asDate"] === undefined || typeof spec["asDate"] === "boolean")
  );
}

/** Only the fields a record keeps (a verdict also carries examples, which stay in events and errors). */
function storedResult(result: CheckResult): CheckResult {
  const { name, severity, passed, failures, message } = result;
  return { name, severity, passed, failures, message };
}

const nullableString = (value: unknown): value is string | null => value === null || typeof value === "string";
const isTime = (value: unknown): value is string => typeof value === "string" && !Number.isNaN(Date.parse(value));

function isUpstreamRead(value: unknown): value is UpstreamRead {
  const read = value as Record<string, unknown> | null;
  return (
    typeof read === "object" &&
    read !== null &&
    typeof read["asset"] === "string" &&
    nullableString(read["partition"]) &&
    nullableString(read["materialization"])
  );
}

function isCheckResult(value: unknown): value is CheckResult {
  const result = value as Record<string, unknown> | null;
  return (
    typeof result === "object" &&
    result !== null &&
    typeof result["name"] === "string" &&
    (result["severity"] === "error" || result["severity"] === "warn") &&
    typeof result["passed"] === "boolean" &&
    Number.isSafeInteger(result["failures"]) &&
    typeof result["message"] === "string"
  );
}

/**
 * A record as stored (parsed JSON), checked field by field: null when anything is missing or of
 * the wrong type (a hand-edited or damaged record), which callers read as provenance unknown.
 * Fields a later version adds are kept.
 */
export function checkedMaterialization(value: unknown): Materialization | null {
  const record = value as Record<string, unknown> | null;
  if (typeof record !== "object" || record === null || Array.isArray(record)) return null;
  const rows = record["rows"];
  const valid =
    typeof record["id"] === "string" &&
    record["id"] !== "" &&
    typeof record["asset"] === "string" &&
    nullableString(record["partition"]) &&
    typeof record["runId"] === "string" &&
    nullableString(record["backfillId"]) &&
    isTime(record["startedAt"]) &&
    isTime(record["endedAt"]) &&
    (rows === null || (Number.isSafeInteger(rows) && (rows as number) >= 0)) &&
    nullableString(record["codeVersion"]) &&
    typeof record["interloperVersion"] === "string" &&
    Array.isArray(record["upstream"]) &&
    record["upstream"].every(isUpstreamRead) &&
    // Absent in records written before checks, or by an asset without any.
    (record["checks"] === undefined || (Array.isArray(record["checks"]) && record["checks"].every(isCheckResult))) &&
    (record["schema"] === undefined || (Array.isArray(record["schema"]) && record["schema"].every(isFieldSpec)));
  return valid ? (record as unknown as Materialization) : null;
}

/** A record from its stored JSON text; null for text that is not a valid record (see checkedMaterialization). */
export function parseMaterialization(text: string): Materialization | null {
  try {
    return checkedMaterialization(JSON.parse(text));
  } catch {
    return null;
  }
}

/** Newest first: by end time, then id, so that the order is total. */
export function newestFirst(a: Materialization, b: Materialization): number {
  return a.endedAt < b.endedAt ? 1 : a.endedAt > b.endedAt ? -1 : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}
