// `interloper coverage --interactive` end to end (issue 22): once in a real pseudo-terminal
// (util-linux `script`), keys typed as a user would; and refused, in one line, where it cannot run.
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { BIN, oneLineError, usePreparedSandbox, useSandboxes } from "./helpers.js";
import { TerminalScreen } from "../support/terminal-screen.js";
import { COVERAGE, D, orderRows, prepare } from "./coverage-helpers.js";

const sandbox = useSandboxes();
const KEYS_HELP = "q quit";
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
/** Terminal output as text: escape sequences (colours, cursor moves) removed. */
const plain = (text: string) => text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "").replace(/\u001b[()][A-Z0-9]/g, "");

const box = usePreparedSandbox(sandbox, prepare);

describe("coverage --interactive", () => {
  it("is refused in one line when stdout is not a terminal, or with --json or --html", async () => {
    const piped = await box.run(["coverage", "-i"], { config: COVERAGE });
    expect(piped.exitCode).toBe(2);
    expect(oneLineError(piped)).toContain("--interactive needs a terminal, but stdout is not a TTY");
    const json = await box.run(["coverage", "orders", "--interactive", "--json"], { config: COVERAGE });
    expect(json.exitCode).toBe(2);
    expect(oneLineError(json)).toContain("--interactive cannot be used with --json");
    const html = await box.run(["coverage", "-i", "--html", "x.html"], { config: COVERAGE });
    expect(html.exitCode).toBe(2);
    expect(oneLineError(html)).toContain("--interactive cannot be used with --html");
  });

  it(
    "in a pseudo-terminal: ← to yesterday's missing day, m materializes it with the progress view, the picture refreshes, q quits",
    { timeout: 120_000 },
    async () => {
      const command = `stty cols 100 rows 40; exec ${quote(process.execPath)} ${quote(BIN)} coverage -i -c ${quote(COVERAGE)}`;
      const child = execa("script", ["-qfec", command, "/dev/null"], {
        cwd: box.dir,
        env: { INTERLOPER_TEST_DATA: box.data, NO_COLOR: "1", CI: undefined, FORCE_COLOR: undefined, DEBUG: undefined },
        reject: false,
        timeout: 110_000,
      });
      let screen = "";
      const waiters: Array<() => void> = [];
      child.stdout!.on("data", (chunk: Buffer) => {
        screen += chunk.toString("utf8");
        for (const wake of waiters.splice(0)) wake();
      });
      /** Resolves once the screen, from `from` on, shows `text`. */
      const shows = (text: string, from = 0) =>
        new Promise<number>((resolve) => {
          const look = () => {
            const at = plain(screen.slice(from)).indexOf(text);
            if (at >= 0) resolve(screen.length);
            else waiters.push(look);
          };
          look();
        });
      const type = (keys: string) => child.stdin!.write(keys);

      let seen = await shows(KEYS_HELP);
      expect(plain(screen)).toContain(`cov.orders ${D(29)}: in progress`);
      type("\u001b[D");
      seen = await shows(`cov.orders ${D(28)}: missing; m materializes ${D(28)}`, seen);
      type("m");
      seen = await shows(`materialize cov.orders -w ${D(28)}: done; coverage refreshed`, seen);
      seen = await shows(KEYS_HELP, seen);
      // The refreshed explorer opens where it was: on the partition just written, now present.
      expect(plain(screen.slice(Math.max(0, seen - 4000)))).toContain(`cov.orders ${D(28)}: ${orderRows(D(28))} rows`);
      type("q");
      const result = await child;
      expect(result.exitCode, plain(screen).slice(-2000)).toBe(0);

      const json = await box.run(["coverage", "orders", "--json"], { config: COVERAGE });
      const partitions = (JSON.parse(json.stdout) as { partitions: Array<{ key: string; status: string }> }).partitions;
      expect(partitions.find((p) => p.key === D(28))?.status).toBe("materialized");
    },
  );

  it(
    "in a 60 x 20 pseudo-terminal: keys sent in one burst all count, g goes to a gap, and with its details open the frame fits",
    { timeout: 120_000 },
    async () => {
      const command = `stty cols 60 rows 20; exec ${quote(process.execPath)} ${quote(BIN)} coverage -i -c ${quote(COVERAGE)}`;
      const child = execa("script", ["-qfec", command, "/dev/null"], {
        cwd: box.dir,
        env: { INTERLOPER_TEST_DATA: box.data, NO_COLOR: "1", CI: undefined, FORCE_COLOR: undefined, DEBUG: undefined },
        reject: false,
        timeout: 110_000,
      });
      let output = "";
      const waiters: Array<() => void> = [];
      child.stdout!.on("data", (chunk: Buffer) => {
        output += chunk.toString("utf8");
        for (const wake of waiters.splice(0)) wake();
      });
      const shows = (text: string, from = 0) =>
        new Promise<number>((resolve) => {
          const look = () => (plain(output.slice(from)).includes(text) ? resolve(output.length) : waiters.push(look));
          look();
        });
      let seen = await shows(KEYS_HELP);
      // Five ← in one write, as a held key or a fast typist sends them.
      child.stdin!.write("\u001b[D".repeat(5));
      seen = await shows(`cov.orders ${D(24)}: ${orderRows(D(24))} rows`, seen);
      child.stdin!.write(`g${D(12)}\r`);
      seen = await shows(`cov.orders ${D(12)}: missing;`, seen);
      child.stdin!.write("\r");
      await shows("missing here", seen);
      child.stdin!.write("q");
      const result = await child;
      expect(result.exitCode, plain(output).slice(-2000)).toBe(0);
      // The last frame, as the terminal shows it: whole, every line of it on the 20 rows.
      const lines = TerminalScreen.of(output, 60, 20).lines.map((l) => l.trimEnd());
      while (lines.length && !lines.at(-1)) lines.pop();
      const frame = lines.slice(lines.findLastIndex((l) => l.startsWith("coverage explorer: ")));
      expect(frame.length, frame.join("\n")).toBeLessThanOrEqual(19);
      expect(frame.some((l) => l.startsWith("› cov.orders"))).toBe(true);
      expect(frame).toContain(`cov.orders ${D(12)}: missing;`);
      expect(frame).toContain(`  m materializes ${D(10)}..${D(14)}`);
      expect(frame.some((l) => /missing here/.test(l))).toBe(true);
      expect(frame.at(-1)).toMatch(/q quit$/);
      for (const line of frame) expect(line, line).not.toMatch(/…$/);
    },
  );

  it("in a terminal that reports 0 x 0: drawn as 80 x 24, whole lines", { timeout: 60_000 }, async () => {
    const command = `stty cols 0 rows 0; exec ${quote(process.execPath)} ${quote(BIN)} coverage -i -c ${quote(COVERAGE)}`;
    const child = execa("script", ["-qfec", command, "/dev/null"], {
      cwd: box.dir,
      env: { INTERLOPER_TEST_DATA: box.data, NO_COLOR: "1", CI: undefined, FORCE_COLOR: undefined, DEBUG: undefined },
      reject: false,
      timeout: 50_000,
    });
    let output = "";
    // q until it quits, a few times a second: keys typed before ink puts the terminal in raw mode
    // are echoed, and answering every chunk of output with a key would answer its own echoes.
    let quitting: NodeJS.Timeout | undefined;
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (quitting === undefined && plain(output).includes(KEYS_HELP)) quitting = setInterval(() => child.stdin!.write("q"), 300);
    });
    const result = await child.finally(() => clearInterval(quitting));
    expect(result.exitCode, plain(output).slice(-2000)).toBe(0);
    const lines = TerminalScreen.of(output, 80, 24).lines.map((l) => l.trimEnd());
    const frame = lines.slice(lines.findLastIndex((l) => l.startsWith("coverage explorer: ")));
    expect(frame.length, frame.join("\n")).toBeLessThanOrEqual(23);
    expect(frame.some((l) => l.startsWith("› cov.orders"))).toBe(true);
    expect(output).not.toContain("\u001b[2J");
  });
});
