// Stale partitions in every coverage picture (issue 34): the text form (pipes, CI), the ink view
// without colour (NO_COLOR), the one-line summaries, list bars, the explorer's cursor line and
// details, and the HTML report. The coverage comes from real runs into the memory destination:
// orders and revenue materialized, then some days of orders again, so those days of revenue
// are stale.
import { render } from "ink-testing-library";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as il from "../../src/index.js";
import type { Coverage, Session } from "../../src/api/session/index.js";
import { CoverageExplorer } from "../../src/cli/explorer/explorer.js";
import { cellChar, coverageBar, layoutCoverage, STALE_MARK } from "../../src/cli/views/coverage-layout.js";
import { coverageText, legend, listBars } from "../../src/cli/views/coverage-text.js";
import { summaryLines } from "../../src/cli/views/coverage-summary.js";
import { CoverageView } from "../../src/cli/views/coverage-view.js";
import { printableCoverage } from "../../src/cli/views/printable-coverage.js";
import { coverageHtml } from "../../src/cli/report/coverage-html.js";

const PATIENCE = { timeout: 15_000, interval: 20 };
const KEY = { left: "\u001b[D", down: "\u001b[B", enter: "\r" };
const ANSI = "\u001b[";
const WINDOW = "2026-01-01..2026-01-31";
const AGAIN = /^shop\.orders 2026-01-(0[56]|20) was materialized again at 2026-\d\d-\d\d \d\d:\d\d:\d\d UTC$/;

const day = () => new il.TimePartitionConfig({ column: "day", start: "2026-01-01" });
const regionList = () => new il.ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"] });
const rows = (column: string) => (ctx: il.ExecutionContext) => [{ [column]: ctx.partition!.key }];

function project() {
  const assets = [
    il.asset({ key: "orders", partitioning: day(), run: rows("day") }),
    il.asset({ key: "revenue", partitioning: day(), requires: { orders: "orders" }, run: rows("day") }),
    il.asset({ key: "regions", partitioning: regionList(), run: rows("region") }),
    il.asset({ key: "by_region", partitioning: regionList(), requires: { regions: "regions" }, run: rows("region") }),
  ];
  return il.defineConfig({ sources: [il.source({ key: "shop", assets })({ destinations: new il.MemoryDestination() })] });
}

let session: Session;
let revenue: Coverage;
let orders: Coverage;
let byRegion: Coverage;

beforeAll(async () => {
  il.MemoryDestination.clear();
  session = await il.openProject(project());
  await session.materialize({ selection: "orders+", window: WINDOW, concurrency: 1 });
  await session.materialize({ selection: "orders", window: "2026-01-05..2026-01-06" });
  await session.materialize({ selection: "orders", partition: "2026-01-20" });
  await session.materialize({ selection: "regions+", window: "eu..us", concurrency: 1 });
  await session.materialize({ selection: "regions", partition: "us" });
  const days = await session.coverage(["orders", "revenue"], { window: WINDOW });
  orders = days[0]!;
  revenue = days[1]!;
  byRegion = (await session.coverage(["by_region"]))[0]!;
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
  it("marks revenue's three re-read days stale, with why", () => {
    expect(revenue.stale).toBe(3);
    expect(revenue.staleRanges).toEqual(["2026-01-05..2026-01-06", "2026-01-20"]);
    for (const p of revenue.partitions.filter((p) => p.stale)) expect(p.staleReasons![0]).toMatch(AGAIN);
    expect(orders.stale).toBe(0);
    expect(byRegion.staleRanges).toEqual(["us"]);
  });
});

