// How the pool reads a child's end: what the child said of its run stands over how it exited.
// The children here are small scripts standing in for the CLI (cliPath), to produce exits a real
// child produces only in races (a stop that arrives as it finishes; a crash on the way out).
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runPartitionInChild } from "../../src/runner/child-run.js";
import { makeTempDir } from "../contract/temp-dir.js";

let dir: string;
let remove: () => Promise<void>;
beforeEach(async () => ({ path: dir, remove } = await makeTempDir("interloper-child-run-")));
afterEach(() => remove());

/** A stand-in child that prints `events` as JSON lines, then exits with `code`. */
async function child(events: object[], code: number): Promise<string> {
  const path = join(dir, "child.mjs");
  const lines = events.map((event) => JSON.stringify({ runId: "r1", partition: "2026-01-07", time: "2026-01-07T00:00:01.000Z", ...event }));
  await writeFile(path, `process.stdout.write(${JSON.stringify(lines.join("\n") + "\n")}, () => process.exit(${code}));\n`);
  return path;
}

const completedRun = [
  { type: "run:started", assets: ["shop.orders"] },
  { type: "asset:completed", asset: "shop.orders", rows: 3, durationMs: 5 },
  { type: "run:completed", durationMs: 6, completed: ["shop.orders"], failed: [], canceled: [] },
];

describe("runPartitionInChild", () => {
  it.each([
    ["exits 0", 0],
    ["exits 143 (asked to stop as it finished)", 143],
    ["exits 70 (crashed after its run completed)", 70],
  ])("a child whose run completed and which %s completed the partition", async (_what, code) => {
    const events: string[] = [];
    const result = await runPartitionInChild("2026-01-07", ["shop.orders"], { configPath: "unused", cwd: dir, cliPath: await child(completedRun, code), backfillId: "b1", emit: (e) => events.push(e.type) });
    expect(result.status).toBe("completed");
    expect(result.assetExecutions["shop.orders"]!.rows).toBe(3);
    expect(events).toEqual(["run:started", "asset:completed", "run:completed"]);
  });

  it("a child that exits 143 before its run completed did not complete the partition", async () => {
    const events: string[] = [];
    const result = await runPartitionInChild("2026-01-07", ["shop.orders"], { configPath: "unused", cwd: dir, cliPath: await child(completedRun.slice(0, 1), 143), backfillId: "b1", emit: (e) => events.push(e.type) });
    expect(result.status).toBe("failed");
    expect(result.assetExecutions["shop.orders"]!.error?.message).toContain("exited with code 143");
    expect(events).toEqual(["run:started", "asset:failed", "run:failed"]);
  });
});

describe("runPartitionInChild: the child's word on a run that did not complete", () => {
  it("a child that reported its run failed and exits 143 keeps its own errors, each event once", async () => {
    const events: string[] = [];
    const failedRun = [
      { type: "run:started", assets: ["shop.orders"] },
      { type: "asset:failed", asset: "shop.orders", error: { name: "AssetError", message: 'asset "shop.orders" for 2026-01-07 timed out after 2s writing to CSVDestination' }, durationMs: 2000 },
      { type: "run:failed", durationMs: 2001, completed: [], failed: ["shop.orders"], canceled: [] },
    ];
    const result = await runPartitionInChild("2026-01-07", ["shop.orders"], { configPath: "unused", cwd: dir, cliPath: await child(failedRun, 143), backfillId: "b1", emit: (e) => events.push(e.type) });
    expect(result.status).toBe("failed");
    expect(result.assetExecutions["shop.orders"]!.error?.message).toBe('asset "shop.orders" for 2026-01-07 timed out after 2s writing to CSVDestination');
    expect(events).toEqual(["run:started", "asset:failed", "run:failed"]);
  });

  it("a child stopped by the parent's timeout that reports its run canceled failed, with the limit in the error", async () => {
    const events: string[] = [];
    const path = join(dir, "slow-child.mjs");
    const line = (event: object) => JSON.stringify({ runId: "r1", partition: "2026-01-07", time: "2026-01-07T00:00:01.000Z", ...event });
    // On SIGTERM says it abandoned the asset, as the CLI does once its grace is over; the
    // handler comes first, and the limit leaves a loaded machine time to start the child.
    await writeFile(
      path,
      `process.on("SIGTERM", () => process.stdout.write(${JSON.stringify(`${line({ type: "asset:canceled", asset: "shop.orders", reason: "abandoned: still running 0ms after SIGTERM", durationMs: 300 })}\n${line({ type: "run:canceled", durationMs: 300, completed: [], failed: [], canceled: ["shop.orders"] })}\n`)}, () => process.exit(143)));
process.stdout.write(${JSON.stringify(`${line({ type: "run:started", assets: ["shop.orders"] })}\n${line({ type: "asset:started", asset: "shop.orders" })}\n`)});
setInterval(() => undefined, 1000);
`,
    );
    const result = await runPartitionInChild("2026-01-07", ["shop.orders"], { configPath: "unused", cwd: dir, cliPath: path, backfillId: "b1", timeoutMs: 3000, emit: (e) => events.push(e.type) });
    expect(result.status).toBe("failed");
    expect(result.assetExecutions["shop.orders"]!.error?.message).toMatch(/^the process running partition 2026-01-07 timed out after 3s and was stopped/);
    expect(events).toEqual(["run:started", "asset:started", "asset:canceled", "asset:failed", "run:failed"]);
  });
});
