// A session (il.openProject) owns what its runs share: its listeners hear its runs and no other
// session's, its attempts and watchdog are its own, and close() releases all of it, so that a
// program opening and closing sessions again and again keeps nothing of them.
import { spawn } from "node:child_process";
import { runInNewContext } from "node:vm";
import { setFlagsFromString } from "node:v8";
import { afterEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { openProjectCount } from "../../src/api/loaded.js";
import { defaultRunContext } from "../../src/runner/context.js";
import { gate } from "../support/gate.js";

afterEach(() => il.MemoryDestination.clear());

const daily = () => new il.TimePartitionConfig({ column: "day", start: "2026-01-01" });

/** A config of one daily asset (in its own source) whose run waits for `arrive` first. */
function config(source: string, arrive: () => Promise<void> = async () => undefined) {
  const orders = il.asset({
    key: "orders",
    partitioning: daily(),
    run: async (ctx) => {
      await arrive();
      return [{ day: ctx.partition!.key, n: 1 }];
    },
  });
  return il.defineConfig({ sources: [il.source({ key: source, assets: [orders] })({ destinations: new il.MemoryDestination() })] });
}

const idsOf = (events: readonly il.InterloperEvent[]) => new Set(events.map((e) => e.backfillId ?? e.runId));

describe("a session", () => {
  it("plans, materializes, reads and computes coverage of its project", async () => {
    const session = await il.openProject(config("shop"));
    const plan = await session.plan({ selection: "orders", window: "2026-01-01..2026-01-03" });
    expect(plan.partitions).toEqual(["2026-01-03", "2026-01-02", "2026-01-01"]);
    const outcome = await session.materialize({ selection: ["shop.orders"], window: "2026-01-01..2026-01-02" });
    expect(outcome.status).toBe("completed");
    const [coverage] = await session.coverage("orders", { window: "2026-01-01..2026-01-03" });
    expect(coverage!.partitions.map((p) => [p.key, p.status])).toEqual([
      ["2026-01-01", "materialized"],
      ["2026-01-02", "materialized"],
      ["2026-01-03", "missing"],
    ]);
    expect((await session.read("shop.orders", "2026-01-02")).rows).toEqual([{ day: "2026-01-02", n: 1 }]);
    expect((await session.read("orders", "2026-01-01..2026-01-02")).total).toBe(2);
    expect((await session.read("orders", new il.TimePartition("2026-01-01"))).rows).toEqual([{ day: "2026-01-01", n: 1 }]);
    // --missing: only the partition coverage reports missing.
    const missing = await session.plan({ selection: "orders", window: "2026-01-01..2026-01-03", missing: true });
    expect(missing.partitions).toEqual(["2026-01-03"]);
    // The plan it showed runs as it stands.
    expect((await session.materialize({ plan: missing })).plan).toBe(missing);
    await session.close();
  });

  it("takes the specification's window and partition objects wherever it takes their text", async () => {
    const session = await il.openProject(config("shop"));
    const window = new il.TimePartitionWindow("2026-01-01", "2026-01-03");
    const day = new il.TimePartition("2026-01-02");
    expect((await session.plan({ window })).partitions).toEqual(["2026-01-03", "2026-01-02", "2026-01-01"]);
    expect((await session.plan({ partition: day })).runs).toEqual([{ partition: "2026-01-02", assets: ["shop.orders"] }]);
    expect((await session.materialize({ selection: "orders", window })).status).toBe("completed");
    const [covered] = await session.coverage("orders", { window: new il.TimePartitionWindow("2026-01-02", "2026-01-04") });
    expect(covered!.partitions.map((p) => [p.key, p.status])).toEqual([
      ["2026-01-02", "materialized"],
      ["2026-01-03", "materialized"],
      ["2026-01-04", "missing"],
    ]);
    const [one] = await session.coverage("orders", { partition: day });
    expect(one!.partitions.map((p) => p.key)).toEqual(["2026-01-02"]);
    expect((await session.read("orders", { window })).total).toBe(3);
    expect((await session.read("orders", { partition: day })).rows).toEqual([{ day: "2026-01-02", n: 1 }]);
    expect((await session.plan({ window, missing: true })).partitions).toEqual([]);
    const [verified] = await session.verify("orders", { partition: day });
    expect(verified!.asset).toBe("shop.orders");
    await session.close();
  });

  it("runs only plans made of its own project", async () => {
    const [a, b] = await Promise.all([il.openProject(config("a")), il.openProject(config("b"))]);
    const plan = await a.plan({ partition: "2026-01-01" });
    await expect(b.materialize({ plan })).rejects.toThrow("the plan was made for another project");
    await Promise.all([a.close(), b.close()]);
  });

  it("takes a selection or assets, not both", async () => {
    const session = await il.openProject(config("shop"));
    await expect(session.plan({ selection: "orders", assets: ["orders"] })).rejects.toThrow(il.ConfigError);
    await session.close();
  });

  it("two sessions running at once each hear only their own runs; il.subscribe hears neither", async () => {
    const arrive = gate(2);
    const [a, b] = await Promise.all([il.openProject(config("a", arrive)), il.openProject(config("b", arrive))]);
    const heard = { a: [] as il.InterloperEvent[], b: [] as il.InterloperEvent[], global: [] as il.InterloperEvent[] };
    a.on((event) => heard.a.push(event));
    b.on((event) => heard.b.push(event));
    const off = il.subscribe((event) => heard.global.push(event));
    const [ra, rb] = await Promise.all([
      a.materialize({ window: "2026-01-01..2026-01-02" }),
      b.materialize({ window: "2026-01-01..2026-01-02" }),
    ]);
    off();
    const idA = (ra.result as il.BackfillResult).backfillId;
    const idB = (rb.result as il.BackfillResult).backfillId;
    expect(idsOf(heard.a)).toEqual(new Set([idA]));
    expect(idsOf(heard.b)).toEqual(new Set([idB]));
    expect(heard.a.some((e) => e.type === "asset:completed" && e.asset === "a.orders")).toBe(true);
    expect(heard.b.every((e) => !("asset" in e) || e.asset === "b.orders")).toBe(true);
    expect(heard.global).toEqual([]);
    await Promise.all([a.close(), b.close()]);
  });

  it("keeps its own abandoned work and escaped errors: another session's runs are not told", async () => {
    const arrive = gate(2);
    let finish: () => void = () => undefined;
    const settled = new Promise<void>((resolve) => (finish = resolve));
    const hung = il.asset({
      key: "hung",
      partitioning: daily(),
      // Ignores its signal until told: abandoned at the timeout, it goes on running.
      run: async () => {
        await arrive();
        await settled;
        return [];
      },
    });
    const a = await il.openProject({ assets: [hung] });
    let taken: boolean[] = [];
    const thrower = il.asset({
      key: "thrower",
      partitioning: daily(),
      run: async () => {
        await arrive();
        // Seen from this asset's code, an escaped error is the other session's to refuse.
        taken = [a.takeEscapedError(new Error("boom")), b.takeEscapedError(new Error("boom"))];
        await new Promise((resolve) => setTimeout(resolve, 20));
        return [];
      },
    });
    const b = await il.openProject({ assets: [thrower] });
    const [ra, rb] = await Promise.all([
      a.materialize({ partition: "2026-01-01", timeoutMs: 200 }),
      b.materialize({ partition: "2026-01-01" }),
    ]);
    expect(taken).toEqual([false, true]);
    expect(ra.status).toBe("failed");
    expect(a.abandonedStillRunning).toBe(1);
    expect(b.abandonedStillRunning).toBe(0);
    expect(rb.status).toBe("failed");
    expect((rb.result as il.RunResult).assetExecutions["thrower"]!.error!.message).toContain("threw outside its run: boom");
    finish();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(a.abandonedStillRunning).toBe(0);
    expect(a.running || b.running).toBe(false);
    await Promise.all([a.close(), b.close()]);
  });

  it("in a backfill too, what its runs abandoned is the session's, not the default context's", async () => {
    let finish: () => void = () => undefined;
    const settled = new Promise<void>((resolve) => (finish = resolve));
    const hung = il.asset({ key: "hung", partitioning: daily(), run: () => settled.then(() => []) });
    const session = await il.openProject({ assets: [hung] });
    const outcome = await session.materialize({ window: "2026-01-01..2026-01-02", timeoutMs: 100 });
    expect(outcome.plan.mode).toBe("backfill");
    expect(outcome.incomplete).toEqual(["2026-01-02", "2026-01-01"]);
    expect(session.abandonedStillRunning).toBe(2);
    expect(defaultRunContext.attempts.stillRunning).toBe(0);
    finish();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(session.abandonedStillRunning).toBe(0);
    await session.close();
  });

  it("close() ends its pool workers still alive", async () => {
    const session = await il.openProject(config("shop"));
    // A worker as the pool starts it: a child process the session follows until it exits.
    const child = spawn(process.execPath, ["-e", "setInterval(() => undefined, 1000)"], { stdio: "ignore" });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
    session.runtime.workers.add(child);
    await session.close();
    expect(await exited).toBe("SIGKILL");
  });

  it("once closed, forgets its listeners and refuses more work; close is once", async () => {
    const session = await il.openProject(config("shop"));
    session.on(() => undefined);
    expect(session.runtime.listeners.size).toBe(1);
    await Promise.all([session.close(), session.close()]);
    expect(session.closed).toBe(true);
    expect(session.runtime.listeners.size).toBe(0);
    await expect(session.plan()).rejects.toThrow("this session is closed");
    expect(() => session.on(() => undefined)).toThrow("this session is closed");
  });
});

/** The heap in use after a full collection (after the current job, so that WeakRefs can clear). */
async function heapAfterGc(gc: () => void): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

/** A full collection, from V8 itself (vitest does not start its workers with --expose-gc). */
function collector(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

/** Bytes a listener holds: 900 sessions kept by mistake keep 90 MB, far above the heap's noise. */
const BALLAST_BYTES = 100_000;

/**
 * Opens a session, listens to it with a listener holding BALLAST_BYTES (so that a listener kept
 * by mistake shows in the heap), runs one partition, and closes it unless `keep`; `refs` gets a
 * weak reference to the session (so that a session kept by mistake shows, listener or not).
 */
async function cycle(shop: il.InterloperConfig, i: number, refs: WeakRef<il.Session>[], keep?: il.Session[]): Promise<void> {
  const session = await il.openProject(shop);
  // Numbers in an array live on the heap (a typed array's bytes would not count in heapUsed).
  const ballast: number[] = new Array<number>(BALLAST_BYTES / 8).fill(i + 0.5);
  session.on(() => void ballast.length);
  await session.materialize({ partition: "2026-01-01" });
  refs.push(new WeakRef(session));
  if (keep) keep.push(session);
  else await session.close();
}

// V8 warming up (feedback, compiled code) and the worker's other state move the heap by a few
// megabytes whatever the sessions keep; 900 sessions kept alive add 90 MB (the control).
const BOUND = 20_000_000;

describe("sessions opened and closed again and again", () => {
  it("keep nothing: 1,000 sessions, each with a listener and a tiny run, leave the heap flat", { timeout: 120_000 }, async () => {
    const gc = collector();
    const shop = config("shop");
    const refs: WeakRef<il.Session>[] = [];
    for (let i = 0; i < 100; i++) await cycle(shop, i, refs);
    const base = await heapAfterGc(gc);
    const projects = openProjectCount();
    const hooks = process.listenerCount("beforeExit");
    for (let i = 100; i < 1000; i++) await cycle(shop, i, refs);
    expect((await heapAfterGc(gc)) - base).toBeLessThan(BOUND);
    expect(refs.filter((ref) => ref.deref() !== undefined).length, "sessions still reachable after close").toBeLessThanOrEqual(1);
    expect(openProjectCount()).toBe(projects);
    expect(process.listenerCount("beforeExit")).toBe(hooks);
  });

  it("control: 900 sessions left open grow the heap well past that bound, and stay reachable", { timeout: 60_000 }, async () => {
    const gc = collector();
    const shop = config("shop");
    const refs: WeakRef<il.Session>[] = [];
    const kept: il.Session[] = [];
    for (let i = 0; i < 100; i++) await cycle(shop, i, refs);
    const base = await heapAfterGc(gc);
    for (let i = 100; i < 1000; i++) await cycle(shop, i, refs, kept);
    expect((await heapAfterGc(gc)) - base).toBeGreaterThan(3 * BOUND);
    expect(refs.filter((ref) => ref.deref() !== undefined).length).toBeGreaterThanOrEqual(900);
    await Promise.all(kept.map((session) => session.close()));
  });
});
