// `interloper coverage --interactive` end to end (issue 22): once in a real pseudo-terminal
// (util-linux `script`), keys typed as a user would; and refused, in one line, where it cannot run.
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { BIN, oneLineError, usePreparedSandbox, useSandboxes } from "./helpers.js";
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
});
