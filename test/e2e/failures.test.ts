// Failing runs end to end: exit code 1, the other partitions written, a summary naming the
// failed partitions and the command that re-runs them, which completes the work once fixed.
// The shop fixture's orders asset throws for the days listed in INTERLOPER_FAIL.
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, partitionFile, SHOP, useSandboxes, type CliResult, type Sandbox } from "./helpers.js";

beforeAll(ensureBuilt, 180_000);
const sandbox = useSandboxes();

const days = (...dd: number[]) => dd.map((d) => `2026-01-${String(d).padStart(2, "0")}`);
const orderFiles = (...dd: number[]) => days(...dd).map((day) => partitionFile("shop", "orders", "date", day));

/** The commands printed under "Re-run what did not complete with:". */
function rerunCommands(result: CliResult): string[] {
  const at = result.errLines.findIndex((line) => line.startsWith("Re-run"));
  expect(at, result.stderr).toBeGreaterThanOrEqual(0);
  return result.errLines.slice(at + 1).map((line) => line.trim());
}

/** Splits a printed command into words (single quotes as a POSIX shell reads them). */
function words(command: string): string[] {
  return [...command.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replaceAll(`'\\''`, "'") : m[2]!));
}

/** Runs a printed `interloper ...` command as it is, in the sandbox (it carries its own -c). */
async function runPrinted(box: Sandbox, command: string): Promise<CliResult> {
  const [program, ...args] = words(command);
  expect(program).toBe("interloper");
  return box.run(args, { config: null });
}

describe.concurrent("failing runs", () => {
  it("by default (partitions are independent) exit 1, every other partition written, the summary names the failure and a re-run command that completes it", async () => {
    const box = await sandbox();
    const fail = { INTERLOPER_FAIL: "2026-01-12" };
    const result = await box.run(["materialize", "orders", "-w", "2026-01-10..2026-01-14"], { env: fail });
    expect(result.exitCode, result.stderr).toBe(1);
    expect(await box.dataFiles()).toEqual(orderFiles(10, 11, 13, 14));
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^FAIL .*2026-01-12.*orders feed unavailable for 2026-01-12/m);
    expect(result.stderr).toContain("Failed: 4 of 5 partitions completed, 1 failed");
    expect(result.stderr).toMatch(/^Failed partitions: 2026-01-12$/m);
    expect(result.stderr).not.toContain("    at ");
    const commands = rerunCommands(result);
    expect(commands).toEqual([`interloper materialize orders -c ${SHOP} --partition 2026-01-12`]);

    const rerun = await runPrinted(box, commands[0]!);
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    expect(await box.dataFiles()).toEqual(orderFiles(10, 11, 12, 13, 14));
  });

  it("--fail-fast starts no partition after a failure; the re-run command covers the rest", async () => {
    const box = await sandbox();
    const args = ["materialize", "orders", "-w", "2026-01-10..2026-01-14", "--concurrency", "1", "--order", "oldest", "--fail-fast"];
    const result = await box.run(args, {
      env: { INTERLOPER_FAIL: "2026-01-12" },
    });
    expect(result.exitCode, result.stderr).toBe(1);
    expect(await box.dataFiles()).toEqual(orderFiles(10, 11));
    expect(result.stderr).toContain("2 of 5 partitions completed, 1 failed, 2 not run");
    expect(result.stderr).toMatch(/^Failed partitions: 2026-01-12$/m);
    const commands = rerunCommands(result);
    expect(commands).toEqual([`interloper materialize orders -c ${SHOP} --window 2026-01-12..2026-01-14`]);

    const rerun = await runPrinted(box, commands[0]!);
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    expect(await box.dataFiles()).toEqual(orderFiles(10, 11, 12, 13, 14));
  });

  it("the default (and --no-fail-fast) runs every partition where --fail-fast stops", async () => {
    const box = await sandbox();
    const fast = await sandbox();
    const args = ["materialize", "orders", "-w", "2026-01-10..2026-01-14", "--concurrency", "1", "--order", "oldest"];
    const env = { INTERLOPER_FAIL: "2026-01-11" };
    const [keepGoing, stopping] = await Promise.all([box.run(args, { env }), fast.run([...args, "--fail-fast"], { env })]);
    expect(keepGoing.exitCode).toBe(1);
    expect(stopping.exitCode).toBe(1);
    expect(await box.dataFiles()).toEqual(orderFiles(10, 12, 13, 14));
    expect(await fast.dataFiles()).toEqual(orderFiles(10));
    expect(keepGoing.stderr).not.toContain("not run");
    expect(stopping.stderr).toContain("3 not run");
  });

  it("several failures give one re-run command per range of incomplete partitions", async () => {
    const box = await sandbox();
    const result = await box.run(["materialize", "orders", "-w", "2026-01-10..2026-01-16", "--no-fail-fast"], {
      env: { INTERLOPER_FAIL: "2026-01-11,2026-01-12,2026-01-15" },
    });
    expect(result.exitCode, result.stderr).toBe(1);
    expect(await box.dataFiles()).toEqual(orderFiles(10, 13, 14, 16));
    expect(result.stderr).toMatch(/^Failed partitions: 2026-01-11, 2026-01-12, 2026-01-15$/m);
    const commands = rerunCommands(result);
    expect(commands).toEqual([
      `interloper materialize orders -c ${SHOP} --window 2026-01-11..2026-01-12`,
      `interloper materialize orders -c ${SHOP} --partition 2026-01-15`,
    ]);
    for (const command of commands) expect((await runPrinted(box, command)).exitCode).toBe(0);
    expect(await box.dataFiles()).toEqual(orderFiles(10, 11, 12, 13, 14, 15, 16));
  });

  it("a failing single run exits 1, names the asset and its error, and prints its re-run command", async () => {
    const box = await sandbox();
    const result = await box.run(["materialize", "orders", "-p", "2026-01-12"], { env: { INTERLOPER_FAIL: "2026-01-12" } });
    expect(result.exitCode, result.stderr).toBe(1);
    expect(await box.dataFiles()).toEqual([]);
    expect(result.stderr).toMatch(/shop\.orders.*orders feed unavailable for 2026-01-12/);
    const commands = rerunCommands(result);
    expect(commands).toHaveLength(1);
    const rerun = await runPrinted(box, commands[0]!);
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    expect(await box.dataFiles()).toEqual(orderFiles(12));
  });
});
