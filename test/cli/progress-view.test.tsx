// The ink progress view of `interloper materialize`, rendered with ink-testing-library and fed
// by a RunTracker folding a realistic sequence of runner events.
import { render } from "ink-testing-library";
import { afterEach, describe, expect, it, vi } from "vitest";

// Colours on, as in a terminal, so that "no escapes with color=false" means something: ink's
// chalk reads FORCE_COLOR when it is first imported, which vi.hoisted runs before.
vi.hoisted(() => {
  process.env["FORCE_COLOR"] = "1";
});
import { RunTracker } from "../../src/cli/reporters/tracker.js";
import { ProgressView, type ProgressFeed } from "../../src/cli/views/progress-view.js";
import type { InterloperEvent } from "../../src/runner/events.js";

/** A feed like InkReporter's: events go to the tracker, then the view is told. */
class Feed implements ProgressFeed {
  readonly tracker: RunTracker;
  private readonly listeners = new Set<() => void>();

  constructor(mode: "run" | "backfill", logLevel: "info" | "warn" = "warn") {
    this.tracker = new RunTracker(mode, logLevel);
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  send(...events: InterloperEvent[]): void {
    for (const event of events) this.tracker.apply(event);
    for (const listener of this.listeners) listener();
  }
}

const time = "2026-02-01T10:00:00.000Z";
const backfillId = "bf-1";
const window = "2026-01-01..2026-01-04";
const runId = (partition: string) => `run-${partition}`;
/** What every event of a backfill's run of a partition carries. */
const ofPartition = (partition: string) => ({ time, runId: runId(partition), backfillId, partition });

const backfillStarted: InterloperEvent = {
  type: "backfill:started",
  time,
  backfillId,
  runId: backfillId,
  window,
  order: "newest",
  partitions: ["2026-01-04", "2026-01-03", "2026-01-02", "2026-01-01"],
};
const runStarted = (partition: string): InterloperEvent => ({
  type: "run:started",
  ...ofPartition(partition),
  assets: ["shop.orders"],
});
const assetStarted = (partition: string): InterloperEvent => ({
  type: "asset:started",
  ...ofPartition(partition),
  asset: "shop.orders",
});
const assetCompleted = (partition: string, rows: number): InterloperEvent => ({
  type: "asset:completed",
  ...ofPartition(partition),
  asset: "shop.orders",
  rows,
  durationMs: 1500,
});
const runCompleted = (partition: string): InterloperEvent => ({
  type: "run:completed",
  ...ofPartition(partition),
  durationMs: 1600,
  completed: ["shop.orders"],
  failed: [],
  canceled: [],
});
const assetFailed = (partition: string, message: string): InterloperEvent => ({
  type: "asset:failed",
  ...ofPartition(partition),
  asset: "shop.orders",
  error: { name: "Error", message },
  durationMs: 20,
});
const runFailed = (partition: string): InterloperEvent => ({
  type: "run:failed",
  ...ofPartition(partition),
  durationMs: 25,
  completed: [],
  failed: ["shop.orders"],
  canceled: [],
});
const assetCanceled = (partition: string, asset: string, reason: string): InterloperEvent => ({
  type: "asset:canceled",
  ...ofPartition(partition),
  asset,
  reason,
});
const runCanceled = (partition: string, completed: string[], canceled: string[]): InterloperEvent => ({
  type: "run:canceled",
  ...ofPartition(partition),
  durationMs: 40,
  completed,
  failed: [],
  canceled,
});

/** The events of a single run (no backfill) of 2026-01-05. */
const single = { time, runId: "run-1", partition: "2026-01-05" };
const one = {
  runStarted: (...assets: string[]): InterloperEvent => ({ ...single, type: "run:started", assets }),
  assetStarted: (asset: string): InterloperEvent => ({ ...single, type: "asset:started", asset }),
  assetCompleted: (asset: string, rows: number, durationMs: number): InterloperEvent => ({
    ...single,
    type: "asset:completed",
    asset,
    rows,
    durationMs,
  }),
  assetFailed: (asset: string, message: string): InterloperEvent => ({
    ...single,
    type: "asset:failed",
    asset,
    error: { name: "Error", message },
    durationMs: 3,
  }),
  assetCanceled: (asset: string, reason: string): InterloperEvent => ({ ...single, type: "asset:canceled", asset, reason }),
  log: (asset: string, level: "info" | "warn", message: string): InterloperEvent => ({ ...single, type: "log", asset, level, message }),
};

const ANSI = /\u001b\[/;
const mounted: { unmount(): void }[] = [];
afterEach(() => {
  for (const app of mounted.splice(0)) app.unmount();
});

/** A feed of a run or a backfill, and the view it drives, rendered (colourless unless told). */
function show(mode: "run" | "backfill", { color = false, logLevel = "warn" }: { color?: boolean; logLevel?: "info" | "warn" } = {}) {
  const feed = new Feed(mode, logLevel);
  const app = render(view(feed, color));
  mounted.push(app);
  return { feed, app };
}

function view(feed: Feed, color: boolean, closing: readonly string[] | null = null) {
  return <ProgressView feed={feed} title={`Backfilling shop.orders for ${window}`} color={color} closing={closing} />;
}

/**
 * What the screen shows: the lines printed above the frame, then the last frame. The view writes
 * printed lines straight to the terminal, each batch ending in a line feed; ink-testing-library
 * records each as a frame of its own, where ink's frames never end in one (and, in its debug
 * mode, does not draw the frame again after them, as it does on a terminal).
 */
function screen(app: ReturnType<typeof render>): string {
  const printed = app.frames.filter((f) => f.endsWith("\n"));
  return printed.join("") + (app.frames.filter((f) => !f.endsWith("\n")).at(-1) ?? "");
}

/** The screen once it contains every text (renders after a state change are asynchronous). */
async function frameWith(app: ReturnType<typeof render>, ...texts: string[]): Promise<string> {
  await vi.waitFor(() => {
    const frame = screen(app);
    for (const text of texts) expect(frame).toContain(text);
  });
  return screen(app);
}

describe("ProgressView", () => {
  it("shows done/total, the percentage, rows, failures with ✗ and their message, and the running partitions", async () => {
    const { feed, app } = show("backfill");
    expect(app.lastFrame()).toContain(`Backfilling shop.orders for ${window}`);
    // Before the runner said how many partitions there are: no "0/0 0%".
    expect(app.lastFrame()).toContain("starting…");
    expect(app.lastFrame()).not.toContain("0/0");

    feed.send(
      backfillStarted,
      runStarted("2026-01-04"),
      assetStarted("2026-01-04"),
      runStarted("2026-01-03"),
      assetStarted("2026-01-03"),
      runStarted("2026-01-02"),
      assetStarted("2026-01-02"),
    );
    let frame = await frameWith(app, "0/4", "running 2026-01-04", "running 2026-01-03", "running 2026-01-02");
    expect(frame).toContain("0%");

    feed.send(assetCompleted("2026-01-04", 1200), runCompleted("2026-01-04"));
    feed.send(assetFailed("2026-01-03", 'asset "shop.orders" failed for 2026-01-03: orders feed unavailable'), runFailed("2026-01-03"));
    feed.send(runStarted("2026-01-01"), assetStarted("2026-01-01"));
    frame = await frameWith(app, "2/4", "50%", "1,200 rows", "✗", "1 failed");
    expect(frame).toMatch(/✓ 2026-01-04 +1,200 rows/);
    expect(frame).toMatch(/✗ 2026-01-03 +shop\.orders: asset "shop\.orders" failed for 2026-01-03: orders feed unavailable/);
    expect(frame).toContain("running 2026-01-02");
    expect(frame).toContain("running 2026-01-01");
    expect(frame).not.toContain("running 2026-01-04");
    expect(frame).not.toContain("running 2026-01-03");

    feed.send(assetCompleted("2026-01-02", 800), runCompleted("2026-01-02"), assetCompleted("2026-01-01", 34), runCompleted("2026-01-01"));
    frame = await frameWith(app, "4/4", "100%", "2,034 rows");
    expect(frame).not.toContain("running ");
    expect(frame).toMatch(/✓ 2026-01-02 +800 rows/);
    expect(frame).toMatch(/✓ 2026-01-01 +34 rows/);
    expect(frame).toContain("1 failed");
    expect(frame).not.toContain("ETA"); // nothing left
  });

  it("draws a bar that fills with the share done", async () => {
    const { feed, app } = show("backfill");
    feed.send(backfillStarted, runStarted("2026-01-04"), assetCompleted("2026-01-04", 5), runCompleted("2026-01-04"));
    const frame = await frameWith(app, "1/4", "25%");
    const bar = frame.split("\n").find((line) => line.includes("1/4"))!;
    const filled = [...bar].filter((c) => c === "█").length;
    const empty = [...bar].filter((c) => c === "░").length;
    expect(filled + empty).toBe(30);
    expect(filled).toBe(Math.round(0.25 * 30));
  });

  it("caps the running partitions it lists", async () => {
    const { feed, app } = show("backfill");
    const partitions = Array.from({ length: 9 }, (_, i) => `2026-01-${String(i + 1).padStart(2, "0")}`);
    feed.send({ ...backfillStarted, partitions } as InterloperEvent, ...partitions.map(runStarted));
    const frame = await frameWith(app, "0/9", "and 3 more");
    expect(frame.split("\n").filter((line) => line.includes("running "))).toHaveLength(6);
  });

  it("in a single run, counts assets and names the failed asset", async () => {
    const { feed, app } = show("run");
    feed.send(
      one.runStarted("shop.orders", "shop.daily_revenue"),
      one.assetStarted("shop.orders"),
      one.assetCompleted("shop.orders", 42, 300),
      one.assetStarted("shop.daily_revenue"),
    );
    let frame = await frameWith(app, "1/2", "50%", "42 rows", "running shop.daily_revenue");
    expect(frame).toMatch(/✓ shop\.orders +42 rows/);
    feed.send(one.assetFailed("shop.daily_revenue", "division by zero"));
    frame = await frameWith(app, "2/2", "100%", "✗ shop.daily_revenue", "division by zero", "1 failed");
    expect(frame).not.toContain("running ");
  });

  it("prints warnings and errors of log events above the bar, in the order they came, naming the asset", async () => {
    const { feed, app } = show("run");
    const warning =
      'asset "shop.orders": the data written to SQLite has no "date" column, so reads of partition 2026-01-05 will not find these 2 row(s)';
    feed.send(
      one.runStarted("shop.orders"),
      one.assetStarted("shop.orders"),
      one.log("shop.orders", "info", "fetched 2 rows"),
      one.log("shop.orders", "warn", warning),
      one.assetCompleted("shop.orders", 2, 30),
    );
    const frame = await frameWith(app, "1/1", "warning: shop.orders: ");
    // The terminal wraps long lines: compare the text with its line breaks taken out.
    expect(frame.replaceAll("\n", "")).toContain(`warning: shop.orders: ${warning}`);
    expect(frame).not.toContain("fetched 2 rows");
    const lines = frame.split("\n");
    expect(lines.findIndex((line) => line.startsWith("warning: "))).toBeLessThan(lines.findIndex((line) => line.includes("✓ shop.orders")));
  });

  it("with color=false writes no ANSI escapes even where colour would go (and with color=true it does)", async () => {
    const sequence = [
      backfillStarted,
      runStarted("2026-01-04"),
      assetFailed("2026-01-04", "boom"),
      runFailed("2026-01-04"),
      runStarted("2026-01-03"),
    ];
    const { feed: plain, app: plainApp } = show("backfill");
    plain.send(...sequence);
    await frameWith(plainApp, "✗ 2026-01-04", "boom", "1 failed", "running 2026-01-03");
    for (const frame of plainApp.frames) expect(frame).not.toMatch(ANSI);

    const { feed: coloured, app: colouredApp } = show("backfill", { color: true });
    coloured.send(...sequence);
    await frameWith(colouredApp, "boom", "1 failed");
    expect(colouredApp.lastFrame()).toMatch(ANSI);
  });

  it("a partition stopped by the interrupt before its downstream asset started: ⊘ canceled with the asset named, counted canceled, not failed", async () => {
    const { feed, app } = show("backfill");
    const two = (partition: string) => ({ ...runStarted(partition), assets: ["shop.orders", "shop.daily_revenue"] }) as InterloperEvent;
    feed.send(backfillStarted, two("2026-01-04"), assetStarted("2026-01-04"), assetCompleted("2026-01-04", 7));
    feed.send(
      assetCanceled("2026-01-04", "shop.daily_revenue", "the run was interrupted"),
      runCanceled("2026-01-04", ["shop.orders"], ["shop.daily_revenue"]),
    );
    const frame = await frameWith(app, "1/4", "1 canceled");
    expect(frame).toMatch(/⊘ 2026-01-04 +canceled: shop\.daily_revenue not started: the run was interrupted/);
    expect(frame).not.toContain("✗");
    expect(frame).not.toContain("failed");
    // The backfill ends: the three partitions never started are not run, and counted so.
    feed.send({
      ...backfillStarted,
      type: "backfill:canceled",
      durationMs: 50,
      completed: [],
      failed: [],
      canceled: ["2026-01-04", "2026-01-03", "2026-01-02", "2026-01-01"],
    } as InterloperEvent);
    expect(feed.tracker.counts).toMatchObject({ completed: 0, failed: 0, canceled: 1, notRun: 3 });
    expect(feed.tracker.done).toBe(4);
  });

  it("in a single run, an asset skipped because its upstream failed: ↷ with the reason, counted apart from the failure", async () => {
    const { feed, app } = show("run");
    feed.send(
      one.runStarted("shop.orders", "shop.daily_revenue"),
      one.assetStarted("shop.orders"),
      one.assetFailed("shop.orders", "feed down"),
      one.assetCanceled("shop.daily_revenue", 'its dependency "shop.orders" failed'),
    );
    const frame = await frameWith(app, "2/2", "1 failed", "1 skipped (upstream failed)");
    expect(frame).toMatch(/✗ shop\.orders +feed down/);
    expect(frame).toMatch(/↷ shop\.daily_revenue +skipped \(upstream failed\): its dependency "shop\.orders" failed/);
  });

  it("info logs show when the tracker's level is info (--verbose), dimmed like the rest of the detail", async () => {
    const { feed, app } = show("run", { logLevel: "info" });
    feed.send(one.runStarted("shop.orders"), one.log("shop.orders", "info", "fetched 2 rows"));
    await frameWith(app, "info: shop.orders: fetched 2 rows");
  });

  it("closing lines replace the bar, the title and the running lines; the finished lines stay above them", async () => {
    const { feed, app } = show("backfill");
    feed.send(
      backfillStarted,
      runStarted("2026-01-04"),
      assetCompleted("2026-01-04", 5),
      runCompleted("2026-01-04"),
      runStarted("2026-01-03"),
    );
    await frameWith(app, "1/4", "running 2026-01-03");
    app.rerender(
      view(feed, false, [
        "asset        partitions  rows  time",
        "shop.orders           1     5  1.5s",
        "",
        "Interrupted: 1 of 4 partitions completed, 3 not run, 5 rows in 2.0s",
      ]),
    );
    const frame = screen(app);
    expect(frame.split("\n")).toEqual([
      "✓ 2026-01-04  5 rows  1.6s",
      "asset        partitions  rows  time",
      "shop.orders           1     5  1.5s",
      "",
      "Interrupted: 1 of 4 partitions completed, 3 not run, 5 rows in 2.0s",
    ]);
  });
});
