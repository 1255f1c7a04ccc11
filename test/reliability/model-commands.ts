// The commands of the model-based tests (model.test.ts, model-servers.test.ts) and the model
// they are checked against. The model is, per asset, the rows each written partition holds.
// Every command runs against the real destination through the public asset API (materialize,
// read, partitionRowCounts), checks what it saw against the model, updates the model, and then
// checks the row counts of every asset: any step that leaves storage differing from the model
// fails the sequence there.
import fc from "fast-check";
import type { Asset } from "../../src/asset/asset.js";
import type { Destination } from "../../src/destination/index.js";
import { DataNotFoundError } from "../../src/errors.js";
import type { Partition, PartitionWindow } from "../../src/partitioning/index.js";
import { TableData, type Row } from "../../src/representation/index.js";
import { source } from "../../src/source/source.js";
import { assetDefinitions, modelAssets, rowsOf, VALUES, windowOf, type ModelAsset, type Payloads, type Values } from "./model-data.js";

/** Per asset key, per partition key, the rows it holds. A key absent: never written. */
export type Model = { readonly tables: Map<string, Map<string, Row[]>> };

export function emptyModel(): Model {
  return { tables: new Map() };
}

function tableOf(model: Model, key: string): Map<string, Row[]> {
  let table = model.tables.get(key);
  if (!table) model.tables.set(key, (table = new Map()));
  return table;
}

/** How a write hands its rows over: an array of rows, a columns table, or a stream of batches. */
export type Shape = "rows" | "columns" | "stream";

/** The real system: the source bound to a destination (and, on first use, to a second instance). */
export class System {
  readonly assets: ModelAsset[];
  readonly steps: string[] = [];
  private readonly payloads: Payloads = new Map();
  private readonly main: Record<string, Asset>;
  private twinAssets: Record<string, Asset> | undefined;
  private runs = 0;

  constructor(
    readonly listValues: readonly string[],
    private readonly dataset: string,
    destination: Destination,
    private readonly twin: () => Destination,
    caseBlindTables = false,
  ) {
    this.assets = modelAssets(listValues, caseBlindTables);
    this.main = this.bind(destination);
  }

  private bind(destination: Destination): Record<string, Asset> {
    const definition = source({ key: "model", assets: assetDefinitions(this.assets, this.payloads) });
    return definition({ destinations: destination, dataset: this.dataset }).assets;
  }

  asset(a: ModelAsset, instance: "main" | "twin" = "main"): Asset {
    const assets = instance === "main" ? this.main : (this.twinAssets ??= this.bind(this.twin()));
    return assets[a.key]!;
  }

  /** Materializes `rows` (in the order given) over a window of `a`. */
  async write(
    a: ModelAsset,
    window: PartitionWindow | Partition,
    rows: readonly Row[],
    shape: Shape,
    instance: "main" | "twin" = "main",
  ): Promise<void> {
    const runId = `model-${++this.runs}`;
    this.payloads.set(runId, () => shaped(rows, shape));
    try {
      await this.asset(a, instance).materialize(window, { runId });
    } finally {
      this.payloads.delete(runId);
    }
  }

  /** The rows of a window, or "missing" when the destination says one of its partitions was never written. */
  async read(a: ModelAsset, window: PartitionWindow | Partition): Promise<Row[] | "missing"> {
    try {
      const table = TableData.from(await this.asset(a).read(window));
      if (!table) throw new Error(`${a.key} ${show(String(window))}: the read gave no table`);
      return table.rows;
    } catch (error) {
      if (error instanceof DataNotFoundError) return "missing";
      throw error;
    }
  }

  counts(a: ModelAsset): Promise<Record<string, number>> {
    return this.asset(a).partitionRowCounts();
  }
}

/** Rows as the asset returns them: a fresh copy each call, so nothing the write keeps is shared. */
function shaped(rows: readonly Row[], shape: Shape): unknown {
  const copy = rows.map((row) => ({ ...row }));
  // A columns table of no rows has no columns: it is given as rows.
  if (shape === "columns" && copy.length > 0) return TableData.from(copy)!.to("columns");
  if (shape === "stream") {
    return (async function* batches() {
      for (let i = 0; i < copy.length; i += 2) yield copy.slice(i, i + 2);
    })();
  }
  return copy;
}

