// `interloper coverage` with stale partitions (issue 34), through the built CLI: --json's fields,
// --fail-on-stale (alone and with --fail-on-missing) and the plain picture. The project's
// destination is written by the user (stale-helpers.ts) and keeps records across processes, so
// this also proves that a user-written destination's records drive staleness.
import { describe, expect, it } from "vitest";
import { usePreparedSandbox, useSandboxes } from "./helpers.js";
import { prepareStale, STALE_WINDOW } from "./stale-helpers.js";

interface PartitionJson {
  key: string;
  status: string;
  rows: number | null;
  stale?: boolean;
  staleReasons?: string[];
}
interface CoverageJson {
  asset: string;
  stale: number;
  staleRanges: string[];
  missing: number;
  partitions: PartitionJson[];
}

const sandbox = useSandboxes();
const AGAIN = (key: string) => new RegExp(`^shop\\.orders ${key} was materialized again at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC$`);

describe("coverage of stale partitions", () => {
  const box = usePreparedSandbox(sandbox, prepareStale);
  const coverage = (args: readonly string[]) => box.run(["coverage", ...args, "-w", STALE_WINDOW], { config: null });

  it("--json: stale and staleRanges per asset, stale and staleReasons on each stale partition", async () => {
    const result = await coverage(["--json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const [orders, revenue] = JSON.parse(result.stdout) as CoverageJson[];
    expect(orders).toMatchObject({ asset: "shop.orders", stale: 0, staleRanges: [] });
    expect(orders!.partitions.some((p) => "stale" in p)).toBe(false);
    expect(revenue).toMatchObject({ asset: "shop.revenue", stale: 2, staleRanges: ["2026-01-03", "2026-01-05"], missing: 0 });
    const stale = revenue!.partitions.filter((p) => p.stale);
    expect(stale.map((p) => p.key)).toEqual(["2026-01-03", "2026-01-05"]);
    for (const p of stale) {
      expect(p).toMatchObject({ status: "materialized", rows: 1, stale: true });
      expect(p.staleReasons).toEqual([expect.stringMatching(AGAIN(p.key))]);
    }
    expect(revenue!.partitions.find((p) => p.key === "2026-01-04")).toEqual({ key: "2026-01-04", status: "materialized", rows: 1 });
  });

  it("--fail-on-stale exits 1 when a selected asset has a stale partition, 0 otherwise; the output is as usual", async () => {
    const all = await coverage(["--fail-on-stale"]);
    expect(all.exitCode, all.stderr).toBe(1);
    expect(all.stderr).toBe("");
    expect(all.stdout).toMatch(/^shop\.revenue .* 5\/5 +5 rows +stale 2: 2026-01-03, 2026-01-05$/m);
    const json = await coverage(["revenue", "--json", "--fail-on-stale"]);
    expect(json.exitCode).toBe(1);
    expect((JSON.parse(json.stdout) as CoverageJson).stale).toBe(2);
    const fresh = await coverage(["orders", "--fail-on-stale"]);
    expect(fresh.exitCode, fresh.stderr).toBe(0);
    // Nothing missing: --fail-on-missing alone passes, with --fail-on-stale it fails.
    expect((await coverage(["--fail-on-missing"])).exitCode).toBe(0);
    expect((await coverage(["--fail-on-missing", "--fail-on-stale"])).exitCode).toBe(1);
    // A window holding no stale partition passes.
    const before = await box.run(["coverage", "--fail-on-stale", "-w", "2026-01-01..2026-01-02"], { config: null });
    expect(before.exitCode, before.stdout).toBe(0);
  });

  it("the plain picture (CI, NO_COLOR) marks the stale days, lists them with why, and the legend names the mark", async () => {
    const result = await coverage(["revenue"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).not.toContain("\u001b[");
    const lines = result.stdout.split("\n");
    // 2026-01-01 is a Thursday: the 3rd is a Saturday, the 5th the next Monday.
    expect(lines.find((l) => l.startsWith("Mon"))).toMatch(/^Mon +▲+$/);
    expect(lines.find((l) => l.startsWith("Fri"))).toMatch(/^Fri +█+$/);
    expect(result.stdout).toMatch(/▲ stale/);
    expect(result.stdout).toContain("expected 5  materialized 5  empty 0  missing 0  stale 2  unexpected 0");
    expect(result.stdout).toContain("stale (out of date; materialize --stale rebuilds them): 2026-01-03, 2026-01-05");
    expect(lines.find((l) => l.startsWith("  2026-01-03: "))).toMatch(
      /^ {2}2026-01-03: shop\.orders 2026-01-03 was materialized again at /,
    );
  });

  it("rebuilt as the stale line says (materialize --stale), revenue is fresh again and --fail-on-stale passes", async () => {
    // Last: it changes what the other tests read.
    const rebuilt = await box.run(["materialize", "--stale", "-w", STALE_WINDOW], { config: null });
    expect(rebuilt.exitCode, rebuilt.stderr).toBe(0);
    const after = await coverage(["--fail-on-stale", "--json"]);
    expect(after.exitCode, after.stdout).toBe(0);
    expect((JSON.parse(after.stdout) as CoverageJson[]).map((c) => c.stale)).toEqual([0, 0]);
  });
});
