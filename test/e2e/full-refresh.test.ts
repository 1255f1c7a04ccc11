// Issue 17 item 6, through the built CLI: `materialize --full-refresh` drops what each
// destination (CSV files and SQLite here) holds of the selected assets, then rebuilds the
// window. The way out of a schema change: a column whose type changed is refused by a plain
// re-materialize, and is rebuilt in its new shape by a full refresh. A terminal is asked first
// (under a real pseudo-terminal here), anything else must say --yes; --dry-run drops nothing.
import { spawnSync } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, realpath, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, cli, ensureBuilt, FIXTURES, listFiles, oneLineError, ROOT } from "./helpers.js";

const made: string[] = [];
beforeAll(async () => ensureBuilt(), 180_000);
afterAll(async () => {
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A copy of the fixture project, with orders and orders_daily materialized for 2026-01-01..04. */
async function project(): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "interloper-refresh-")));
  made.push(dir);
  await cp(join(FIXTURES, "refresh", "interloper.config.ts"), join(dir, "interloper.config.ts"));
  await mkdir(join(dir, "node_modules"));
  // It imports "interloper" and "zod" as a user's project would: from its node_modules.
  await symlink(ROOT, join(dir, "node_modules", "interloper"), "dir");
  await symlink(join(ROOT, "node_modules", "zod"), join(dir, "node_modules", "zod"), "dir");
  const result = await cli(["materialize", "-w", "2026-01-01..2026-01-04"], { cwd: dir });
  expect(result.exitCode, result.stderr).toBe(0);
  return dir;
}

