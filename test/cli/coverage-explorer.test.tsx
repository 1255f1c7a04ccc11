// The interactive coverage explorer (issue 22), rendered with ink-testing-library: keys in,
// frames out. Its partition details come from a real memory destination; `m` and `q` are
// checked through what the explorer asks its caller to do.
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { render } from "ink-testing-library";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as il from "../../src/index.js";
import { computeCoverage, type Coverage } from "../../src/api/coverage/index.js";
import { assetWindow } from "../../src/api/scope.js";
import { CoverageExplorer } from "../../src/cli/explorer/explorer.js";
import type { ExplorerExit } from "../../src/cli/explorer/explorer-state.js";
import { partitionDetails, type PartitionInDestination } from "../../src/api/coverage/partition-details.js";

const KEY = { up: "\u001b[A", down: "\u001b[B", right: "\u001b[C", left: "\u001b[D", enter: "\r", escape: "\u001b" };
// How long a frame may take on a busy machine (a bound, not a measure).
const PATIENCE = { timeout: 15_000, interval: 20 };
const NOW = new Date("2026-03-11T10:00:00Z");
/** The end of the keys' help: once it shows, the explorer reads keys. */
const KEYS_HELP = "q quit";

function assetOf(key: string, partitioning: il.PartitionConfig): il.Asset {
  const definition = il.asset({ key, partitioning, run: () => [] });
  return il.source({ key: "shop", assets: [definition] })({ destinations: new il.MemoryDestination() }).assets[key]!;
}

