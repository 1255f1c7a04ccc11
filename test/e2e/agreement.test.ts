// Counts agree with their number in what the commands print: "1 row", "1 of 1 asset", "1 run".
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, useSandboxes } from "./helpers.js";

beforeAll(ensureBuilt, 180_000);
const sandbox = useSandboxes();

describe.concurrent("singular and plural", () => {
  it('an unpartitioned run of one asset with one row: "1 of 1 asset completed, 1 row"; the plain line says "1 row"', async () => {
    const box = await sandbox();
    const result = await box.run(["materialize", "archive.customers"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^Done: 1 of 1 asset completed, 1 row in /m);
    expect(result.stderr).toMatch(/^ok\s+archive\.customers\s+1 row\s/m);
  });

  it('plan counts its runs: "Backfill of 2 runs", "One run"', async () => {
    const box = await sandbox();
    const plan = await box.run(["plan", "orders", "-w", "2026-01-01..2026-01-02"]);
    expect(plan.outLines[0]).toMatch(/^Backfill of 2 runs, newest first/);
    const one = await box.run(["plan", "orders", "-p", "2026-01-01"]);
    expect(one.outLines[0]).toMatch(/^One run over 2026-01-01/);
  });
});
