// InkReporter, the live view materialize draws in a terminal, drawing on a stream that
// records what it writes; the terminal-screen model replays the bytes into the screen a person
// would see. The end of a run must leave every finished unit once and the closing lines, and
// no frame of the bar.
import { EventEmitter } from "node:events";
import { afterAll, describe, expect, it, vi } from "vitest";
import { InkReporter } from "../../src/cli/reporters/ink-reporter.js";
import type { InterloperEvent } from "../../src/runner/events.js";
import { TerminalScreen } from "../support/terminal-screen.js";

// ink draws only a run's last frame when it sees a CI environment (read once, when ink loads):
// these tests are about the frames a person sees, so ink must not see CI's variables.
const ciVariables = vi.hoisted(() => {
  const saved = { CI: process.env["CI"], CONTINUOUS_INTEGRATION: process.env["CONTINUOUS_INTEGRATION"] };
  delete process.env["CI"];
  delete process.env["CONTINUOUS_INTEGRATION"];
  return saved;
});
afterAll(() => {
  for (const [name, value] of Object.entries(ciVariables)) if (value !== undefined) process.env[name] = value;
});

/** A terminal of 100 x 30 that keeps what is written to it. */
class RecordingTerminal extends EventEmitter {
  readonly isTTY = true;
  readonly columns = 100;
  readonly rows = 30;
  written = "";
  write(data: string | Uint8Array, ...rest: unknown[]): boolean {
    // A terminal's driver turns each line feed into carriage return + line feed (onlcr).
    this.written += (typeof data === "string" ? data : Buffer.from(data).toString("utf8")).replace(/\r?\n/g, "\r\n");
    const callback = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    callback?.();
    return true;
  }
  get screen(): TerminalScreen {
    return TerminalScreen.of(this.written, this.columns, this.rows);
  }
}

const time = "2026-02-01T10:00:00.000Z";
const base = { time, backfillId: "bf", runId: "bf" };
const days = ["2026-01-03", "2026-01-02", "2026-01-01"];

function backfillOf(partitions: readonly string[]): InterloperEvent[] {
  return [
    { ...base, type: "backfill:started", window: "2026-01-01..2026-01-03", order: "newest", partitions },
    ...partitions.flatMap((partition): InterloperEvent[] => [
      { ...base, type: "run:started", partition, assets: ["shop.orders"] },
      { ...base, type: "asset:started", partition, asset: "shop.orders" },
      { ...base, type: "asset:completed", partition, asset: "shop.orders", rows: 4, durationMs: 120 },
      { ...base, type: "run:completed", partition, durationMs: 130, completed: ["shop.orders"], failed: [], canceled: [] },
    ]),
    {
      ...base,
      window: "2026-01-01..2026-01-03",
      type: "backfill:completed",
      durationMs: 400,
      completed: [...partitions],
      failed: [],
      canceled: [],
    },
  ];
}

describe("InkReporter", () => {
  it("stopping right after the last event prints the last partition and replaces the frame with the closing lines", async () => {
    const terminal = new RecordingTerminal();
    const reporter = new InkReporter(
      "backfill",
      "Backfilling shop.orders for 2026-01-01..2026-01-03",
      "warn",
      terminal as unknown as NodeJS.WriteStream,
    );
    for (const event of backfillOf(days)) reporter.onEvent(event);
    // No wait: the command stops the view as soon as materialize returns.
    await reporter.stop(["Done: 3 of 3 partitions completed, 12 rows in 0.4s"]);
    const lines = terminal.screen.lines;
    for (const day of days)
      expect(
        lines.filter((line) => line.startsWith(`✓ ${day}  4 rows`)),
        terminal.screen.text,
      ).toHaveLength(1);
    expect(lines.at(-1)).toBe("Done: 3 of 3 partitions completed, 12 rows in 0.4s");
    expect(terminal.screen.text).not.toMatch(/[█░]|Backfilling|running /);
  });

  it("a notice (the interrupt) is printed once above the bar, and the frame is not drawn twice", async () => {
    const terminal = new RecordingTerminal();
    const reporter = new InkReporter(
      "backfill",
      "Backfilling shop.orders for 2026-01-01..2026-01-03",
      "warn",
      terminal as unknown as NodeJS.WriteStream,
    );
    const events = backfillOf(days);
    for (const event of events.slice(0, 5)) reporter.onEvent(event);
    reporter.notice("SIGINT received: finishing running partitions");
    // ink draws its frame on its own schedule (later on a loaded machine): wait for it.
    await vi.waitFor(
      () => {
        const during = terminal.screen.lines;
        expect(during.filter((line) => line.startsWith("SIGINT received"))).toHaveLength(1);
        expect(during.filter((line) => line.startsWith("Backfilling "))).toHaveLength(1);
        expect(during.filter((line) => line.includes("1/3"))).toHaveLength(1);
      },
      { timeout: 10_000 },
    );
    await reporter.stop(["Interrupted: 1 of 3 partitions completed, 2 not run, 4 rows in 0.1s"]);
    const lines = terminal.screen.lines;
    expect(lines).toEqual([
      "✓ 2026-01-03  4 rows  130ms",
      "SIGINT received: finishing running partitions",
      "Interrupted: 1 of 3 partitions completed, 2 not run, 4 rows in 0.1s",
    ]);
  });
});