// ---- what commands pick ---------------------------------------------------------------------

/** Positions commands are generated with, resolved against the sequence's assets. */
interface Pick {
  readonly asset: number;
  readonly first: number;
  readonly span: number;
}

interface Resolved {
  readonly a: ModelAsset;
  readonly keys: readonly string[];
  readonly window: PartitionWindow | Partition;
}

/** The partitions of a window as JSON strings: list values may hold line ends and spaces. */
function where(r: Resolved): string {
  const [first, last] = [r.keys[0]!, r.keys[r.keys.length - 1]!];
  return r.keys.length === 1 ? show(first) : `${show(first)}..${show(last)}`;
}

function resolve(system: System, pick: Pick): Resolved {
  const a = system.assets[pick.asset % system.assets.length]!;
  const first = pick.first % a.keys.length;
  const last = Math.min(first + pick.span - 1, a.keys.length - 1);
  return { a, keys: a.keys.slice(first, last + 1), window: windowOf(a, first, last) };
}

/** A partition that holds data, picked among all of them (null when none does). */
function written(model: Model, system: System, index: number): Resolved | null {
  const all: Array<[ModelAsset, string]> = [];
  for (const a of system.assets) for (const key of a.keys) if (model.tables.get(a.key)?.has(key)) all.push([a, key]);
  if (all.length === 0) return null;
  const [a, key] = all[index % all.length]!;
  const position = a.keys.indexOf(key);
  return { a, keys: [key], window: windowOf(a, position, position) };
}

function anyWritten(model: Model): boolean {
  for (const table of model.tables.values()) if (table.size > 0) return true;
  return false;
}

/** The rows of each partition of a window, in window order. */
function rowsFor(r: Resolved, values: readonly (readonly Values[])[]): Map<string, Row[]> {
  return new Map(r.keys.map((key, i) => [key, rowsOf(r.a, key, values[i] ?? [])]));
}

/** All rows of a window in one list, mixed as `order` says (0: partition after partition), each partition's own order kept. */
function interleave(byKey: Map<string, Row[]>, order: number): Row[] {
  if (order === 0) return [...byKey.values()].flat();
  const queues = [...byKey.values()].map((rows) => [...rows]);
  const out: Row[] = [];
  let state = order >>> 0;
  for (;;) {
    const open = queues.filter((q) => q.length > 0);
    if (open.length === 0) return out;
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    out.push(open[state % open.length]!.shift()!);
  }
}

// ---- checks -----------------------------------------------------------------------------------

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !(v instanceof Date);

/** Exact sameness: -0 is not 0, bigints are not numbers, json objects compare by keys in any order. */
export function same(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return Object.is(a.getTime(), b.getTime());
  if (typeof a === "bigint" || typeof b === "bigint") return typeof a === typeof b && a === b;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => same(item, b[i]));
  if (isObject(a)) {
    if (!isObject(b) || Array.isArray(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && same(a[key], b[key]));
  }
  return Object.is(a, b);
}

export function show(value: unknown): string {
  if (value instanceof Date) return `Date(${value.toISOString()})`;
  if (typeof value === "bigint") return `${value}n`;
  if (value === undefined) return "undefined";
  return (
    JSON.stringify(value, (_key, v: unknown) =>
      typeof v === "bigint" ? `${v}n` : v instanceof Date ? `Date(${v.toISOString()})` : Object.is(v, -0) ? "-0" : v,
    ) ?? String(value)
  );
}

/** What differs between the rows expected and those read, or null when they are the same. */
function difference(expected: readonly Row[], actual: readonly Row[]): string | null {
  if (expected.length !== actual.length) {
    return `expected ${expected.length} row(s), read ${actual.length}: expected ${show(expected.slice(0, 3))}${expected.length > 3 ? "..." : ""}, read ${show(actual.slice(0, 3))}${actual.length > 3 ? "..." : ""}`;
  }
  for (const [i, row] of expected.entries()) {
    const got = actual[i]!;
    for (const column of new Set([...Object.keys(row), ...Object.keys(got)])) {
      if (!same(row[column], got[column]))
        return `row ${i}, column "${column}": expected ${show(row[column])}, read ${show(got[column])} (row expected ${show(row)}, read ${show(got)})`;
    }
  }
  return null;
}

