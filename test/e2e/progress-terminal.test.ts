// The progress view of `interloper materialize` in a real pseudo-terminal (util-linux `script`):
// the bytes the CLI writes are replayed on a terminal-screen model, and the tests read the
// screen a person would see once the command is over: every finished partition once, no
// progress frame left behind, the timing table and the summary; after Ctrl-C, what was
// stopped labelled as canceled, never failed; a failing run's counts accounting for everything.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { HAS_SCRIPT, runInTerminal, type TerminalOptions, type TerminalRun } from "../support/pseudo-terminal.js";
import { BIN, ensureBuilt, FIXTURES, useSandboxes } from "./helpers.js";

const CONFIG = join(FIXTURES, "progress", "interloper.config.ts");
const sandbox = useSandboxes();

beforeAll(async () => {
  if (HAS_SCRIPT) await ensureBuilt();
}, 180_000);

/**
 * `interloper materialize ARGS -c progress` in a 140 x 40 terminal (wide enough that no line the
 * tests read wraps); with `reported`, in a terminal that reports that size, read as 80 x 24.
 */
async function materialize(
  args: readonly string[],
  env: Record<string, string> = {},
  interruptWhen?: (text: string) => boolean,
  reported?: TerminalOptions["reported"],
): Promise<TerminalRun> {
  const box = await sandbox();
  return runInTerminal([process.execPath, BIN, "materialize", ...args, "-c", CONFIG], {
    cwd: box.dir,
    env: { INTERLOPER_TEST_DATA: box.data, ...env },
    ...(interruptWhen ? { interruptWhen: (screen) => interruptWhen(screen.text) } : {}),
    columns: reported ? 80 : 140,
    ...(reported ? { rows: 24, reported } : {}),
    timeoutMs: 90_000,
  });
}

/** What a frame of the live view draws: none of it may stay on the final screen. */
function expectNoFrameLeft(lines: readonly string[]): void {
  for (const line of lines) {
    expect(line, "a bar line left on the screen").not.toMatch(/[█░]|\d+\/\d+ +\d+%/);
    expect(line, "a running line left on the screen").not.toMatch(/^ +running /);
    expect(line, "the frame's title left on the screen").not.toMatch(/^(Backfilling|Materializing) /);
  }
}

/** The numbers of the summary's first line: { completed: 3, failed: 1, "not run": 2, ... } and the total. */
function summaryCounts(line: string): { total: number; counts: Record<string, number> } {
  const head = /^\w+: (\d+) of (\d+) (?:partitions?|assets?) completed(?: for \S+)?((?:, \d+ [a-z ()]+?)*), [\d,]+ rows? in /.exec(line);
  if (!head) throw new Error(`not a summary line: ${line}`);
  const counts: Record<string, number> = { completed: Number(head[1]) };
  for (const [, n, word] of head[3]!.matchAll(/, (\d+) ([a-z ()]+)/g)) counts[word!] = Number(n);
  return { total: Number(head[2]), counts };
}

const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

if (!HAS_SCRIPT)
  console.log(
    "util-linux `script` is not installed: the progress view is not tested in a pseudo-terminal here (apt-get install util-linux)",
  );

