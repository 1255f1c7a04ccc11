// The library's limits on a run, in process: `timeoutMs` and `graceMs` of dag.materialize and
// il.backfill. An asset the run stopped waiting for is reported, its context.signal is aborted,
// and nothing it produces afterwards is ever written: not a late array of rows, not the rest
// of a stream (the partition keeps what it held).
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { useTempDirs } from "./helpers.js";

const tempDir = useTempDirs();
const DAY = new il.TimePartition("2024-02-03");
const daily = new il.TimePartitionConfig({ column: "date", start: "2024-01-01" });

/** Every file under `dir` (recursively), relative. */
async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? (e as { path?: string }).path ?? "", e.name).slice(dir.length + 1))
    .sort();
}

function dagOf(basePath: string, run: (context: il.ExecutionContext) => unknown): il.DAG {
  const late = il.asset({ key: "late", partitioning: daily, run: run as never });
  const Src = il.source({ key: "api", assets: [late] });
  return new il.DAG(Src({ destinations: new il.CSVDestination({ basePath }) }));
}

const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ date: "2024-02-03", n: i }));

describe("timeoutMs", () => {
  it("rows returned after the limit are never written; the asset fails naming itself, the partition and the limit; its signal was aborted", async () => {
    const dir = await tempDir();
    let aborted: unknown = null;
    const dag = dagOf(dir, async (context) => {
      context.signal.addEventListener("abort", () => (aborted = context.signal.reason));
      await sleep(400);
      return rows(3);
    });
    const result = await dag.materialize(DAY, { timeoutMs: 100 });
    expect(result.status).toBe("failed");
    expect(result.error?.message).toBe('asset "api.late" for 2024-02-03 timed out after 100ms');
    expect(aborted).toBeInstanceOf(Error);
    await sleep(700);
    expect(await files(dir)).toEqual([]);
  });

  it("a stream still flowing at the limit is cut: the partition's old data stays, the new is discarded", async () => {
    const dir = await tempDir();
    const first = await dagOf(dir, () => rows(2)).materialize(DAY);
    expect(first.status).toBe("completed");
    const before = await files(dir);
    // More rows than schema inference takes (1,000), so the write has begun when the limit passes.
    const dag = dagOf(dir, async function* () {
      yield rows(1500);
      await sleep(400);
      yield rows(5);
    });
    const result = await dag.materialize(DAY, { timeoutMs: 100 });
    expect(result.status).toBe("failed");
    expect(result.error?.message).toBe('asset "api.late" for 2024-02-03 timed out after 100ms writing to CSVDestination');
    await sleep(700);
    expect(await files(dir)).toEqual(before);
    expect(await dag.find("late")!.read(DAY)).toHaveLength(2);
  });

  it("a backfill goes on past a partition that timed out", { timeout: 20_000 }, async () => {
    const dir = await tempDir();
    const dag = dagOf(dir, async (context) => {
      if (context.partition?.key === "2024-02-02") await new Promise(() => undefined);
      return [{ date: context.partition!.key, n: 1 }];
    });
    const result = await il.backfill(dag, new il.TimePartitionWindow("2024-02-01", "2024-02-04"), {
      timeoutMs: 300,
      failFast: false,
      concurrency: 1,
    });
    expect(result.failedPartitions).toEqual(["2024-02-02"]);
    expect(result.completedPartitions.sort()).toEqual(["2024-02-01", "2024-02-03", "2024-02-04"]);
  });

  it.each([0, -1, Number.NaN, Infinity, 2 ** 31])("timeoutMs %s is refused with a ConfigError", async (timeoutMs) => {
    const dag = dagOf(await tempDir(), () => rows(1));
    await expect(dag.materialize(DAY, { timeoutMs })).rejects.toThrow(il.ConfigError);
  });
});

describe("a custom check that does not settle", () => {
  /** A session over one asset with a custom check whose verdict never comes, stored as CSV in `dir`. */
  async function sessionOf(dir: string, run: (context: il.ExecutionContext) => unknown) {
    const late = il.asset({
      key: "late",
      partitioning: daily,
      checks: [il.checks.notNull("n"), il.check("slow rule", () => new Promise<boolean>(() => undefined))],
      run: run as never,
    });
    const session = await il.openProject(
      il.defineConfig({ sources: [il.source({ key: "api", assets: [late] })({ destinations: new il.CSVDestination({ basePath: dir }) })] }),
    );
    session.on(() => {});
    return session;
  }

  it("over a stream, under a limit: the failure names the check, not the write it holds; the temporary file is removed on the way out", async () => {
    const dir = await tempDir();
    const session = await sessionOf(dir, async function* () {
      yield rows(2);
    });
    try {
      const outcome = await session.materialize({ partition: "2024-02-03", timeoutMs: 200 });
      expect(outcome.status).toBe("failed");
      const result = outcome.result as il.RunResult;
      expect(result.assetExecutions["api.late"]!.error?.message).toBe(
        'asset "api.late" for 2024-02-03 timed out after 200ms waiting for check "slow rule"',
      );
      // Told to stop, the write ends: its temporary file goes with it, and nothing is stored.
      await session.abandonedSettled();
      expect(session.abandonedStillRunning).toBe(0);
      expect(await files(dir)).toEqual([]);
    } finally {
      await session.close();
    }
  });

  it("over a table, under a limit: the failure names the check", async () => {
    const dir = await tempDir();
    const session = await sessionOf(dir, () => rows(2));
    try {
      const outcome = await session.materialize({ partition: "2024-02-03", timeoutMs: 200 });
      expect((outcome.result as il.RunResult).assetExecutions["api.late"]!.error?.message).toBe(
        'asset "api.late" for 2024-02-03 timed out after 200ms waiting for check "slow rule"',
      );
      expect(await files(dir)).toEqual([]);
    } finally {
      await session.close();
    }
  });
});

describe("graceMs", () => {
  it("after the signal, an asset still running at the end of the grace is abandoned (canceled), and its rows are never written", async () => {
    const dir = await tempDir();
    const controller = new AbortController();
    const dag = dagOf(dir, async () => {
      await sleep(500);
      return rows(3);
    });
    const running = dag.materialize(DAY, { signal: controller.signal, graceMs: 50 });
    await sleep(50);
    controller.abort();
    const result = await running;
    expect(result.status).toBe("canceled");
    expect(result.abandonedAssets).toEqual(["api.late"]);
    expect(result.assetExecutions["api.late"]!.error?.message).toBe("abandoned: still running 50ms after the interrupt");
    await sleep(700);
    expect(await files(dir)).toEqual([]);
  });

  it("unset, a running asset finishes after the signal and is stored", async () => {
    const dir = await tempDir();
    const controller = new AbortController();
    const dag = dagOf(dir, async () => {
      await sleep(200);
      return rows(3);
    });
    const running = dag.materialize(DAY, { signal: controller.signal });
    await sleep(50);
    controller.abort();
    expect((await running).status).toBe("completed");
    expect(await dag.find("late")!.read(DAY)).toHaveLength(3);
  });
});