describe("the text form (pipes, CI)", () => {
  it.each([40, 80, 120])(
    "at width %i: the stale mark in the calendar, the legend, the counts and the ranges with their reasons",
    (width) => {
      const lines = coverageText(revenue, width);
      for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(width);
      const text = lines.join("\n");
      const cells = layoutCoverage(revenue, width).flatMap((b) => b.rows.flatMap((r) => r.cells));
      const marked = cells.filter((c) => cellChar(c) === STALE_MARK).map((c) => c.partition!.key);
      expect(marked).toEqual(["2026-01-05", "2026-01-06", "2026-01-20"].sort((a, b) => order(cells, a) - order(cells, b)));
      expect(text).toContain(legend(width, false, false, false, true));
      expect(legend(width, false, false, false, true)).toContain(`${STALE_MARK} stale`);
      expect(text).toContain("stale 3");
      const joined = lines.map((l) => l.trim()).join(" ");
      expect(joined).toContain("2026-01-05..2026-01-06, 2026-01-20");
      expect(joined).toMatch(/2026-01-05: shop\.orders 2026-01-05 was materialized again at 2026-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
      expect(text).not.toContain(ANSI);
    },
  );

  it("an asset with nothing stale has no stale mark, word or legend entry", () => {
    const text = coverageText(orders, 100).join("\n");
    expect(text).not.toContain(STALE_MARK);
    expect(text).not.toContain("stale");
  });

  it("a list asset: the stale value's bar says so", () => {
    const bars = listBars(byRegion, 80);
    expect(bars.find((l) => l.startsWith("us"))).toMatch(new RegExp(`^us\\s+█+ 1  ${STALE_MARK} stale$`));
    expect(bars.find((l) => l.startsWith("eu"))).not.toContain(STALE_MARK);
    expect(coverageText(byRegion, 80).join("\n")).toContain(`${STALE_MARK} stale`);
  });
});

/** A cell's place in the calendar's reading order (row by row), to compare with what is drawn. */
function order(cells: ReturnType<typeof layoutCoverage>[number]["rows"][number]["cells"], key: string): number {
  return cells.findIndex((c) => c.partition?.key === key);
}

describe("printable coverage", () => {
  it("shows a reason's control characters as escapes (reasons name keys and destinations: anyone's text)", () => {
    const key = "2026-01-05";
    const marked = {
      ...revenue,
      staleRanges: ["2026-01-05\u001b[2J"],
      partitions: revenue.partitions.map((p) => (p.key === key ? { ...p, staleReasons: ["shop.orders \u001b]0;title\u0007 changed"] } : p)),
    };
    const shown = printableCoverage(marked);
    expect(shown.partitions.find((p) => p.key === key)!.staleReasons).toEqual(["shop.orders \\x1b]0;title\\x07 changed"]);
    expect(shown.staleRanges).toEqual(["2026-01-05\\x1b[2J"]);
    expect(coverageText(shown, 100).join("\n")).not.toContain("\u001b");
  });
});

describe("the one-line summaries", () => {
  it("say how many are stale and where, after what is missing; the bar marks them", () => {
    const lines = summaryLines([orders, revenue, byRegion], 160);
    expect(lines.find((l) => l.startsWith("shop.revenue"))).toMatch(/31\/31 +31 rows +stale 3: 2026-01-05\.\.2026-01-06, 2026-01-20$/);
    expect(lines.find((l) => l.startsWith("shop.by_region"))).toMatch(/2\/3 +2 rows +missing apac; stale 1: us$/);
    expect(lines.find((l) => l.startsWith("shop.orders"))).not.toContain("stale");
    // One character per partition: the stale days are marked, the others full.
    expect(coverageBar(revenue, 31)).toBe([...Array(31)].map((_, i) => ([4, 5, 19].includes(i) ? STALE_MARK : "█")).join(""));
    expect(coverageBar(orders, 31)).not.toContain(STALE_MARK);
  });

  it("wrap under the bar at a narrow width, every range whole", () => {
    const lines = summaryLines([revenue], 50);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(50);
    expect(lines.join(" ")).toContain("stale 3: 2026-01-05..2026-01-06,");
    expect(lines.join(" ")).toContain("2026-01-20");
  });
});

describe("the ink view", () => {
  const show = (coverage: Coverage, color: boolean) => {
    const app = render(<CoverageView coverage={coverage} width={100} color={color} />);
    mounted.push(app);
    return app.lastFrame() ?? "";
  };

  it("without colour (NO_COLOR): the same marks, legend and facts as the text form, no escape", () => {
    const frame = show(revenue, false);
    expect(frame).not.toContain(ANSI);
    expect(frame).toContain(legend(100, false, false, false, true));
    for (const line of coverageText(revenue, 100).filter((l) => l.includes(STALE_MARK) || l.startsWith("stale")))
      expect(frame).toContain(line.trimEnd());
  });
});

describe("the explorer", () => {
  it("the cursor on a stale day: its line says why; enter opens the details with every reason whole", async () => {
    const asked: string[] = [];
    const app = render(
      <CoverageExplorer
        coverages={[revenue, byRegion]}
        width={90}
        height={40}
        color={false}
        place={{ asset: "shop.revenue", key: "2026-01-21", filter: "" }}
        details={async (asset, key) => {
          asked.push(`${asset} ${key}`);
          return session.partitionDetails(asset, key);
        }}
        onExit={() => {}}
      />,
    );
    mounted.push(app);
    const frame = () => app.lastFrame() ?? "";
    const cursorLine = () =>
      frame()
        .split("\n")
        .find((l) => /^shop\.\w+ \S+: /.test(l)) ?? "";
    await vi.waitFor(() => expect(app.stdin.listenerCount("readable")).toBeGreaterThan(0), PATIENCE);
    await vi.waitFor(() => expect(frame()).toContain("q quit"), PATIENCE);
    expect(cursorLine()).toBe("shop.revenue 2026-01-21: 1 row");
    expect(frame()).toContain(STALE_MARK);
    const press = async (key: string, until: () => void) => {
      app.stdin.write(key);
      await vi.waitFor(until, PATIENCE);
    };
    await press(KEY.left, () =>
      expect(cursorLine()).toMatch(/^shop\.revenue 2026-01-20: 1 row; stale: shop\.orders 2026-01-20 was materialized again/),
    );
    await press(KEY.enter, () => expect(frame()).toContain("rows     1"));
    expect(asked).toEqual(["shop.revenue 2026-01-20"]);
    const panel = frame()
      .split("\n")
      .map((l) => l.replace(/^[│╭╰\s]+|[│╮╯\s]+$/g, ""));
    expect(panel).toContain("stale: out of date since it was written");
    const reason = panel.filter((l) => l.startsWith("- ") || /^\S/.test(l) === false);
    expect(reason.join(" ")).toMatch(/- shop\.orders 2026-01-20 was materialized again at 2026-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    // A fresh partition: no stale section.
    await press(KEY.left, () => expect(cursorLine()).toBe("shop.revenue 2026-01-19: 1 row"));
    await press(KEY.enter, () => expect(frame()).toContain("rows     1"));
    expect(frame()).not.toContain("stale: out of date");
    // A list asset's stale value.
    await press(KEY.down, () => expect(frame()).toMatch(/› shop\.by_region/));
    await vi.waitFor(() => expect(frame()).toMatch(/us +▲ 1 row; stale: shop\.regions us was materialized again/), PATIENCE);
  });

  it("details in a short terminal keep to their height, the reasons cut with a note", async () => {
    const { detailLines } = await import("../../src/cli/explorer/explorer-layout.js");
    const reasons = ["first reason ".repeat(20).trim(), "second reason ".repeat(20).trim()];
    const details = { key: "2026-01-20", state: "ready" as const, rows: [] };
    const whole = detailLines(details, 60, 40, reasons);
    expect(whole[0]).toBe("stale: out of date since it was written");
    expect(whole.join(" ")).toContain("second reason second reason");
    for (const line of whole) expect(line.length).toBeLessThanOrEqual(56);
    const cut = detailLines(details, 60, 8, reasons);
    expect(cut.length).toBeLessThanOrEqual(3);
    expect(cut.at(-1)).toContain("a taller terminal shows every reason");
  });
});

describe("the explorer's details of a destination keeping records", () => {
  it("say when the write ended and which run or backfill made it", async () => {
    const { detailLines } = await import("../../src/cli/explorer/explorer-layout.js");
    const record = {
      id: "9f8e7d6c-0000",
      asset: "shop.orders",
      partition: "2026-01-20",
      runId: "1a2b3c4d-run",
      backfillId: null,
      startedAt: "2026-01-21T06:00:00.000Z",
      endedAt: "2026-01-21T06:00:02.000Z",
      rows: 3,
      codeVersion: null,
      interloperVersion: "0.1.0",
      upstream: [],
    };
    const row = { destination: "warehouse", rows: 3, writtenAt: new Date(record.endedAt), record, location: "/data/x.csv" };
    const lines = detailLines({ key: "2026-01-20", state: "ready", rows: [row] }, 80, 20);
    expect(lines.join("\n")).toContain("written  2026-01-21 06:00:02 UTC by run 1a2b3c4d");
    const backfilled = detailLines(
      { key: "2026-01-20", state: "ready", rows: [{ ...row, record: { ...record, backfillId: "bf00aa11-x" } }] },
      80,
      20,
    );
    expect(backfilled.join("\n")).toContain("by backfill bf00aa11");
  });
});

describe("the HTML report", () => {
  it("draws stale cells in their own colour with their reasons; the legend and the overview count them", () => {
    const html = coverageHtml([orders, revenue, byRegion], new Date("2026-02-01T00:00:00Z"));
    const stale = [...html.matchAll(/<rect class="partition materialized stale" data-key="([^"]*)"[^>]*data-stale-reasons="([^"]*)"/g)];
    expect(stale.map((m) => m[1])).toEqual(["2026-01-05", "2026-01-06", "2026-01-20", "us"]);
    expect(stale[0]![2]).toMatch(/^shop\.orders 2026-01-05 was materialized again at /);
    expect(html).toMatch(/<title>2026-01-05: 1 row; stale: shop\.orders 2026-01-05 was materialized again at [^<]+<\/title>/);
    expect(html).toContain("stale (stored, out of date)");
    expect(html).toMatch(/<tr data-asset="shop\.revenue" class="has-stale">.*<td class="num stale">3<\/td>/);
    expect(html).toMatch(/<tr data-asset="shop\.orders"><th.*<td class="num stale">0<\/td>/);
    // Without a stale partition, no stale swatch.
    expect(coverageHtml([orders])).not.toContain("stale-swatch");
  });
});