class ModelMismatch extends Error {}

function fail(message: string): never {
  throw new ModelMismatch(message);
}

/** Reads each partition of `keys` alone and checks it against the model. */
async function checkPartitions(model: Model, system: System, a: ModelAsset, keys: readonly string[]): Promise<void> {
  for (const key of keys) {
    const rows = await system.read(a, a.config.partition(key));
    const want = model.tables.get(a.key)?.get(key);
    if (want === undefined) {
      if (rows !== "missing") fail(`${a.key} ${show(key)} was never written but reads as ${rows.length} row(s): ${show(rows.slice(0, 2))}`);
      continue;
    }
    if (rows === "missing") fail(`${a.key} ${show(key)} holds ${want.length} row(s) but reads as never written`);
    const diff = difference(want, rows);
    if (diff) fail(`${a.key} ${show(key)}: ${diff}`);
  }
}

/** The row counts of every asset, checked against the model: the check after every step. */
async function checkCounts(model: Model, system: System): Promise<void> {
  for (const a of system.assets) {
    const counts = await system.counts(a);
    const table = model.tables.get(a.key) ?? new Map<string, Row[]>();
    const want = Object.fromEntries([...table].map(([key, rows]) => [key, rows.length]));
    const keys = new Set([...Object.keys(counts), ...Object.keys(want)]);
    const wrong = [...keys]
      .filter((key) => counts[key] !== want[key])
      .map((key) => `${show(key)}: counted ${counts[key] ?? "nothing"}, holds ${want[key] ?? "nothing (never written)"}`);
    if (wrong.length > 0) fail(`row counts of ${a.key}: ${wrong.join("; ")}`);
  }
}

// ---- commands ---------------------------------------------------------------------------------

type Cmd = fc.AsyncCommand<Model, System>;

/** Runs a step: logs what it resolved to, and names the step and everything before it in a failure. */
async function step(system: System, what: string, body: () => Promise<void>): Promise<void> {
  system.steps.push(what);
  try {
    await body();
  } catch (error) {
    const kind = error instanceof ModelMismatch ? "differs from the model" : `threw ${(error as Error)?.name ?? "an error"}`;
    const steps = system.steps.map((s, i) => `  ${i + 1}. ${s}`).join("\n");
    throw new Error(
      `step ${system.steps.length} ${kind}: ${(error as Error)?.message ?? String(error)}\n list values ${show(system.listValues)}; steps:\n${steps}`,
      { cause: error },
    );
  }
}

const describeRows = (byKey: Map<string, Row[]>) => [...byKey].map(([key, rows]) => `${show(key)}: ${rows.length}`).join(", ");

/** Writes a partition or a window (or empties them: `values` of no rows) and reads each back. */
class WriteCommand implements Cmd {
  constructor(
    private readonly label: string,
    private readonly pick: Pick | { readonly existing: number },
    private readonly values: readonly (readonly Values[])[],
    private readonly shape: Shape,
    private readonly order: number,
  ) {}

  check(model: Readonly<Model>): boolean {
    return !("existing" in this.pick) || anyWritten(model);
  }

  async run(model: Model, system: System): Promise<void> {
    const r = "existing" in this.pick ? written(model, system, this.pick.existing)! : resolve(system, this.pick);
    const byKey = rowsFor(r, this.values);
    await step(system, `${this.label} ${r.a.key} ${where(r)} (${this.shape}; rows ${describeRows(byKey)})`, async () => {
      await system.write(r.a, r.window, interleave(byKey, this.order), this.shape);
      for (const [key, rows] of byKey) tableOf(model, r.a.key).set(key, rows);
      await checkPartitions(model, system, r.a, r.keys);
      await checkCounts(model, system);
    });
  }

  toString(): string {
    return `${this.label}(${show(this.pick)}, rows ${show(this.values.map((v) => v.length))}, ${this.shape}, order ${this.order})`;
  }
}

