// Running an asset's checks over the data of one execution: rows are routed to the stored
// partition they belong to (a window's data is checked partition by partition, as it is
// stored), each partition's accumulators are fed batch by batch, and the verdicts are asked for
// once the last row has passed.
import type { PartitionWindow } from "../partitioning/index.js";
import type { Row } from "../representation/index.js";
import { verdictOf, type Check, type CheckAccumulator, type CheckScope, type CheckVerdict } from "./check.js";
import type { MaybePromise } from "../maybe-promise.js";
import { cell, readsOwn } from "./values.js";

const isPromise = <T>(value: MaybePromise<T>): value is Promise<T> => value instanceof Promise;

/** What checks are run for: an asset's key, its checks, and the stored history rowCountChange reads. */
export interface CheckTarget {
  /** The asset's qualified key. */
  readonly qualifiedKey: string;
  readonly checks: readonly Check[];
  /**
   * The asset's declared schema, whose columns conform vouches for (a nullable one may be left
   * out of a row: it is null). Null or absent: an asset without one, whose checked columns must
   * be in the data, or the checks reading them fail.
   */
  readonly schema?: readonly { readonly name: string }[] | null;
  /** The stored row counts of up to `n` partitions before `partition`, oldest first. */
  previousRowCounts?(partition: string, n: number): Promise<readonly number[]>;
  /**
   * Told of each verdict a check makes its partition wait for (a custom check, rowCountChange),
   * before it is awaited: so that a run stuck on one can name it.
   */
  waitingFor?(check: Check, partition: string | null, verdict: Promise<CheckVerdict>): void;
}

/** The verdicts of one partition (null: an unpartitioned asset's whole). */
export interface PartitionVerdicts {
  readonly partition: string | null;
  readonly rows: number;
  readonly verdicts: readonly CheckVerdict[];
}

/** The checks of one partition: fed its rows, then asked for the verdicts. */
export class PartitionChecks {
  private readonly accumulators: CheckAccumulator[];
  private readonly columns: ColumnsSeen | null;
  private count = 0;

  /** `watchColumns`: whether the checked columns must be looked for in the rows (an asset without a declared schema). */
  constructor(
    private readonly checks: readonly Check[],
    readonly scope: CheckScope,
    watchColumns = false,
    private readonly waitingFor?: CheckTarget["waitingFor"],
  ) {
    this.accumulators = checks.map((check) => check.start(scope));
    this.columns = watchColumns ? new ColumnsSeen(checks.flatMap((check) => check.columns)) : null;
  }

  add(rows: readonly Row[]): void {
    this.columns?.look(rows);
    for (const accumulator of this.accumulators) accumulator.add(rows, this.count);
    this.count += rows.length;
  }

  /**
   * The verdicts; at once when every check can say at once (the built-ins but rowCountChange).
   * A check reading a column no row holds fails, whatever its rule says of absent values.
   */
  verdicts(): MaybePromise<PartitionVerdicts> {
    const results = this.accumulators.map((accumulator, i) => {
      const missing = this.count > 0 ? this.columns?.missingOf(this.checks[i]!) : undefined;
      if (missing) return verdictOf(this.checks[i]!, this.count, missing);
      const verdict = accumulator.verdict(this.count);
      if (isPromise(verdict)) this.waitingFor?.(this.checks[i]!, this.scope.partition, verdict);
      return verdict;
    });
    const made = (verdicts: CheckVerdict[]): PartitionVerdicts => ({ partition: this.scope.partition, rows: this.count, verdicts });
    return results.some(isPromise) ? Promise.all(results).then(made) : made(results as CheckVerdict[]);
  }
}

/**
 * The checked columns that no row of a partition holds so far, and the columns its rows do
 * hold, gathered only while one is missing: a column present in the first row costs one lookup
 * per batch.
 */
class ColumnsSeen {
  private readonly absent: Set<string>;
  private readonly present = new Set<string>();

  constructor(columns: readonly string[]) {
    this.absent = new Set(columns);
  }

  look(rows: readonly Row[]): void {
    if (this.absent.size === 0) return;
    for (const column of this.absent) if (rows.some((row) => Object.hasOwn(row, column))) this.absent.delete(column);
    if (this.absent.size === 0) return;
    for (const row of rows) for (const key of Object.keys(row)) this.present.add(key);
  }

