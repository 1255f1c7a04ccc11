// What reads a failed or skipped partition is never run in the same run (issue 41, item 1): a
// day x region asset `s`, `z` reading `s` per combination (and the day's rates, which puts it in
// a later stage than `s`), `t` reading every region of a day of `s`, `u` reading `t` (and `z`,
// a later stage again). A failed `s|us` leaves `z|us`, `t` and `u` of that day unrun and
// reported with the upstream partition named, whether or not old data of `s|us` is stored,
// in process and in the shard that runs it. The process pool: test/e2e/failed-upstream.test.ts.
import { afterEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import type { BackfillResult } from "../../src/runner/backfill.js";

afterEach(() => il.MemoryDestination.clear());

type Row = Record<string, unknown>;
const WINDOW = "2026-11-04..2026-11-05";

/** The project; `ran` lists each asset's partition as it runs (`s 2026-11-05|us`). */
function project(fail: ReadonlySet<string> = new Set()) {
  const ran: string[] = [];
  const day = () => new il.TimePartitionConfig({ column: "date", start: "2026-11-01" });
  const byDayAndRegion = () =>
    new il.MultiPartitionConfig({ date: day(), region: new il.ListPartitionConfig({ column: "region", values: ["eu", "us", "latam"] }) });
  const note = (asset: string, ctx: il.ExecutionContext) => ran.push(`${asset} ${ctx.partition!.key}`);
  const fx = il.asset({
    key: "fx",
    partitioning: day(),
    run: (ctx) => (note("fx", ctx), [{ date: ctx.partition!.key, rate: 2 }]),
  });
  const s = il.asset({
    key: "s",
    partitioning: byDayAndRegion(),
    run(ctx) {
      note("s", ctx);
      if (fail.has(ctx.partition!.key)) throw new Error("the us API is down");
      return [{ ...(ctx.partition as il.MultiPartition).keys, spend: 1 }];
    },
  });
  const z = il.asset({
    key: "z",
    partitioning: byDayAndRegion(),
    requires: { s, fx },
    run: (ctx, deps) => (note("z", ctx), (deps.s as Row[]).map((r) => ({ ...r, spend: Number(r["spend"]) * 2 }))),
  });
  const t = il.asset({
    key: "t",
    partitioning: day(),
    requires: { s },
    run: (ctx, deps) => (note("t", ctx), [{ date: ctx.partition!.key, regions: (deps.s as Row[]).length }]),
  });
  const u = il.asset({
    key: "u",
    partitioning: day(),
    requires: { t, z },
    run: (ctx, deps) => (note("u", ctx), deps.t as Row[]),
  });
  const config = il.defineConfig({
    sources: [il.source({ key: "ads", assets: [fx, s, z, t, u] })({ destinations: new il.MemoryDestination() })],
  });
  return { config, ran };
}

const NOT_RUN = [
  { asset: "ads.z", partition: "2026-11-05|us", reason: 'its dependency "ads.s" 2026-11-05|us failed' },
  { asset: "ads.t", partition: "2026-11-05", reason: 'its dependency "ads.s" 2026-11-05|us failed' },
  { asset: "ads.u", partition: "2026-11-05", reason: 'its dependency "ads.t" 2026-11-05 was skipped' },
];

describe("a failed partition in a run of several assets", () => {
  it("leaves what reads it unrun, directly or through a skipped partition, and says which upstream partition failed", async () => {
    const { config, ran } = project(new Set(["2026-11-05|us"]));
    const session = await il.openProject(config);
    const outcome = await session.materialize({ window: WINDOW });
    expect(outcome.status).toBe("failed");
    const result = outcome.result as BackfillResult;
    expect(result.notRun).toEqual(NOT_RUN);
    expect(ran.filter((r) => r.endsWith("2026-11-05|us") || r.startsWith("t 2026-11-05") || r.startsWith("u 2026-11-05"))).toEqual([
      "s 2026-11-05|us",
    ]);
    // Every other partition ran: the other regions of the day, and the whole day before.
    expect(ran.filter((r) => r.startsWith("z ")).sort()).toEqual([
      "z 2026-11-04|eu",
      "z 2026-11-04|latam",
      "z 2026-11-04|us",
      "z 2026-11-05|eu",
      "z 2026-11-05|latam",
    ]);
    expect(ran).toContain("u 2026-11-04");
    await session.close();
  });

  it("does not rebuild what reads it from the data stored before", async () => {
    const first = project();
    const before = await il.openProject(first.config);
    expect((await before.materialize({ window: WINDOW })).status).toBe("completed");
    await before.close();

    const { config, ran } = project(new Set(["2026-11-05|us"]));
    const session = await il.openProject(config);
    const outcome = await session.materialize({ window: WINDOW });
    expect((outcome.result as BackfillResult).notRun).toEqual(NOT_RUN);
    expect(ran).not.toContain("z 2026-11-05|us");
    expect(ran).not.toContain("t 2026-11-05");
    expect(ran).not.toContain("u 2026-11-05");
    await session.close();
  });

  it("leaves them unrun in the shard that runs it", async () => {
    const { config, ran } = project(new Set(["2026-11-05|us"]));
    const session = await il.openProject(config);
    const outcomes = [];
    for (const index of [1, 2]) outcomes.push(await session.materialize({ window: "2026-11-05", shard: { index, count: 2 } }));
    const notRun = outcomes.flatMap((o) => (o.result as BackfillResult).notRun);
    expect(notRun).toContainEqual(NOT_RUN[0]);
    expect(ran).not.toContain("z 2026-11-05|us");
    await session.close();
  });
});
