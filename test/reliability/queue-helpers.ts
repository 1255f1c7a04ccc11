// Helpers of the work-queue tests (queue-workers, queue-failures): each test's world of
// schemas (destination, queue, pg-boss), its run log, and the built CLI pointed at them.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import pg from "pg";
import { afterAll, beforeAll, expect } from "vitest";
import { PG_CONNECTION, postgresAvailable, uniqueName } from "../database/servers.js";
import { BIN, cli, ensureBuilt, FIXTURES, useSandboxes, type CliResult } from "../e2e/helpers.js";

export const CONFIG = join(FIXTURES, "queue", "interloper.config.ts");
export const PG_URL = `postgres://${PG_CONNECTION.user}@${PG_CONNECTION.host}:${PG_CONNECTION.port}/${PG_CONNECTION.database}`;
export const up = await postgresAvailable();
const sandbox = useSandboxes();
export const admin = new pg.Client(PG_CONNECTION);
const schemas: string[] = [];

beforeAll(async () => {
  if (!up) return;
  await ensureBuilt();
  await admin.connect();
}, 180_000);

afterAll(async () => {
  if (!up) return;
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
});

/** One test's world: its schemas, its run log, and the CLI with them. */
export async function world(extraEnv: Record<string, string> = {}) {
  const box = await sandbox();
  const dataset = uniqueName("il_qd");
  const queueSchema = uniqueName("il_qq");
  schemas.push(dataset, queueSchema, `${queueSchema}_boss`);
  const log = join(box.dir, "runs.log");
  const env = { QUEUE_DATASET: dataset, QUEUE_LOG: log, ...extraEnv };
  const queue = (url = PG_URL) => `${url}?schema=${queueSchema}`;
  const run = (args: readonly string[], more: Record<string, string> = {}): Promise<CliResult> =>
    cli([...args, "-c", CONFIG], { cwd: box.dir, env: { ...env, ...more } });
  /** A worker process, left running: its exit is `done`. */
  const worker = (args: readonly string[], more: Record<string, string> = {}, url = PG_URL) => {
    const child = execa(process.execPath, [BIN, "worker", "--queue", queue(url), "-c", CONFIG, "--poll", "200ms", ...args], {
      cwd: box.dir,
      env: { ...process.env, CI: "1", NO_COLOR: "1", ...env, ...more },
      reject: false,
      stdin: "ignore",
      timeout: 80_000,
    });
    const done = child.then((r) => ({
      exitCode: r.exitCode ?? -1,
      signal: r.signal ?? null,
      stderr: String(r.stderr),
      stdout: String(r.stdout),
    }));
    return { child, pid: child.pid!, done };
  };
  const lines = async () => (await readFile(log, "utf8").catch(() => "")).split("\n").filter(Boolean);
  const progress = async (id: string) => {
    const result = await run(["backfills", id, "--queue", queue(), "--json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as {
      counts: Record<string, number>;
      slots: Array<{ partition: string; state: string; attempts: number; worker: string | null; error: { message: string } | null }>;
    };
  };
  /** Each day's row count in the destination, and the monthly rows. */
  const stored = async () => {
    const days = await admin.query(`SELECT date::text AS day, count(*)::int AS n FROM ${dataset}.orders GROUP BY 1 ORDER BY 1`);
    const months = await admin
      .query(`SELECT month::text AS month, days::int AS days, "rows"::int AS "rows" FROM ${dataset}.monthly ORDER BY 1`)
      .catch(() => ({ rows: [] }));
    return { days: Object.fromEntries(days.rows.map((r: { day: string; n: number }) => [r.day, r.n])), months: months.rows };
  };
  return { box, run, worker, queue, lines, progress, stored, dataset };
}

/** The keys of a range of days. */
export function daysOf(first: string, last: string): string[] {
  const out: string[] = [];
  for (let d = new Date(`${first}T00:00:00Z`); d <= new Date(`${last}T00:00:00Z`); d.setUTCDate(d.getUTCDate() + 1))
    out.push(d.toISOString().slice(0, 10));
  return out;
}
export const dayCount = (key: string) => Number(key.slice(8, 10));
export const completions = (lines: readonly string[], what: string) => lines.filter((l) => l.startsWith(`${what} `)).length;