// shop.orders: days 2026-03-01..2026-03-10, 03-04..03-06 missing, 03-08 empty; 03-11 in progress.
const orders = assetOf("orders", new il.TimePartitionConfig({ column: "day", start: "2026-03-01" }));
const ordersCounts: Record<string, number> = {
  "2026-03-01": 3,
  "2026-03-02": 4,
  "2026-03-03": 5,
  "2026-03-07": 6,
  "2026-03-08": 0,
  "2026-03-09": 1,
  "2026-03-10": 2,
};
const regions = assetOf("regions", new il.ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"] }));
const coverages: Coverage[] = [
  computeCoverage(orders, ordersCounts, { now: NOW }),
  computeCoverage(regions, { eu: 1, us: 2 }, { now: NOW }),
];

const mounted: Array<{ unmount(): void }> = [];
afterEach(() => {
  for (const app of mounted.splice(0)) app.unmount();
});

/** Resolves once ink listens to the keyboard (its listener is added after the first render). */
const listening = (stdin: NodeJS.EventEmitter) => vi.waitFor(() => expect(stdin.listenerCount("readable")).toBeGreaterThan(0), PATIENCE);

async function explore(details: (asset: string, key: string) => Promise<PartitionInDestination[]> = async () => []) {
  const exits: ExplorerExit[] = [];
  const app = render(
    <CoverageExplorer coverages={coverages} width={100} height={40} color={false} details={details} onExit={(e) => exits.push(e)} />,
  );
  mounted.push(app);
  const frame = () => app.lastFrame() ?? "";
  await listening(app.stdin);
  await vi.waitFor(() => expect(frame()).toContain(KEYS_HELP), PATIENCE);
  /** Sends keys one at a time, each once the frame has taken the one before. */
  const press = async (...keys: string[]) => {
    for (const key of keys) {
      const drawn = app.frames.length;
      app.stdin.write(key);
      await vi.waitFor(() => expect(app.frames.length).toBeGreaterThan(drawn), PATIENCE);
    }
  };
  return { app, frame, press, exits };
}

/** The line that says which partition the cursor is on. */
const cursorLine = (frame: string) => frame.split("\n").find((l) => /^shop\.\w+ \S+: /.test(l)) ?? "";

describe("coverage explorer", () => {
  it("opens on the first asset with every asset's summary, its calendar, the cursor on the last period and the keys", async () => {
    const { frame } = await explore();
    const text = frame();
    expect(text).toContain("coverage explorer: 2 assets");
    expect(text).toMatch(/› shop\.orders .* 7\/10 +21 rows +missing 2026-03-04\.\.2026-03-06/);
    expect(text).toMatch(/ {2}shop\.regions .* 2\/3 +3 rows +missing apac/);
    expect(text).toContain("Mar");
    expect(cursorLine(text)).toBe("shop.orders 2026-03-11: in progress, nothing stored so far");
    expect(text).toContain(KEYS_HELP);
  });

  it("← and → move between periods, ↑ and ↓ between assets", async () => {
    const { frame, press } = await explore();
    await press(KEY.left);
    expect(cursorLine(frame())).toBe("shop.orders 2026-03-10: 2 rows");
    await press(KEY.left, KEY.left, KEY.left);
    expect(cursorLine(frame())).toBe("shop.orders 2026-03-07: 6 rows");
    await press(KEY.left);
    expect(cursorLine(frame())).toBe("shop.orders 2026-03-06: missing; m materializes 2026-03-04..2026-03-06");
    await press(KEY.right, KEY.right);
    expect(cursorLine(frame())).toBe("shop.orders 2026-03-08: empty (0 rows)");
    await press(KEY.down);
    expect(frame()).toMatch(/› shop\.regions/);
    expect(cursorLine(frame())).toBe("shop.regions apac: missing; m materializes apac");
    await press(KEY.left);
    expect(cursorLine(frame())).toBe("shop.regions us: 2 rows");
    await press(KEY.up);
    expect(frame()).toMatch(/› shop\.orders/);
  });

  it("enter opens the partition's rows, time written and file per destination", async () => {
    const folder = await mkdtemp(join(tmpdir(), "interloper-explorer-"));
    try {
      const definition = il.asset({
        key: "orders",
        partitioning: new il.TimePartitionConfig({ column: "day", start: "2026-03-01" }),
        run: (ctx) => [
          { day: ctx.partition!.key, n: 1 },
          { day: ctx.partition!.key, n: 2 },
        ],
      });
      const csv = il.source({ key: "shop", assets: [definition] })({ destinations: new il.CSVDestination({ basePath: folder }) }).assets[
        "orders"
      ]!;
      await csv.materialize(assetWindow(csv, "2026-03-10"));
      const asked: string[] = [];
      const { frame, press } = await explore(async (asset, key) => {
        asked.push(`${asset} ${key}`);
        return partitionDetails(csv, key);
      });
      await press(KEY.left, KEY.enter);
      await vi.waitFor(() => expect(frame()).toContain("written "), PATIENCE);
      expect(asked).toEqual(["shop.orders 2026-03-10"]);
      const written = (await stat(join(folder, "shop", "orders", "day=2026-03-10", "data.csv"))).mtime;
      expect(frame()).toMatch(/rows +2\b/);
      expect(frame()).toContain(`written  ${written.toISOString().replace("T", " ").slice(0, 19)} UTC`);
      expect(frame().replace(/[│\s]+/g, "")).toContain(join(folder, "shop", "orders", "day=2026-03-10", "data.csv").replace(/\s+/g, ""));
      // A partition no destination holds: "missing here", never written.
      await press(KEY.left, KEY.left, KEY.left, KEY.left, KEY.enter);
      await vi.waitFor(() => expect(frame()).toContain("missing here"), PATIENCE);
      expect(frame()).toMatch(/written +never/);
      // Moving on closes the details.
      await press(KEY.left);
      expect(frame()).not.toContain("written ");
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("m on a missing partition asks for its whole missing run; on another, for that partition", async () => {
    const first = await explore();
    await first.press(KEY.left, KEY.left, KEY.left, KEY.left, KEY.left, "m");
    expect(first.exits).toEqual([
      {
        kind: "materialize",
        asset: "shop.orders",
        window: "2026-03-04..2026-03-06",
        place: { asset: "shop.orders", key: "2026-03-06", filter: "" },
      },
    ]);
    const second = await explore();
    await second.press(KEY.left, "m");
    expect(second.exits).toEqual([
      { kind: "materialize", asset: "shop.orders", window: "2026-03-10", place: { asset: "shop.orders", key: "2026-03-10", filter: "" } },
    ]);
  });

  it("/ filters the assets by key; esc clears the filter", async () => {
    const { frame, press } = await explore();
    await press("/", "r", "e", "g");
    expect(frame()).toContain('coverage explorer: 1 asset matching "reg"');
    expect(frame()).not.toContain("shop.orders");
    expect(frame()).toMatch(/› shop\.regions/);
    await press(KEY.enter);
    expect(frame()).toContain(KEYS_HELP);
    await press("/", KEY.escape);
    expect(frame()).toContain("coverage explorer: 2 assets");
  });

  it("opens where it was told, with a message, and q quits", async () => {
    const exits: ExplorerExit[] = [];
    const app = render(
      <CoverageExplorer
        coverages={coverages}
        width={100}
        height={40}
        color={false}
        place={{ asset: "shop.regions", key: "eu", filter: "" }}
        message="materialize shop.regions -w apac: done"
        details={async () => []}
        onExit={(e) => exits.push(e)}
      />,
    );
    mounted.push(app);
    expect(app.lastFrame()).toContain("materialize shop.regions -w apac: done");
    expect(cursorLine(app.lastFrame()!)).toBe("shop.regions eu: 1 row");
    await listening(app.stdin);
    app.stdin.write("q");
    await vi.waitFor(() => expect(exits).toEqual([{ kind: "quit" }]), PATIENCE);
  });
});
