// Helpers of the end-to-end tests on the project of two destinations
// (fixtures/projects/destinations): CSV files and SQLite, the warehouse, which can be told to be
// down on some days.
import { join } from "node:path";
import { expect } from "vitest";
import { FIXTURES, type CliResult, type Sandbox } from "./helpers.js";

export const DESTINATIONS = join(FIXTURES, "destinations", "interloper.config.ts");
/** 2026-01-01..2026-01-06 expected; 2026-01-07 in progress. */
export const DESTINATIONS_NOW = "2026-01-07T12:00:00Z";

/** Runs the CLI on the destinations fixture, at DESTINATIONS_NOW. */
export const runOnDestinations = (box: Sandbox, args: string[], env: Record<string, string> = {}): Promise<CliResult> =>
  box.run(args, { config: DESTINATIONS, env: { INTERLOPER_NOW: DESTINATIONS_NOW, ...env } });

/**
 * Materializes daily_revenue: the first day alone (fractional: the warehouse's column is REAL),
 * then the rest with the warehouse down on `down` (days, comma separated). That second run fails
 * (exit code 1); it is returned for what it printed.
 */
export async function materializeWithWarehouseDown(box: Sandbox, down: string): Promise<CliResult> {
  const first = await runOnDestinations(box, ["materialize", "daily_revenue", "-p", "2026-01-01"]);
  expect(first.exitCode, first.stderr + first.stdout).toBe(0);
  const rest = await runOnDestinations(box, ["materialize", "daily_revenue", "-w", "2026-01-02..2026-01-06", "--no-fail-fast"], {
    INTERLOPER_WAREHOUSE_DOWN: down,
  });
  expect(rest.exitCode).toBe(1);
  return rest;
}
