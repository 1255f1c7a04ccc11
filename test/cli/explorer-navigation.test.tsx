// The coverage explorer's navigation (issue 32), rendered with ink-testing-library: every key of
// a burst is applied, every period of an asset can be reached (the picture scrolls to the
// cursor), PageUp/PageDown, Home/End and `g` jump, and at 60 x 20 everything fits.
import { render } from "ink-testing-library";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as il from "../../src/index.js";
import { computeCoverage, type Coverage } from "../../src/api/coverage/index.js";
import { CoverageExplorer } from "../../src/cli/explorer/explorer.js";
import { jump, steps } from "../../src/cli/explorer/explorer-state.js";
import type { ExplorerExit } from "../../src/cli/explorer/explorer-state.js";
import type { PartitionInDestination } from "../../src/api/coverage/partition-details.js";

const KEY = {
  left: "\u001b[D",
  down: "\u001b[B",
  pageUp: "\u001b[5~",
  pageDown: "\u001b[6~",
  home: "\u001b[H",
  end: "\u001b[F",
  enter: "\r",
};
const PATIENCE = { timeout: 15_000, interval: 20 };
const NOW = new Date("2026-03-05T10:30:00Z");
const HOUR_MS = 3_600_000;

function assetOf(key: string, partitioning: il.PartitionConfig): il.Asset {
  const definition = il.asset({ key, partitioning, run: () => [] });
  return il.source({ key: "shop", assets: [definition] })({ destinations: new il.MemoryDestination() }).assets[key]!;
}
const hourKey = (ms: number) => new Date(ms).toISOString().slice(0, 13);

