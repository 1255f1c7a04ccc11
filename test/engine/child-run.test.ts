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
