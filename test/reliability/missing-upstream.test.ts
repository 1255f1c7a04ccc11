// A run that fails because an upstream asset holds no data says which upstream, and its summary
// prints the command that materializes it with everything upstream (`+asset`), over exactly the
// partitions that failed so; running that command as printed completes the work. Shop fixture:
// shop.daily_revenue requires shop.orders.
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, partitionFile, useSandboxes, type CliResult, type Sandbox } from "../e2e/helpers.js";

beforeAll(ensureBuilt, 180_000);
const sandbox = useSandboxes();

const UPSTREAM_HEADING = /^Upstream data is missing: materialize it too/;

/** The commands printed under the upstream heading. */
function upstreamCommands(result: CliResult): string[] {
  const at = result.errLines.findIndex((line) => UPSTREAM_HEADING.test(line));
  expect(at, result.stderr).toBeGreaterThanOrEqual(0);
  const rest = result.errLines.slice(at + 1);
  const end = rest.findIndex((line) => !line.startsWith("  "));
  return rest.slice(0, end < 0 ? undefined : end).map((line) => line.trim());
}

/** Runs a printed `interloper ...` command (it carries its own -c; no argument here needs quotes). */
async function runPrinted(box: Sandbox, command: string): Promise<CliResult> {
  const [program, ...args] = command.split(" ");
  expect(program).toBe("interloper");
  return box.run(args, { config: null });
}

const revenueFiles = (...days: string[]) => days.map((d) => partitionFile("shop", "daily_revenue", "date", d));

describe.concurrent("missing upstream data", () => {
  it("one run: the error names the upstream; the summary's command materializes it and the asset", async () => {
    const box = await sandbox();
    const result = await box.run(["materialize", "daily_revenue", "-p", "2026-01-15"]);
    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/asset "shop\.daily_revenue" needs "shop\.orders" for 2026-01-15, which was not materialized: no data/);
    const commands = upstreamCommands(result);
    expect(commands).toHaveLength(1);
    expect(commands[0]).toMatch(/^interloper materialize \+shop\.daily_revenue -c \S+ --window 2026-01-15$/);
    const fixed = await runPrinted(box, commands[0]!);
    expect(fixed.exitCode, fixed.stderr).toBe(0);
    expect(await box.dataFiles()).toEqual([
      partitionFile("shop", "daily_revenue", "date", "2026-01-15"),
      partitionFile("shop", "orders", "date", "2026-01-15"),
    ]);
  });

  it("a backfill: one command per range of partitions that lacked upstream data; together they complete it", async () => {
    const box = await sandbox();
    expect((await box.run(["materialize", "orders", "-p", "2026-01-15"])).exitCode).toBe(0);
    const result = await box.run(["materialize", "daily_revenue", "-w", "2026-01-14..2026-01-17", "--no-fail-fast", "--concurrency", "1"]);
    expect(result.exitCode, result.stderr).toBe(1);
    const commands = upstreamCommands(result);
    expect(commands.map((c) => c.replace(/ -c \S+/, ""))).toEqual([
      "interloper materialize +shop.daily_revenue --window 2026-01-14",
      "interloper materialize +shop.daily_revenue --window 2026-01-16..2026-01-17",
    ]);
    for (const command of commands) expect((await runPrinted(box, command)).exitCode).toBe(0);
    expect((await box.dataFiles()).filter((f) => f.includes("daily_revenue"))).toEqual(
      revenueFiles("2026-01-14", "2026-01-15", "2026-01-16", "2026-01-17"),
    );
  });

  it("a backfill in child processes prints the same command (the error's kind crosses the process boundary)", async () => {
    const box = await sandbox();
    const result = await box.run(["materialize", "daily_revenue", "-w", "2026-01-14..2026-01-15", "--no-fail-fast", "--processes", "2"]);
    expect(result.exitCode, result.stderr).toBe(1);
    expect(upstreamCommands(result).map((c) => c.replace(/ -c \S+/, ""))).toEqual([
      "interloper materialize +shop.daily_revenue --window 2026-01-14..2026-01-15",
    ]);
  });

  it("a failure of another kind prints no upstream command", async () => {
    const box = await sandbox();
    const result = await box.run(["materialize", "+daily_revenue", "-p", "2026-01-15"], { env: { INTERLOPER_FAIL: "2026-01-15" } });
    expect(result.exitCode, result.stderr).toBe(1);
    expect(
      result.errLines.some((line) => UPSTREAM_HEADING.test(line)),
      result.stderr,
    ).toBe(false);
  });
});