// shop.hourly: every hour from 2026-02-01T00 to 2026-03-05T09 (33 days and 10 hours), but
// 2026-02-02T05..07 missing; 2026-03-05T10 in progress.
const hourly = assetOf(
  "hourly",
  new il.TimePartitionConfig({ column: "hour", start: "2026-02-01T00", granularity: il.TimeGranularity.HOUR }),
);
const hourCounts: Record<string, number> = {};
for (let t = Date.UTC(2026, 1, 1); t < Date.UTC(2026, 2, 5, 10); t += HOUR_MS) hourCounts[hourKey(t)] = 1;
for (const gap of ["2026-02-02T05", "2026-02-02T06", "2026-02-02T07"]) delete hourCounts[gap];
// shop.orders: days from 2025-12-15, 2026-03-01..03 missing.
const orders = assetOf("orders", new il.TimePartitionConfig({ column: "day", start: "2025-12-15" }));
const dayCounts: Record<string, number> = {};
for (let t = Date.UTC(2025, 11, 15); t < Date.UTC(2026, 2, 5); t += 24 * HOUR_MS) dayCounts[new Date(t).toISOString().slice(0, 10)] = 4;
for (const gap of ["2026-03-01", "2026-03-02", "2026-03-03"]) delete dayCounts[gap];
const regions = assetOf("regions", new il.ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"] }));
const coverages: Coverage[] = [
  computeCoverage(orders, dayCounts, { now: NOW }),
  computeCoverage(regions, { eu: 1, us: 2 }, { now: NOW }),
  computeCoverage(hourly, hourCounts, { now: NOW }),
];

const mounted: Array<{ unmount(): void }> = [];
afterEach(() => {
  for (const app of mounted.splice(0)) app.unmount();
});

const DETAILS: PartitionInDestination[] = [
  {
    destination: "warehouse (CSVDestination)",
    rows: 4,
    writtenAt: new Date("2026-03-04T08:00:00Z"),
    record: null,
    location: "/srv/data/warehouse/shop/orders/day=2026-03-04/data.csv",
  },
];

async function explore(size: { width: number; height: number }, first: Coverage[] = coverages) {
  const exits: ExplorerExit[] = [];
  const app = render(
    <CoverageExplorer coverages={first} {...size} color={false} details={async () => DETAILS} onExit={(e) => exits.push(e)} />,
  );
  mounted.push(app);
  const frame = () => app.lastFrame() ?? "";
  await vi.waitFor(() => expect(app.stdin.listenerCount("readable")).toBeGreaterThan(0), PATIENCE);
  await vi.waitFor(() => expect(frame()).toContain("q quit"), PATIENCE);
  /** Writes `chunk` as a terminal delivers it, then waits until the cursor's line says `expected`. */
  const send = async (chunk: string, expected: string | RegExp) => {
    app.stdin.write(chunk);
    await vi.waitFor(() => expect(cursorLine(frame())).toMatch(expected), PATIENCE);
  };
  return { app, frame, send, exits };
}

/** The line that says which partition the cursor is on. */
const cursorLine = (frame: string) => frame.split("\n").find((l) => /^shop\.\w+ \S+: /.test(l)) ?? "";

describe("coverage explorer navigation", () => {
  it("applies every key of a burst: five ← in one chunk move five hours, 150 sent in quick chunks 150 more, a typed key in one chunk jumps", async () => {
    const { app, send } = await explore({ width: 100, height: 40 });
    await send(KEY.down.repeat(2), /^shop\.hourly 2026-03-05T10: in progress/);
    await send(KEY.left.repeat(5), /^shop\.hourly 2026-03-05T05: 1 row$/);
    // 150 more, as 30 chunks of 5 written one after the other, none waiting for a frame.
    const target = hourKey(Date.UTC(2026, 2, 5, 5) - 150 * HOUR_MS);
    for (let i = 0; i < 29; i++) app.stdin.write(KEY.left.repeat(5));
    await send(KEY.left.repeat(5), new RegExp(`^shop\\.hourly ${target}: 1 row$`));
    await send("g2026-02-02T06\r", /^shop\.hourly 2026-02-02T06: missing; m materializes 2026-02-02T05\.\.2026-02-02T07$/);
  });
});

describe("coverage explorer periods", () => {
  it("reaches every day of an hourly asset: the picture scrolls to the cursor; PgUp/PgDn move a day, Home/End to the ends", async () => {
    const { frame, send } = await explore({ width: 100, height: 30 });
    await send(KEY.down.repeat(2), /^shop\.hourly 2026-03-05T10: in progress/);
    const rowOf = (day: string) =>
      frame()
        .split("\n")
        .find((l) => l.startsWith(`${day} `));
    expect(rowOf("2026-03-05")).toBeDefined();
    expect(rowOf("2026-02-01")).toBeUndefined();
    expect(frame()).toMatch(/\(days \d+-33 of 33 \(2026-\d\d-\d\d\.\.2026-03-05\)\)/);
    await send(KEY.pageUp, /^shop\.hourly 2026-03-04T10: 1 row$/);
    await send(KEY.home, /^shop\.hourly 2026-02-01T00: 1 row$/);
    expect(rowOf("2026-02-01")).toBeDefined();
    expect(rowOf("2026-03-05")).toBeUndefined();
    expect(frame()).toMatch(/\(days 1-\d+ of 33 \(2026-02-01\.\.2026-02-\d\d\)\)/);
    // The gap the summary names is on the screen and under the cursor, a day and five hours on.
    expect(frame()).toContain("missing 2026-02-02T05..2026-02-02T07");
    await send(KEY.pageDown, /^shop\.hourly 2026-02-02T00: 1 row$/);
    await send("\u001b[C".repeat(5), /^shop\.hourly 2026-02-02T05: missing; m materializes 2026-02-02T05\.\.2026-02-02T07$/);
    await send(KEY.end, /^shop\.hourly 2026-03-05T10: in progress/);
  });

  it("g goes to a key or the first one it starts: a day asset's month; a key it has not, said in a line", async () => {
    const { app, frame, send } = await explore({ width: 100, height: 40 });
    await send("g2026-01\r", /^shop\.orders 2026-01-01: 4 rows$/);
    await send(KEY.pageUp, /^shop\.orders 2025-12-15: 4 rows$/);
    app.stdin.write("g2027\r");
    await vi.waitFor(() => expect(frame()).toContain('no partition of shop.orders matches "2027"'), PATIENCE);
    expect(cursorLine(frame())).toBe("shop.orders 2025-12-15: 4 rows");
  });

  it("fits 60 x 20: list, calendar, the cursor's line whole and the keys stay on the screen with the details open", async () => {
    const { frame, send, app } = await explore({ width: 60, height: 20 });
    await send(KEY.left.repeat(2), /^shop\.orders 2026-03-03: missing;$/);
    app.stdin.write(KEY.enter);
    await vi.waitFor(() => expect(frame()).toContain("written  2026-03-04 08:00:00 UTC"), PATIENCE);
    const fits = (text: string, asset: string) => {
      const lines = text.split("\n");
      expect(lines.length, text).toBeLessThanOrEqual(19);
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(60);
      expect(lines[0]).toBe("coverage explorer: 3 assets");
      expect(lines.some((l) => l.startsWith(`› ${asset}`))).toBe(true);
      expect(lines.at(-1)).toMatch(/q quit$/);
      return lines;
    };
    const lines = fits(frame(), "shop.orders");
    expect(lines).toContain("  m materializes 2026-03-01..2026-03-03");
    expect(
      lines.some((l) => /^2026 H1/.test(l)),
      lines.join("\n"),
    ).toBe(true);
    expect(lines.join("").replace(/[│\s]/g, "")).toContain("/srv/data/warehouse/shop/orders/day=2026-03-04/data.csv");
    // The hourly asset, its details open: the same.
    await send(KEY.down.repeat(2), /^shop\.hourly 2026-03-05T10: /);
    app.stdin.write(KEY.enter);
    await vi.waitFor(() => expect(frame()).toContain("written "), PATIENCE);
    expect(fits(frame(), "shop.hourly").some((l) => l.startsWith("hours (UTC)"))).toBe(true);
  });
});

describe("jump", () => {
  it("moves a day asset by a month, to the month's last day when it is shorter", () => {
    const days = coverages[0]!;
    const path = steps(days);
    const at = (key: string) => path.findIndex((p) => p.key === key);
    expect(path[jump(days, path, at("2026-01-31"), 1)]!.key).toBe("2026-02-28");
    expect(path[jump(days, path, at("2026-03-04"), -1)]!.key).toBe("2026-02-04");
    expect(path[jump(days, path, at("2026-01-05"), -1)]!.key).toBe("2025-12-15");
    expect(path[jump(days, path, at("2026-02-20"), 1)]!.key).toBe("2026-03-05");
  });
});
