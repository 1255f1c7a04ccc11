// Partitions written with failed warn checks (issue 35) in every coverage picture: the text form,
// the ink view (its colour), the one-line summaries, list bars, the explorer's cursor line and
// the HTML report. The coverage comes from real runs into the memory destination, whose records
// keep each write's check verdicts.
import { render } from "ink-testing-library";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
// Colour on, as in a terminal: chalk reads FORCE_COLOR when it is first imported, which
// vi.hoisted runs before.
vi.hoisted(() => {
  process.env["FORCE_COLOR"] = "1";
});
import * as il from "../../src/index.js";
import type { Coverage, Session } from "../../src/api/session/index.js";
import { CoverageExplorer } from "../../src/cli/explorer/explorer.js";
import { cellChar, coverageBar, layoutCoverage, STALE_MARK, WARN_MARK } from "../../src/cli/views/coverage-layout.js";
import { coverageText, legend, listBars } from "../../src/cli/views/coverage-text.js";
import { summaryLines } from "../../src/cli/views/coverage-summary.js";
import { CoverageView } from "../../src/cli/views/coverage-view.js";
import { coverageHtml } from "../../src/cli/report/coverage-html.js";

const PATIENCE = { timeout: 15_000, interval: 20 };
const WINDOW = "2026-01-01..2026-01-07";
// Days 3 and 5 (and the list value "us") repeat an id: the warn check fails, the rows are written.
const repeated = new Set(["2026-01-03", "2026-01-05", "us"]);
const rows = (column: string) => (ctx: il.ExecutionContext) => {
  const key = ctx.partition!.key;
  return [
    { [column]: key, id: 1 },
    { [column]: key, id: repeated.has(key) ? 1 : 2 },
  ];
};
const unique = () => [il.checks.unique("id", { severity: "warn" })];

let session: Session;
let orders: Coverage;
let plain: Coverage;
let regions: Coverage;

beforeAll(async () => {
  il.MemoryDestination.clear();
  const day = () => new il.TimePartitionConfig({ column: "day", start: "2026-01-01" });
  const assets = [
    il.asset({ key: "orders", partitioning: day(), checks: unique(), run: rows("day") }),
    il.asset({ key: "plain", partitioning: day(), run: rows("day") }),
    il.asset({
      key: "regions",
      partitioning: new il.ListPartitionConfig({ column: "region", values: ["eu", "us"] }),
      checks: unique(),
      run: rows("region"),
    }),
  ];
  const config = il.defineConfig({ sources: [il.source({ key: "shop", assets })({ destinations: new il.MemoryDestination() })] });
  session = await il.openProject(config);
  // Heard: the warnings are events here, not process warnings.
  session.on(() => {});
  await session.materialize({ selection: ["orders", "plain"], window: WINDOW, concurrency: 1 });
  await session.materialize({ selection: "regions", concurrency: 1 });
  const days = await session.coverage(["orders", "plain"], { window: WINDOW });
  orders = days[0]!;
  plain = days[1]!;
  regions = (await session.coverage("regions"))[0]!;
}, 60_000);

afterAll(async () => {
  await session.close();
  il.MemoryDestination.clear();
});

const mounted: Array<{ unmount(): void }> = [];
afterEach(() => {
  for (const app of mounted.splice(0)) app.unmount();
});

describe("the coverage computed for the views", () => {
  it("marks the days written with a failed warn check, with which, and counts them", () => {
    expect(orders.warnings).toBe(2);
    expect(orders.partitions.filter((p) => p.warnings).map((p) => [p.key, p.warnings, p.warningChecks])).toEqual([
      ["2026-01-03", 1, ["unique(id)"]],
      ["2026-01-05", 1, ["unique(id)"]],
    ]);
    expect(plain.warnings).toBe(0);
    expect(plain.partitions.some((p) => p.warnings !== undefined)).toBe(false);
    expect(regions.warnings).toBe(1);
  });
});

