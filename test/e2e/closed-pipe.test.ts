// A reader that stops early (`interloper plan | head`) closes the command's stdout: the command
// must neither crash on EPIPE nor give up the work it was doing.
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { BIN, ensureBuilt, SHOP, useSandboxes } from "./helpers.js";

/** Runs the CLI with stdout read only up to its first chunk, then closed as `head -1` would. */
async function runClosingStdout(args: readonly string[], cwd: string, data: string) {
  await ensureBuilt();
  const child = execa(process.execPath, [BIN, ...args, "-c", SHOP], {
    cwd,
    env: { CI: "1", NO_COLOR: "1", INTERLOPER_TEST_DATA: data },
    reject: false,
    stdin: "ignore",
    buffer: { stdout: false },
    timeout: 60_000,
  });
  let firstChunk = "";
  child.stdout.once("data", (chunk: Buffer) => {
    firstChunk = String(chunk);
    child.stdout.destroy();
  });
  const result = await child;
  return { firstChunk, exitCode: result.exitCode, stderr: String(result.stderr) };
}

describe("a reader that closes stdout early", () => {
  const sandbox = useSandboxes();

  it("plan over six years prints its first lines, then ends with exit 0 and no EPIPE crash", async () => {
    const box = await sandbox();
    const result = await runClosingStdout(["plan", "orders", "--window", "2020-01-01..2025-12-31"], box.dir, box.data);
    expect(result.firstChunk).toMatch(/^Backfill of 2,192 runs/);
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
  });

  it("materialize --json keeps running to the end: every partition is written, exit 0", async () => {
    const box = await sandbox();
    const result = await runClosingStdout(["materialize", "orders", "--window", "2026-01-01..2026-01-20", "--json"], box.dir, box.data);
    expect(result.firstChunk).toContain('"type"');
    expect(result.stderr).not.toMatch(/EPIPE/);
    expect(result.exitCode).toBe(0);
    expect(await box.dataFiles()).toHaveLength(20);
  });
});
