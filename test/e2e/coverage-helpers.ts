// Helpers of the coverage end-to-end tests: the coverage fixture project
// (fixtures/projects/coverage) and a data folder prepared with gaps by the CLI itself.
import { cp, mkdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { FIXTURES, type Sandbox } from "./helpers.js";

export const COVERAGE = join(FIXTURES, "coverage", "interloper.config.ts");

/** The UTC calendar day `days` from today, as a day key (the fixture's orders start at day(-29)). */
export function day(days: number): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + days)).toISOString().slice(0, 10);
}

/** D(i): the i-th day of cov.orders (D(0) its start, D(28) yesterday, the last expected; D(29) today, in progress). */
export const D = (i: number) => day(i - 29);

/** Rows the fixture's orders asset makes for a day. */
export const orderRows = (key: string) => 3 + (Number(key.slice(8, 10)) % 5);

/** A range of D indexes, inclusive. */
export const span = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => D(from + i));

/**
 * What `prepare` leaves in storage:
 * - cov.orders (29 expected days D0..D28, D29 today in progress): D0..D9 and D15..D27 written,
 *   D3 empty; D10..D14 and D28 missing; an unexpected partition D(-3) (before the start)
 *   written by hand with 2 rows.
 * - cov.regions (eu, us, apac, latam): eu written, us empty; apac and latam missing.
 * - cov.monthly (2025-01 to the current month): 2025-01..2025-06 written.
 * - cov.hourly: nothing.
 */
export const PREPARED = {
  materialized: [...span(0, 9).filter((k) => k !== D(3)), ...span(15, 27)],
  empty: [D(3)],
  missing: [...span(10, 14), D(28)],
  inProgress: D(29),
  unexpected: D(-3),
};

/** The run log the fixture appends to (INTERLOPER_RUN_LOG), per sandbox. */
export const runLog = (box: Sandbox) => join(box.dir, "runs.log");

/** Fills a sandbox's data folder as PREPARED says, through the CLI. */
export async function prepare(box: Sandbox): Promise<void> {
  const runs = await Promise.all([
    box.run(["materialize", "orders", "-w", `${D(0)}..${D(9)}`], { config: COVERAGE, env: { INTERLOPER_EMPTY: D(3) } }),
    box.run(["materialize", "orders", "-w", `${D(15)}..${D(27)}`], { config: COVERAGE }),
    box.run(["materialize", "regions", "-w", "eu..us"], { config: COVERAGE, env: { INTERLOPER_EMPTY: "us" } }),
    box.run(["materialize", "monthly", "-w", "2025-01..2025-06"], { config: COVERAGE }),
  ]);
  for (const run of runs) expect(run.exitCode, run.stderr).toBe(0);
  // An unexpected partition, written by hand as CSVDestination lays it out.
  const folder = join(box.data, "cov", "orders", `date=${PREPARED.unexpected}`);
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, "data.csv"), `date,order_id\n${PREPARED.unexpected},0\n${PREPARED.unexpected},1\n`);
}

/** Copies a prepared data folder into another sandbox (timestamps kept). */
export async function copyData(from: Sandbox, to: Sandbox): Promise<void> {
  await cp(from.data, to.data, { recursive: true, preserveTimestamps: true });
}

/**
 * Modification time (ms) of every data file (data.csv) below a sandbox's data folder. The hidden
 * row-count sidecars are left out: a copy does not keep sub-millisecond timestamps, so the first
 * count after a copy may refresh them, which rewrites no data.
 */
export async function mtimes(box: Sandbox): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const file of await box.dataFiles()) out[file] = (await stat(join(box.data, file))).mtimeMs;
  return out;
}

/** The file of a cov.orders partition, relative to the data folder. */
export const ordersFile = (key: string) => `cov/orders/date=${key}/data.csv`;