/** Two writers of the same window at once: afterwards each partition holds one writer's rows, whole. */
class TwoWritersCommand implements Cmd {
  constructor(
    private readonly pick: Pick,
    private readonly values: readonly [readonly (readonly Values[])[], readonly (readonly Values[])[]],
    private readonly shapes: readonly [Shape, Shape],
    private readonly instances: "one instance" | "two instances",
  ) {}

  check(): boolean {
    return true;
  }

  async run(model: Model, system: System): Promise<void> {
    const r = resolve(system, this.pick);
    const [a, b] = this.values.map((values) => rowsFor(r, values)) as [Map<string, Row[]>, Map<string, Row[]>];
    const what = `two writers at once (${this.instances}) on ${r.a.key} ${where(r)} (${this.shapes.join(" and ")}; rows ${describeRows(a)} and ${describeRows(b)})`;
    await step(system, what, async () => {
      const second = this.instances === "two instances" ? "twin" : "main";
      const outcomes = await Promise.allSettled([
        system.write(r.a, r.window, [...a.values()].flat(), this.shapes[0]),
        system.write(r.a, r.window, [...b.values()].flat(), this.shapes[1], second),
      ]);
      const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected");
      if (failed) throw failed.reason;
      for (const key of r.keys) {
        const rows = await system.read(r.a, r.a.config.partition(key));
        if (rows === "missing") fail(`${r.a.key} ${show(key)} reads as never written after both writers succeeded`);
        const [fromA, fromB] = [difference(a.get(key)!, rows), difference(b.get(key)!, rows)];
        if (fromA && fromB)
          fail(`${r.a.key} ${show(key)} holds neither writer's rows: against the first, ${fromA}; against the second, ${fromB}`);
        tableOf(model, r.a.key).set(key, fromA ? b.get(key)! : a.get(key)!);
      }
      await checkCounts(model, system);
    });
  }

  toString(): string {
    return `twoWriters(${show(this.pick)}, rows ${show(this.values.map((w) => w.map((v) => v.length)))}, ${this.shapes.join("+")}, ${this.instances})`;
  }
}

/** A read while a write of the same partition runs: it sees the rows before or the rows after, whole. */
class ReadDuringWriteCommand implements Cmd {
  constructor(
    private readonly pick: Pick,
    private readonly values: readonly Values[],
    private readonly shape: Shape,
  ) {}

  check(): boolean {
    return true;
  }

  async run(model: Model, system: System): Promise<void> {
    const r = resolve(system, { ...this.pick, span: 1 });
    const key = r.keys[0]!;
    const after = rowsOf(r.a, key, this.values);
    const before = model.tables.get(r.a.key)?.get(key);
    await step(
      system,
      `read ${r.a.key} ${show(key)} while writing it (${this.shape}; ${before?.length ?? "no"} rows before, ${after.length} after)`,
      async () => {
        const [, rows] = await Promise.all([system.write(r.a, r.window, after, this.shape), system.read(r.a, r.window)]);
        if (rows === "missing") {
          if (before !== undefined) fail(`${r.a.key} ${show(key)} read as never written while being rewritten`);
        } else {
          const fromAfter = difference(after, rows);
          const fromBefore = before ? difference(before, rows) : "it was never written";
          if (fromAfter && fromBefore)
            fail(`${r.a.key} ${show(key)} read during a write is neither before (${fromBefore}) nor after (${fromAfter})`);
        }
        tableOf(model, r.a.key).set(key, after);
        await checkPartitions(model, system, r.a, [key]);
        await checkCounts(model, system);
      },
    );
  }

  toString(): string {
    return `readDuringWrite(${show(this.pick)}, ${this.values.length} rows, ${this.shape})`;
  }
}

/** Reads a partition or a window: the rows of its partitions, in window order, or "never written". */
class ReadCommand implements Cmd {
  constructor(private readonly pick: Pick) {}

  check(): boolean {
    return true;
  }

