// What a check is: a named rule over one stored partition's rows, with a severity. A check makes
// a fresh accumulator per partition; the accumulator is fed the partition's rows batch by batch
// (a streamed partition is never held whole for a built-in check) and then asked for its verdict.
import type { Row } from "../representation/index.js";

/** How a failed check counts: "error" keeps the partition from being written, "warn" writes it and says so. */
export type CheckSeverity = "error" | "warn";

/** The kinds of check: the built-ins, and "custom" for `il.check(name, fn)`. */
export type CheckKind = "notNull" | "unique" | "acceptedValues" | "range" | "rowCount" | "rowCountChange" | "custom";

/** The outcome of one check over one partition, as events, errors and `verify` give it. */
export interface CheckVerdict {
  /** The check's name: `unique(order_id)`, or a custom check's own name. */
  readonly name: string;
  readonly severity: CheckSeverity;
  readonly passed: boolean;
  /** Rows that failed; for a check of the whole table (rowCount, rowCountChange, custom) 1 when it failed, else 0. */
  readonly failures: number;
  /** One line: what failed, or why it passed (a rowCountChange without enough history says so). */
  readonly message: string;
  /** Up to five offending values (or rows, for notNull) as text. */
  readonly examples: readonly string[];
}

/** What a check knows of the partition it judges. */
export interface CheckScope {
  /** The asset's qualified key. */
  readonly asset: string;
  /** The partition's key; null for an unpartitioned asset. */
  readonly partition: string | null;
  /**
   * The stored row counts of up to `n` partitions of the asset before this one, oldest first
   * (rowCountChange's history). Absent: no history is known, so rowCountChange gives no verdict.
   */
  readonly previousRowCounts?: (n: number) => Promise<readonly number[]>;
}

/** One check's running state over one partition. */
export interface CheckAccumulator {
  /** Rows of the partition, in order; `offset` is the index of the batch's first row in the partition. */
  add(rows: readonly Row[], offset: number): void;
  /** The verdict once every row was added (`rows`: how many there were). */
  verdict(rows: number): CheckVerdict | Promise<CheckVerdict>;
}

/** A declared check: what `il.checks.*` and `il.check` return. Immutable. */
export interface Check {
  readonly kind: "check";
  readonly type: CheckKind;
  readonly name: string;
  readonly severity: CheckSeverity;
  /** The columns it reads, which the asset's declared schema must have. */
  readonly columns: readonly string[];
  /** Whether it compares stored partitions (rowCountChange): only a partitioned asset can have it. */
  readonly needsPartitions: boolean;
  /** A fresh accumulator for one partition. */
  start(scope: CheckScope): CheckAccumulator;
}

/** The most examples a verdict carries. */
export const MAX_EXAMPLES = 5;

/** Whether a value is a check made by `il.checks.*` or `il.check`. */
export function isCheck(value: unknown): value is Check {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "check";
}

/** A verdict of `check` from its parts. */
export function verdictOf(check: Check, failures: number, message: string, examples: readonly string[] = []): CheckVerdict {
  return Object.freeze({
    name: check.name,
    severity: check.severity,
    passed: failures === 0,
    failures,
    message,
    examples: Object.freeze([...examples]),
  });
}