describe.skipIf(!HAS_SCRIPT)("the progress view in a pseudo-terminal", () => {
  it("a backfill ends with every partition printed once, then the timing table and the summary, and no frame left", async () => {
    const run = await materialize(["demo.orders", "demo.revenue", "-w", "2025-11-01..2025-11-10"]);
    expect(run.exitCode, run.screen.text).toBe(0);
    const lines = run.screen.lines;
    const days = Array.from({ length: 10 }, (_, i) => `2025-11-${String(i + 1).padStart(2, "0")}`);
    for (const day of days)
      expect(
        lines.filter((line) => line.startsWith(`✓ ${day}  `)),
        `${day}\n${run.screen.text}`,
      ).toHaveLength(1);
    expectNoFrameLeft(lines);
    const table = lines.findIndex((line) => /^asset +partitions +rows +time$/.test(line));
    expect(table, run.screen.text).toBeGreaterThan(lines.findLastIndex((line) => line.startsWith("✓ ")));
    expect(lines[table + 1]).toMatch(/^demo\.orders +10 +50 +\S+$/);
    expect(lines[table + 2]).toMatch(/^demo\.revenue +10 +10 +\S+$/);
    expect(lines.at(-1)).toMatch(/^Done: 10 of 10 partitions completed, 60 rows in \S+$/);
  }, 120_000);

  it("a failing backfill: the ✗ line with its reason, the warning, and a summary whose counts add up; no frame left", async () => {
    const run = await materialize(["demo.orders", "demo.revenue", "-w", "2025-11-01..2025-11-06", "--no-fail-fast"], {
      PROGRESS_FAIL: "2025-11-03",
      PROGRESS_WARN: "2025-11-05",
    });
    expect(run.exitCode, run.screen.text).toBe(1);
    const lines = run.screen.lines;
    const text = lines.join("\n");
    expect(text).toMatch(/^✗ 2025-11-03 +demo\.orders: asset "demo\.orders" failed for 2025-11-03: the orders feed is unavailable/m);
    expect(lines).toContain("warning: demo.orders: 2025-11-05: 1 order has no amount, counted as 0");
    expect(lines.filter((line) => line.startsWith("✓ "))).toHaveLength(5);
    expectNoFrameLeft(lines);
    const verdict = lines.find((line) => line.startsWith("Failed: "))!;
    const { total, counts } = summaryCounts(verdict);
    expect(counts).toEqual({ completed: 5, failed: 1 });
    expect(sum(counts)).toBe(total);
  }, 120_000);

  it("a single run whose upstream fails: the downstream asset is skipped, named, and counted", async () => {
    const run = await materialize(["demo.orders", "demo.revenue", "-p", "2025-11-03"], { PROGRESS_FAIL: "2025-11-03" });
    expect(run.exitCode, run.screen.text).toBe(1);
    const lines = run.screen.lines;
    expect(lines.join("\n")).toMatch(/^✗ demo\.orders +asset "demo\.orders" failed for 2025-11-03/m);
    expect(lines).toContain('↷ demo.revenue  skipped (upstream failed): its dependency "demo.orders" failed');
    expectNoFrameLeft(lines);
    const { total, counts } = summaryCounts(lines.find((line) => line.startsWith("Failed: "))!);
    expect(counts).toEqual({ completed: 0, failed: 1, "skipped (upstream failed)": 1 });
    expect(sum(counts)).toBe(total);
  }, 120_000);

  it("Ctrl-C: the notice is drawn once, what was stopped is labelled canceled (never ✗), and the counts add up", async () => {
    const run = await materialize(["demo.orders", "demo.revenue", "-w", "2025-11-01..2025-11-08"], { PROGRESS_WORK_MS: "1500" }, (text) =>
      /^✓ /m.test(text),
    );
    expect(run.exitCode, run.screen.text).toBe(130);
    const lines = run.screen.lines;
    // Printed once above the view (a direct write would leave a second frame under it).
    expect(run.output.split("SIGINT received").length - 1, run.output).toBe(1);
    expect(lines.filter((line) => line.startsWith("SIGINT received: "))).toHaveLength(1);
    expect(lines.filter((line) => line.startsWith("✗"))).toEqual([]);
    for (const line of lines.filter((l) => l.startsWith("⊘ ")))
      expect(line).toMatch(/^⊘ 2025-11-\d\d +canceled: demo\.revenue not started: /);
    expectNoFrameLeft(lines);
    const { total, counts } = summaryCounts(lines.find((line) => line.startsWith("Interrupted: "))!);
    expect(total).toBe(8);
    expect(sum(counts)).toBe(8);
    expect(counts["failed"]).toBeUndefined();
    expect(counts.completed).toBe(lines.filter((line) => line.startsWith("✓ ")).length);
    expect(counts["canceled"] ?? 0).toBe(lines.filter((line) => line.startsWith("⊘ ")).length);
    expect(counts["not run"]).toBeGreaterThan(0);
  }, 120_000);

  it("an unpartitioned run counts its asset (no 0/0 at any moment) and ends in the table and the summary", async () => {
    const run = await materialize(["demo.customers"]);
    expect(run.exitCode, run.screen.text).toBe(0);
    expect(run.output).not.toContain("0/0");
    const lines = run.screen.lines;
    expect(lines[0]).toMatch(/^✓ demo\.customers +2 rows +\S+$/);
    expectNoFrameLeft(lines);
    expect(lines).toContainEqual(expect.stringMatching(/^demo\.customers +- +2 +\S+$/));
    expect(lines.at(-1)).toMatch(/^Done: 1 of 1 asset completed, 2 rows in \S+$/);
  }, 120_000);

  it("--verbose shows the assets' info logs in the view; without it they stay out", async () => {
    const verbose = await materialize(["demo.orders", "-w", "2025-11-01..2025-11-02", "--verbose"]);
    expect(verbose.screen.lines).toContain("info: demo.orders: fetched 4 orders for 2025-11-01");
    const quiet = await materialize(["demo.orders", "-w", "2025-11-01..2025-11-02"]);
    expect(quiet.screen.text).not.toContain("fetched");
  }, 120_000);

  it("redraws at most a few times a second, however quickly partitions finish: finished lines come in batches", async () => {
    const run = await materialize(["demo.orders", "-w", "2025-01-01..2025-07-19"]);
    expect(run.exitCode, run.screen.text).toBe(0);
    expect(run.screen.lines.filter((line) => line.startsWith("✓ 2025-"))).toHaveLength(200);
    // Each frame draws the bar once; a redraw per finished partition drew 200 of them or more.
    const frames = run.output.match(/\d+\/200 {2}\d+%/g)?.length ?? 0;
    expect(frames, `${frames} frames in ${Math.round(run.wallMs)} ms`).toBeLessThanOrEqual(Math.ceil(run.wallMs / 100) + 5);
  }, 120_000);

  it("a terminal that reports 0 columns and 0 rows is drawn on as 80 x 24: whole lines, no screen cleared per frame", async () => {
    const run = await materialize(["demo.orders", "-w", "2025-11-01..2025-11-20"], {}, undefined, { columns: 0, rows: 0 });
    expect(run.exitCode, run.screen.text).toBe(0);
    const lines = run.screen.lines;
    for (let day = 1; day <= 20; day++)
      expect(lines.filter((line) => line.startsWith(`✓ 2025-11-${String(day).padStart(2, "0")}  `))).toHaveLength(1);
    expect(lines.at(-1)).toMatch(/^Done: 20 of 20 partitions completed, 100 rows in \S+$/);
    // "Clear the whole screen" is what a 0-row terminal made every frame write.
    expect(run.output).not.toContain("\u001b[2J");
    expectNoFrameLeft(lines);
  }, 120_000);
});
