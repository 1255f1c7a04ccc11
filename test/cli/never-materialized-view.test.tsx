// An asset with neither a start nor stored partitions (issue 32.1): the ink views say it was
// never materialized, as `coverage` text and --json do, rather than an empty picture.
import { render } from "ink-testing-library";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as il from "../../src/index.js";
import { computeCoverage } from "../../src/api/coverage/index.js";
import { CoverageExplorer } from "../../src/cli/explorer/explorer.js";
import { CoverageView } from "../../src/cli/views/coverage-view.js";

const NOW = new Date("2026-03-11T10:00:00Z");
const PATIENCE = { timeout: 15_000, interval: 20 };

function assetOf(key: string, partitioning: il.PartitionConfig): il.Asset {
  const definition = il.asset({ key, partitioning, run: () => [] });
  return il.source({ key: "shop", assets: [definition] })({ destinations: new il.MemoryDestination() }).assets[key]!;
}
const monthly = assetOf("monthly", new il.TimePartitionConfig({ column: "month", granularity: il.TimeGranularity.MONTH }));
const never = computeCoverage(monthly, {}, { now: NOW });
const stored = computeCoverage(monthly, { "2026-01": 3 }, { now: NOW });
const daily = computeCoverage(assetOf("daily", new il.TimePartitionConfig({ column: "day", start: "2026-03-01" })), {}, { now: NOW });

const mounted: Array<{ unmount(): void }> = [];
afterEach(() => {
  for (const app of mounted.splice(0)) app.unmount();
});

describe("an asset never materialized", () => {
  it("is reported so, first, by the single-asset view; one with a stored partition is not", () => {
    expect(never.neverMaterialized).toBe(true);
    const view = render(<CoverageView coverage={never} width={80} color={false} />);
    mounted.push(view);
    const lines = (view.lastFrame() ?? "").split("\n");
    expect(lines[0]).toMatch(/^shop\.monthly: never materialized \(no start/);
    const other = render(<CoverageView coverage={stored} width={80} color={false} />);
    mounted.push(other);
    expect(other.lastFrame()).not.toContain("never materialized");
  });

  it("is reported so by the explorer's status of that asset, even where its summary line is cut short", async () => {
    const app = render(
      <CoverageExplorer coverages={[daily, never]} width={50} height={30} color={false} details={async () => []} onExit={() => {}} />,
    );
    mounted.push(app);
    const frame = () => app.lastFrame() ?? "";
    await vi.waitFor(() => expect(app.stdin.listenerCount("readable")).toBeGreaterThan(0), PATIENCE);
    await vi.waitFor(() => expect(frame()).toContain("q quit"), PATIENCE);
    // The first asset is selected: nothing of the kind is said.
    expect(frame()).not.toMatch(/^shop\.\w+: never/m);
    app.stdin.write("\u001b[B"); // down: to the asset never materialized
    await vi.waitFor(() => expect(frame()).toMatch(/^shop\.monthly: never materialized/m), PATIENCE);
  });
});