  /** Why `check` fails for lack of its columns, or undefined when the rows hold every one. */
  missingOf(check: Check): string | undefined {
    const missing = check.columns.filter((column) => this.absent.has(column));
    if (missing.length === 0) return undefined;
    const named = missing.map((column) => JSON.stringify(column)).join(", ");
    const has = this.present.size > 0 ? [...this.present].join(", ") : "none";
    return `${missing.length === 1 ? "column" : "columns"} ${named} ${missing.length === 1 ? "is" : "are"} not in the data: no row has ${missing.length === 1 ? "it" : "them"} (the columns are: ${has})`;
  }
}

/**
 * The checks of one execution over a window (or the whole of an unpartitioned asset): each row
 * goes to its partition's checks by the partition column. A row outside the window is left to
 * the write, which refuses it; a window of one partition takes every row, as its write does.
 */
export class WindowChecks {
  private readonly partitions = new Map<string | null, PartitionChecks>();
  private readonly history = new Map<string, Promise<readonly number[]>>();

  constructor(
    private readonly target: CheckTarget,
    private readonly window: PartitionWindow | null,
    private readonly column: string | null,
  ) {}

  /** Feeds a batch of rows. */
  add(rows: readonly Row[]): void {
    if (!this.window || this.window.length === 1 || this.column === null) {
      this.of(this.window ? this.window.partitions[0]!.key : null).add(rows);
      return;
    }
    const split = new Map<string, Row[]>();
    const column = this.column;
    const own = readsOwn(column);
    for (const row of rows) {
      const key = this.window.keyOf(own ? row[column] : cell(row, column));
      if (key === null) continue;
      const list = split.get(key);
      if (list) list.push(row);
      else split.set(key, [row]);
    }
    for (const [key, list] of split) this.of(key).add(list);
  }

  /**
   * The verdicts of every partition of the window, in window order (partitions without rows
   * included). At once when no check needs to wait: a table then goes on to its destinations in
   * the turn it was returned, and other partitions in flight do not run in between (their rows
   * alive at the same time).
   */
  verdicts(): MaybePromise<PartitionVerdicts[]> {
    const keys = this.window ? this.window.partitions.map((p) => p.key) : [null];
    const results = keys.map((key) => this.of(key).verdicts());
    // Judged once: the accumulators (unique's table, a custom check's rows) are let go now.
    this.partitions.clear();
    return results.some(isPromise) ? Promise.all(results) : (results as PartitionVerdicts[]);
  }

  private of(key: string | null): PartitionChecks {
    let found = this.partitions.get(key);
    if (!found) {
      const scope: CheckScope = {
        asset: this.target.qualifiedKey,
        partition: key,
        ...(key !== null && this.target.previousRowCounts ? { previousRowCounts: (n: number) => this.previous(key, n) } : {}),
      };
      found = new PartitionChecks(this.target.checks, scope, !this.target.schema, this.target.waitingFor?.bind(this.target));
      this.partitions.set(key, found);
    }
    return found;
  }

  private previous(key: string, n: number): Promise<readonly number[]> {
    const id = `${key}\u0000${n}`;
    let found = this.history.get(id);
    if (!found) this.history.set(id, (found = this.target.previousRowCounts!(key, n)));
    return found;
  }
}

/** The verdicts that failed, with their partition. */
export function failedVerdicts(results: readonly PartitionVerdicts[]): Array<{ partition: string | null; verdict: CheckVerdict }> {
  return results.flatMap((r) => r.verdicts.filter((v) => !v.passed).map((verdict) => ({ partition: r.partition, verdict })));
}

/**
 * The row counts of up to `n` stored partitions before `partition`, oldest first: those whose
 * keys sort before it (the earlier periods of a time partitioning, whose keys sort as they run).
 */
export function previousCounts(counts: Readonly<Record<string, number>>, partition: string, n: number): number[] {
  const before = Object.keys(counts)
    .filter((key) => key < partition)
    .sort();
  return before.slice(Math.max(0, before.length - n)).map((key) => counts[key]!);
}