  async run(model: Model, system: System): Promise<void> {
    const r = resolve(system, this.pick);
    await step(system, `read ${r.a.key} ${where(r)}`, async () => {
      const rows = await system.read(r.a, r.window);
      const table = model.tables.get(r.a.key);
      const missing = r.keys.filter((key) => !table?.has(key));
      if (missing.length > 0) {
        if (rows !== "missing")
          fail(`${r.a.key} ${where(r)}: ${missing.map(show).join(", ")} never written, but the read gave ${rows.length} row(s)`);
      } else {
        if (rows === "missing") fail(`${r.a.key} ${where(r)} reads as never written; the model holds all of it`);
        const diff = difference(
          r.keys.flatMap((key) => table!.get(key)!),
          rows,
        );
        if (diff) fail(`${r.a.key} ${where(r)}: ${diff}`);
      }
      await checkCounts(model, system);
    });
  }

  toString(): string {
    return `read(${show(this.pick)})`;
  }
}

/** Counts the partitions of every asset (as coverage does). */
class CountCommand implements Cmd {
  check(): boolean {
    return true;
  }

  async run(model: Model, system: System): Promise<void> {
    await step(system, "count every asset", () => checkCounts(model, system));
  }

  toString(): string {
    return "count()";
  }
}

// ---- arbitraries ------------------------------------------------------------------------------

const ASSETS = 5;
const MAX_WINDOW = 5;
// A failing sequence shrinks to fewer commands and fewer rows, but each row's values stay as
// generated: shrinking eight values of every row, each try a sequence replayed against a server,
// took tens of minutes, and the values are not what this test is about.
const ROW = fc.noShrink(VALUES);
const ROWS = fc.oneof(
  { weight: 5, arbitrary: fc.array(ROW, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.array(ROW, { minLength: 5, maxLength: 40 }) },
);
const SHAPE = fc.constantFrom<Shape>("rows", "columns", "stream");
const pick = (span: fc.Arbitrary<number>) => fc.record({ asset: fc.nat(ASSETS - 1), first: fc.nat(MAX_WINDOW - 1), span });
const perPartition = (length: number) => fc.array(ROWS, { minLength: length, maxLength: length });
const NO_ROWS: readonly (readonly Values[])[] = Array.from({ length: MAX_WINDOW }, () => []);

/** The commands of a sequence. */
export const COMMANDS: fc.Arbitrary<Cmd>[] = [
  fc.tuple(pick(fc.constant(1)), perPartition(1), SHAPE).map(([p, values, shape]) => new WriteCommand("write", p, values, shape, 0)),
  fc
    .tuple(pick(fc.integer({ min: 2, max: MAX_WINDOW })), perPartition(MAX_WINDOW), SHAPE, fc.oneof(fc.constant(0), fc.nat()))
    .map(([p, values, shape, order]) => new WriteCommand("write window", p, values, shape, order)),
  fc
    .tuple(fc.nat(), perPartition(1), SHAPE)
    .map(([existing, values, shape]) => new WriteCommand("rewrite", { existing }, values, shape, 0)),
  // The API has no delete: a partition is emptied by writing it with no rows.
  fc.tuple(fc.nat(), SHAPE).map(([existing, shape]) => new WriteCommand("empty", { existing }, NO_ROWS, shape, 0)),
  fc
    .tuple(pick(fc.integer({ min: 1, max: MAX_WINDOW })), SHAPE)
    .map(([p, shape]) => new WriteCommand("write empty window", p, NO_ROWS, shape, 0)),
  fc.tuple(pick(fc.constant(1)), ROWS, SHAPE).map(([p, values, shape]) => new ReadDuringWriteCommand(p, values, shape)),
  fc
    .tuple(
      pick(fc.integer({ min: 1, max: 2 })),
      perPartition(2),
      perPartition(2),
      SHAPE,
      SHAPE,
      fc.constantFrom("one instance" as const, "two instances" as const),
    )
    .map(([p, a, b, s1, s2, instances]) => new TwoWritersCommand(p, [a, b], [s1, s2], instances)),
  pick(fc.constant(1)).map((p) => new ReadCommand(p)),
  pick(fc.integer({ min: 2, max: MAX_WINDOW })).map((p) => new ReadCommand(p)),
  fc.constant(null).map(() => new CountCommand()),
];