describe("the pictures", () => {
  it("the text form: the mark in the calendar, the legend, the count and the line naming the checks", () => {
    const cells = layoutCoverage(orders, 80).flatMap((b) => b.rows.flatMap((r) => r.cells));
    expect(
      cells
        .filter((c) => cellChar(c) === WARN_MARK)
        .map((c) => c.partition!.key)
        .sort(),
    ).toEqual(["2026-01-03", "2026-01-05"]);
    const text = coverageText(orders, 100).join("\n");
    expect(text).toContain(legend(100, false, false, false, false, true));
    expect(legend(100, false, false, false, false, true)).toContain(`${WARN_MARK} written with warnings`);
    expect(legend(60, false, false, false, false, true)).toContain(`${WARN_MARK} warnings`);
    expect(text).toContain("warnings 2");
    expect(text).toContain("warnings (failed warn checks when written): 2026-01-03 (unique(id)), 2026-01-05 (unique(id))");
    expect(coverageText(plain, 100).join("\n")).not.toContain(WARN_MARK);
  });

  it("a stale partition keeps its stale mark, whatever its checks said", () => {
    const both = { ...orders, partitions: orders.partitions.map((p) => (p.key === "2026-01-03" ? { ...p, stale: true as const } : p)) };
    const cells = layoutCoverage(both, 80).flatMap((b) => b.rows.flatMap((r) => r.cells));
    expect(cellChar(cells.find((c) => c.partition?.key === "2026-01-03")!)).toBe(STALE_MARK);
  });

  it("the list bars, the one-line summaries and their bars", () => {
    expect(listBars(regions, 80).find((l) => l.startsWith("us"))).toMatch(new RegExp(`^us\\s+█+ 2  ${WARN_MARK} warnings$`));
    expect(listBars(regions, 80).find((l) => l.startsWith("eu"))).not.toContain(WARN_MARK);
    expect(coverageBar(orders, 7)).toBe(`██${WARN_MARK}█${WARN_MARK}██`);
    const lines = summaryLines([orders, plain], 160);
    expect(lines.find((l) => l.startsWith("shop.orders"))).toMatch(/warnings 2$/);
    expect(lines.find((l) => l.startsWith("shop.plain"))).not.toContain("warnings");
  });

  it("the ink view draws the marks in bright yellow", () => {
    const app = render(<CoverageView coverage={orders} width={100} color={true} />);
    mounted.push(app);
    const frame = app.lastFrame() ?? "";
    // chalk's yellowBright is SGR 93.
    expect(frame).toMatch(new RegExp(`\u001b\\[93m[^\u001b]*${WARN_MARK}`));
  });

  it("the HTML report: the cell's class, fill and tooltip, and the legend", () => {
    const html = coverageHtml([orders, plain], new Date("2026-02-01T00:00:00Z"));
    expect(html).toMatch(
      /<rect class="partition materialized warned" data-key="2026-01-03"[^>]*fill="#c297ff"[^>]*><title>2026-01-03: 2 rows; written with failed warn checks: unique\(id\)<\/title>/,
    );
    expect(html).toContain("written with failed warn checks</p>");
    expect(coverageHtml([plain])).not.toContain("warned");
  });
});

describe("the explorer", () => {
  it("the cursor's line and the details name the failed checks of a day written with warnings", async () => {
    const app = render(
      <CoverageExplorer
        coverages={[orders]}
        width={100}
        height={40}
        color={false}
        place={{ asset: "shop.orders", key: "2026-01-03", filter: "" }}
        details={(asset, key) => session.partitionDetails(asset, key)}
        onExit={() => {}}
      />,
    );
    mounted.push(app);
    await vi.waitFor(() => expect(app.lastFrame() ?? "").toContain("q quit"), PATIENCE);
    expect(app.lastFrame()).toContain("shop.orders 2026-01-03: 2 rows; written with failed warn checks: unique(id)");
    // Enter: the details name the failed check under the destination whose record keeps it.
    app.stdin.write("\r");
    await vi.waitFor(() => expect(app.lastFrame()).toContain("checks   unique(id) failed (warn)"), PATIENCE);
  });
});