/** Every file of the project's data, with its bytes: what must not change when nothing is dropped. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const files = (await listFiles(join(dir, "data"))).filter((f) => !f.startsWith("."));
  const out: Record<string, string> = {};
  for (const file of files) out[file] = await readFile(join(dir, "data", file), "utf8");
  out["warehouse"] = JSON.stringify(query(dir, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"));
  out["orders"] = JSON.stringify(query(dir, 'SELECT date, id, amount FROM "shop.orders" ORDER BY date, id'));
  out["ledger"] = JSON.stringify(query(dir, 'SELECT entry FROM "shop._interloper_partitions" ORDER BY entry'));
  return out;
}

function query(dir: string, sql: string): unknown[] {
  const db = new Database(join(dir, "warehouse.db"), { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

const csvDays = async (dir: string, table: string) =>
  (await listFiles(join(dir, "data", "shop", table)))
    .filter((f) => f.endsWith("/data.csv"))
    .map((f) => f.slice("date=".length, "date=".length + 10));

describe("materialize --full-refresh", () => {
  it("gets past a column whose type changed: refused in place, rebuilt in the new shape, the stored partitions outside the window too (issue 32.10)", async () => {
    const dir = await project();
    const text = { REFRESH_AMOUNT: "text" };
    const plain = await cli(["materialize", "orders", "-w", "2026-01-02..2026-01-03"], { cwd: dir, env: text });
    expect(plain.exitCode).toBe(1);
    expect(plain.stderr).toContain("a column's type cannot change in place");

    const refreshed = await cli(["materialize", "orders", "-w", "2026-01-02..2026-01-03", "--full-refresh", "--yes"], {
      cwd: dir,
      env: text,
    });
    expect(refreshed.exitCode, refreshed.stderr).toBe(0);
    expect(refreshed.stderr).toContain("Dropped what 2 destination(s) held of 1 asset(s).");
    expect(refreshed.stderr).toContain(
      "then rebuild shop.orders for 2026-01-02..2026-01-03 and the 2 stored partitions outside it (every partition dropped is rebuilt), within 2026-01-01..2026-01-04.",
    );
    expect(query(dir, `SELECT type FROM pragma_table_info('shop.orders') WHERE name = 'amount'`)).toEqual([{ type: "TEXT" }]);
    // Every partition dropped is rebuilt, in the new shape: none of the 4 is lost.
    const days = ["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04"];
    expect(query(dir, 'SELECT date, id, amount FROM "shop.orders" ORDER BY date, id')).toEqual(
      days.flatMap((date) => [
        { date, id: 1, amount: "EUR 1.5" },
        { date, id: 2, amount: "EUR 3" },
      ]),
    );
    expect(query(dir, `SELECT entry FROM "shop._interloper_partitions" WHERE entry LIKE '["orders",%' ORDER BY entry`)).toEqual(
      days.map((day) => ({ entry: `["orders","${day}"]` })),
    );
    expect(await csvDays(dir, "orders")).toEqual(days);
    expect(await readFile(join(dir, "data", "shop", "orders", "date=2026-01-02", "data.csv"), "utf8")).toBe(
      "date,id,amount\n2026-01-02,1,EUR 1.5\n2026-01-02,2,EUR 3\n",
    );
    // The sibling whose name starts with "orders" was not selected: all of it is still there.
    expect(await csvDays(dir, "orders_daily")).toEqual(["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04"]);
    expect(query(dir, 'SELECT COUNT(*) AS n FROM "shop.orders_daily"')).toEqual([{ n: 4 }]);
  }, 120_000);

  it("--dry-run says what would be dropped and rebuilt, and drops nothing", async () => {
    const dir = await project();
    const before = await snapshot(dir);
    const result = await cli(["materialize", "orders", "-w", "2026-01-02..2026-01-03", "--full-refresh", "--dry-run"], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.outLines.slice(0, 5)).toEqual([
      "Dry run: nothing is dropped.",
      "Would drop:",
      `  shop.orders -> csv: CSV files: folder ${join(dir, "data", "shop", "orders")} (4 partitions)`,
      `  shop.orders -> warehouse: SQLite: table shop.orders in ${join(dir, "warehouse.db")} (4 partitions)`,
      "then rebuild shop.orders for 2026-01-02..2026-01-03 and the 2 stored partitions outside it (every partition dropped is rebuilt), within 2026-01-01..2026-01-04.",
    ]);
    expect(result.outLines).toContain("Dry run: nothing is written.");
    expect(await snapshot(dir)).toEqual(before);
  }, 120_000);

  it("without --yes and no terminal to ask: one line, exit 2, nothing dropped; bad combinations are refused too", async () => {
    const dir = await project();
    const before = await snapshot(dir);
    const refused = await cli(["materialize", "orders", "-w", "2026-01-02..2026-01-03", "--full-refresh"], { cwd: dir });
    expect(refused.exitCode).toBe(2);
    expect(oneLineError(refused)).toBe(
      "interloper: --full-refresh would drop what 2 destination(s) hold of 1 asset(s), and no terminal can confirm it: pass --yes to go ahead (--dry-run lists what would be dropped)",
    );
    for (const [args, says] of [
      [["--yes"], "interloper: --yes only applies with --full-refresh"],
      [
        ["--full-refresh", "--yes", "--missing"],
        "interloper: --full-refresh drops whole assets and rebuilds the window: it cannot be combined with --missing",
      ],
      [
        ["--full-refresh", "--yes", "--shard", "1/2"],
        "interloper: --full-refresh drops whole assets and rebuilds the window: it cannot be combined with --shard (every shard would drop what the others wrote)",
      ],
    ] as const) {
      const result = await cli(["materialize", "orders", "-w", "2026-01-02..2026-01-03", ...args], { cwd: dir });
      expect(result.exitCode, args.join(" ")).toBe(2);
      expect(oneLineError(result)).toBe(says);
    }
    // A partitioned asset with no window cannot run: refused before anything is dropped.
    const noWindow = await cli(["materialize", "orders", "--full-refresh", "--yes"], { cwd: dir });
    expect(noWindow.exitCode).toBe(2);
    expect(await snapshot(dir)).toEqual(before);
  }, 120_000);

  // Through two CLI processes (the lock's files are shared by pid and host); the deterministic
  // regression test of the race is test/destination/asset-lock.test.ts. One round, ten in the long
  // variant, each given a minute (a round took 40 s on a loaded machine).
  const raceRounds = process.env["INTERLOPER_RELIABILITY_LONG"] ? 10 : 1;
  it(
    "racing a backfill of the same asset in another process: never half dropped, CSV and SQLite agree (issue 31.15)",
    async () => {
      for (let round = 0; round < raceRounds; round++) {
        const dir = await project();
        const backfill = cli(["materialize", "orders", "-w", "2026-01-01..2026-02-28", "--concurrency", "2"], { cwd: dir });
        await new Promise((resolve) => setTimeout(resolve, 300 + round * 150));
        const refresh = await cli(["materialize", "orders", "-w", "2026-01-02..2026-01-03", "--full-refresh", "--yes"], { cwd: dir });
        const done = await backfill;
        expect(done.exitCode, done.stderr).toBe(0);
        // The refresh went ahead, or stopped before dropping anything, saying who writes.
        if (refresh.exitCode !== 0)
          expect(oneLineError(refresh)).toMatch(/^interloper: asset "shop\.orders" is being written by another writer \(pid \d+ on /);
        expect(refresh.stderr).not.toContain("unexpected error");
        const days = await csvDays(dir, "orders");
        const stored = query(dir, 'SELECT DISTINCT date FROM "shop.orders" ORDER BY date').map((row) => (row as { date: string }).date);
        expect(stored).toEqual(days);
        expect(query(dir, 'SELECT COUNT(*) AS n FROM "shop.orders"')).toEqual([{ n: 2 * days.length }]);
      }
    },
    Math.max(180_000, raceRounds * 60_000),
  );

  it("drops only the selected assets: the upstream asset it reads keeps everything", async () => {
    const dir = await project();
    const result = await cli(["materialize", "orders_daily", "-w", "2026-01-03..2026-01-03", "--full-refresh", "--yes"], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(0);
    // Every partition of orders_daily dropped is rebuilt (issue 32.10), from the orders kept.
    const days = ["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04"];
    expect(await csvDays(dir, "orders_daily")).toEqual(days);
    expect(query(dir, 'SELECT date, orders FROM "shop.orders_daily" ORDER BY date')).toEqual(days.map((date) => ({ date, orders: 2 })));
    expect(await csvDays(dir, "orders")).toEqual(["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04"]);
    expect(query(dir, 'SELECT COUNT(*) AS n FROM "shop.orders"')).toEqual([{ n: 8 }]);
  }, 120_000);
});

// ---- under a pseudo-terminal: the question ----------------------------------------------------

// Runs argv[2:] under a pseudo-terminal, prints what it draws, and types argv[1] once the
// question "[y/N]" shows.
const PTY_SCRIPT = `
import fcntl, os, pty, struct, sys, termios
answer = sys.argv[1].encode()
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
    os.execv(sys.argv[2], sys.argv[2:])
out = sys.stdout.buffer
seen = b""
sent = False
while True:
    try:
        data = os.read(fd, 65536)
    except OSError:
        break
    if not data:
        break
    out.write(data)
    out.flush()
    if not sent:
        seen += data
        if b"[y/N]" in seen:
            os.write(fd, answer)
            sent = True
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
`;
const python = spawnSync("python3", ["-c", "import pty, termios"], { stdio: "ignore" }).status === 0;

async function underTerminal(dir: string, answer: string, args: readonly string[]): Promise<{ output: string; exitCode: number }> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries({
    ...process.env,
    CI: undefined,
    NO_COLOR: "1",
    FORCE_COLOR: undefined,
    DEBUG: undefined,
    TERM: "xterm-256color",
  })) {
    if (value !== undefined) env[name] = value;
  }
  const result = await execa("python3", ["-c", PTY_SCRIPT, answer, process.execPath, BIN, ...args], {
    cwd: dir,
    env,
    extendEnv: false,
    reject: false,
    stdin: "ignore",
    timeout: 60_000,
  });
  return { output: String(result.stdout), exitCode: result.exitCode ?? -1 };
}

describe("materialize --full-refresh at a terminal", () => {
  it("asks first: n, Enter (no is the default) or Ctrl-D keep everything and exit 1, Ctrl-C exits 130; y drops and rebuilds", async () => {
    if (!python) {
      console.log("python3 with the pty module is not installed: the question at a terminal is not tested here");
      return;
    }
    const dir = await project();
    const before = await snapshot(dir);
    const args = ["materialize", "orders", "-w", "2026-01-02..2026-01-03", "--full-refresh"];
    for (const [answer, exitCode, says] of [
      ["n\r", 1, "Nothing dropped."],
      ["\r", 1, "Nothing dropped."],
      ["\u0004", 1, "Nothing dropped."],
      ["\u0003", 130, "Interrupted: nothing dropped."],
    ] as const) {
      const declined = await underTerminal(dir, answer, args);
      expect(declined.exitCode, declined.output).toBe(exitCode);
      expect(declined.output).toContain("--full-refresh will drop everything these destinations hold of these assets:");
      expect(declined.output).toContain(`shop.orders -> csv: CSV files: folder ${join(dir, "data", "shop", "orders")} (4 partitions)`);
      expect(declined.output).toContain(
        "then rebuild shop.orders for 2026-01-02..2026-01-03 and the 2 stored partitions outside it (every partition dropped is rebuilt), within 2026-01-01..2026-01-04.",
      );
      expect(declined.output).toContain("Drop them? [y/N]");
      expect(declined.output).toContain(says);
      expect(await snapshot(dir)).toEqual(before);
    }
    const accepted = await underTerminal(dir, "y\r", args);
    expect(accepted.exitCode, accepted.output).toBe(0);
    expect(accepted.output).toContain("Dropped what 2 destination(s) held of 1 asset(s).");
    expect(await csvDays(dir, "orders")).toEqual(["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04"]);
    expect(query(dir, 'SELECT COUNT(*) AS n FROM "shop.orders"')).toEqual([{ n: 8 }]);
  }, 120_000);
});
