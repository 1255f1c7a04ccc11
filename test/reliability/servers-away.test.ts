// Servers going away: a CLI backfill whose destination (PostgreSQL, MySQL/MariaDB, S3 on moto,
// GCS on the JSON API server of test/support, run by this test process)
// connects through a TCP proxy (test/support/tcp-proxy.ts), and the proxy breaks at a random
// moment of the writes: every connection reset at once (a crash, a cut), or the server down for
// a moment and back. Every run must end as a run ends: the summary, exit 1 (0 when the break
// missed every write), each failure one line naming the destination; never an unhandled error or
// a stack trace. Nothing is torn: every stored partition reads back exactly as the fixture makes
// it, and every partition stored before stays. Then `materialize --missing` completes the window.
// A hung server (the proxy forwarding nothing) ends in a failure naming what hung, by --timeout.
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GCSDestination, S3Destination } from "../../src/destination/store/index.js";
import { TimePartition } from "../../src/partitioning/index.js";
import type { Destination } from "../../src/destination/index.js";
import { MySQLDestination, PostgresDestination } from "../../src/destination/database/index.js";
import { InterloperError } from "../../src/errors.js";
import { MYSQL_CONNECTION, mysqlAvailable, PG_CONNECTION, postgresAvailable } from "../database/servers.js";
import { motoAvailable, startMoto, TEST_CONNECTION, type Moto } from "../object-store/moto.js";
import { startTcpProxy } from "../support/tcp-proxy.js";
import { type GcsServer, startGcsServer } from "../support/gcs-server.js";
import { SECRETS } from "../../fixtures/projects/reliability/interloper.config.js";
import {
  checkPartitions,
  type Child,
  days,
  ensureBuilt,
  eventRows,
  eventsContext,
  localDestination,
  LONG,
  normalRows,
  prng,
  runCli,
  seedFor,
  startCli,
  useTempDirs,
} from "./helpers.js";

const tempDir = useTempDirs();
/** Breaks per server: 2, or 4 with INTERLOPER_RELIABILITY_LONG=1 (each a whole backfill and its --missing run: 5 took CI past its time). */
const ROUNDS = LONG ? 4 : 2;
const WINDOW = days("2024-02-01", "2024-03-07");
// 20 to 140 rows of ~400 bytes a day: each write takes a few round trips, so a break lands in one.
const SCALE = 20;
const PAD = 300;
const ROWS = { REL_SCALE: String(SCALE), REL_PAD: String(PAD) };
/** Roughly the bytes a whole backfill sends: the break comes after a random share of them. */
const BYTES = WINDOW.partitions.reduce(
  (sum, p) => sum + eventRows(p.key, "w", SCALE, PAD).reduce((n, row) => n + row.text.length + 40, 0),
  0,
);

type Kind = "postgres" | "mysql" | "s3" | "gcs";
const KINDS = ["postgres", "mysql", "s3", "gcs"] as const;
/** The dataset an object store's fixture writes to; the databases take REL_DATASET. */
const datasetOf = (kind: Kind, server: Server): string => (kind === "s3" || kind === "gcs" ? "rel" : server.env(0)["REL_DATASET"]!);

/** A server the destination reaches through the proxy, and how the test reads what it holds. */
interface Server {
  /** How failures name the destination. */
  readonly named: RegExp;
  readonly target: { host: string; port: number };
  /** The fixture's variables to reach it through a proxy on `port`. */
  env(port: number): Record<string, string>;
  /** Arguments every materialize of this server takes. */
  readonly args: readonly string[];
  /** Child processes of the pool in the hung-server test. */
  readonly processes: number;
  /** A destination straight to the server (no proxy), for the checks. */
  reader(): Destination & { close?: () => Promise<void> };
  cleanup(): Promise<void>;
}

let moto: Moto | null = null;
let gcs: GcsServer | null = null;
const available: Record<Kind, boolean> = { postgres: false, mysql: false, s3: false, gcs: false };

beforeAll(async () => {
  await ensureBuilt();
  available.postgres = await postgresAvailable();
  available.mysql = await mysqlAvailable();
  available.s3 = motoAvailable();
  if (available.s3) moto = await startMoto();
  gcs = await startGcsServer();
  available.gcs = true;
}, 180_000);

afterAll(async () => {
  await moto?.stop();
  await gcs?.stop();
});

async function server(kind: Kind): Promise<Server> {
  const name = `il_rel_away_${randomBytes(4).toString("hex")}`;
  if (kind === "s3") {
    await moto!.createBucket(name.replaceAll("_", "-"));
    const bucket = name.replaceAll("_", "-");
    const endpoint = new URL(moto!.endpoint);
    return {
      named: /S3Destination/,
      target: { host: endpoint.hostname, port: Number(endpoint.port) },
      args: [],
      processes: 2,
      env: (port) => ({ REL_DEST: "s3", REL_S3_BUCKET: bucket, REL_S3_ENDPOINT: `http://127.0.0.1:${port}` }),
      reader: () => new S3Destination({ bucket, format: "jsonl", connection: { ...TEST_CONNECTION, endpoint: moto!.endpoint } }),
      cleanup: async () => undefined,
    };
  }
  if (kind === "gcs") {
    const bucket = name.replaceAll("_", "-");
    gcs!.createBucket(bucket);
    const endpoint = new URL(gcs!.endpoint);
    return {
      named: /GCSDestination/,
      target: { host: endpoint.hostname, port: Number(endpoint.port) },
      args: [],
      processes: 2,
      env: (port) => ({ REL_DEST: "gcs", REL_GCS_BUCKET: bucket, REL_GCS_ENDPOINT: `http://127.0.0.1:${port}` }),
      reader: () => new GCSDestination({ bucket, format: "jsonl", connection: { projectId: "test", apiEndpoint: gcs!.endpoint } }),
      cleanup: async () => undefined,
    };
  }
  const drop = async () => {
    const destination = localDestination(kind, "") as unknown as { run(sql: string): Promise<unknown>; close(): Promise<void> };
    await destination.run(kind === "postgres" ? `DROP SCHEMA IF EXISTS "${name}" CASCADE` : `DROP DATABASE IF EXISTS \`${name}\``);
    await destination.close();
  };
  return kind === "postgres"
    ? {
        named: /PostgreSQL/,
        target: { host: "127.0.0.1", port: 5432 },
        args: [],
        processes: 2,
        // A password the server never asks for (trust): it must never be printed either.
        env: (port) => ({ REL_DEST: "postgres", REL_DATASET: name, REL_PG_PORT: String(port), REL_PG_PASSWORD: SECRETS.pgPassword }),
        reader: () => localDestination("postgres", ""),
        cleanup: drop,
      }
    : {
        named: /MySQL/,
        target: { host: "127.0.0.1", port: 3306 },
        args: [],
        processes: 2,
        env: (port) => ({ REL_DEST: "mysql", REL_DATASET: name, REL_MYSQL_PORT: String(port) }),
        reader: () => localDestination("mysql", ""),
        cleanup: drop,
      };
}

/** What `server` holds of rel.events, every partition checked against the fixture's rows. */
async function stored(kind: Kind, server: Server, where: string): Promise<Set<string>> {
  const reader = server.reader();
  try {
    const dataset = datasetOf(kind, server);
    const counts = await checkPartitions(reader, `${where}: ${kind}`, WINDOW, { scale: SCALE, pad: PAD, dataset });
    return new Set(Object.keys(counts));
  } finally {
    await reader.close?.();
  }
}

/** The partitions a plain-output run reported written ("ok  [ 3/36] 2024-02-03  ..."). */
function reportedOk(stderr: string): string[] {
  return [...stderr.matchAll(/^ok\s+(?:\[\s*\d+\/\d+\]\s+)?(\d{4}-\d{2}-\d{2})\b/gm)].map((m) => m[1]!);
}

/** The run ended as a run ends: one of the expected exits, the summary, no crash, no secret. */
function expectCleanEnd(child: Child, exit: { code: number | null; signal: NodeJS.Signals | null }, server: Server, where: string): void {
  const stderr = child.stderr();
  const context = `${where}\n${stderr}`;
  expect(exit.signal, context).toBeNull();
  expect([0, 1], context).toContain(exit.code);
  expect(stderr, context).toMatch(
    exit.code === 0 ? /^Done: \d+ of \d+ partitions completed/m : /^Failed: \d+ of \d+ partitions completed/m,
  );
  expect(stderr, context).not.toMatch(/unexpected error|Unhandled|uncaught/i);
  expect(stderr, context).not.toMatch(/^\s+at /m);
  expect(stderr + child.stdout(), context).not.toContain(SECRETS.pgPassword);
  if (exit.code === 1) {
    const failures = stderr.split("\n").filter((line) => line.startsWith("FAIL "));
    expect(failures.length, context).toBeGreaterThan(0);
    for (const line of failures) expect(line, context).toMatch(server.named);
    expect(stderr, context).toMatch(/^Re-run what did not complete with:/m);
  }
}

describe("servers going away mid-backfill", () => {
  for (const kind of KINDS) {
    it(`${kind}: ${ROUNDS} breaks at random moments end with a summary, nothing torn, --missing completes`, async () => {
      if (!available[kind]) return;
      const seed = seedFor(`servers going away (${kind})`);
      const random = prng(seed);
      const target = await server(kind);
      const proxy = await startTcpProxy(target.target);
      const data = await tempDir();
      const env = { ...target.env(proxy.port), ...ROWS };
      let before = new Set<string>();
      const outcomes: string[] = [];
      try {
        for (let round = 0; round < ROUNDS; round++) {
          const outage = random() < 0.5;
          const downMs = Math.floor(random() * 1500);
          const share = random();
          const args = [
            "materialize",
            "events",
            "-w",
            String(WINDOW),
            "--order",
            random() < 0.5 ? "newest" : "oldest",
            ...(random() < 0.5 ? ["--no-fail-fast"] : []),
            ...target.args,
          ];
          const where = `round ${round} of ${kind} (seed ${seed}; ${args.join(" ")}; ${outage ? `server down ${downMs} ms` : "connections reset"} after ${Math.round(share * 100)}% of the bytes)`;
          const sent = proxy.forwarded;
          const child = startCli(args, data, env);
          let ended = false;
          void child.exit.then(() => (ended = true));
          while (!ended && proxy.forwarded - sent < share * BYTES) await sleep(2);
          const missed = ended;
          if (outage) {
            await proxy.stop();
            await sleep(downMs);
            await proxy.start();
          } else proxy.kill();
          const exit = await child.exit;
          expectCleanEnd(child, exit, target, where);
          const cause = /^FAIL .*?failed \((.*)\)\s+\S+$/m.exec(child.stderr())?.[1];
          outcomes.push(`exit ${exit.code}${missed ? " (ended before the break)" : ""}${cause ? ` (${cause})` : ""}`);
          const now = await stored(kind, target, where);
          for (const key of [...before, ...reportedOk(child.stderr())])
            expect(now.has(key), `${where}: partition ${key} was written and is gone`).toBe(true);
          before = now;
        }
        const final = await runCli(["materialize", "events", "-w", String(WINDOW), "--missing", ...target.args], data, env);
        expect(final.code, final.stderr).toBe(0);
        const now = await stored(kind, target, "after --missing");
        expect([...now].sort()).toEqual(WINDOW.partitions.map((p) => p.key));
        console.log(
          `servers going away (${kind}): ${outcomes.join("; ")}; --missing wrote ${WINDOW.partitions.length - before.size} partitions`,
        );
      } finally {
        await proxy.close();
        await target.cleanup();
      }
    }, 240_000);
  }
});

/**
 * One large partition written in process through the proxy, every connection reset once a
 * random share of its bytes has gone (mid-COPY, mid-INSERT batches, mid-PutObject). The write
 * fails with an interloper error naming the destination, or (S3 and GCS, whose clients retry a reset
 * request) succeeds whole; the partition then holds its old rows or its new ones, never a part.
 * An error event nobody listened to would fail this file as an unhandled error.
 */
describe("a connection cut mid-transfer, in process", () => {
  const DAY = "2024-02-07";
  const BIG = { scale: 2000, pad: 2000 };
  for (const kind of KINDS) {
    it(`${kind}: the write fails naming the destination or succeeds whole, never torn`, async () => {
      if (!available[kind]) return;
      const seed = seedFor(`a connection cut mid-transfer (${kind})`);
      const random = prng(seed);
      const target = await server(kind);
      const proxy = await startTcpProxy(target.target);
      const dataset = datasetOf(kind, target);
      const reader = target.reader();
      const writer = throughProxy(kind, target, proxy.port);
      const partition = TimePartition.fromKey(DAY);
      const read = async () => JSON.stringify(normalRows(await reader.readPartition(eventsContext(partition, dataset), partition)));
      try {
        const old = eventRows(DAY, "w");
        await reader.write(eventsContext(partition, dataset), old);
        const rows = eventRows(DAY, "w2", BIG.scale, BIG.pad);
        const bytes = rows.reduce((n, row) => n + row.text.length, 0);
        const share = 0.1 + 0.8 * random();
        const sent = proxy.forwarded;
        const writing = writer.write(eventsContext(partition, dataset), rows).then(
          () => null,
          (error: unknown) => error,
        );
        let settled = false;
        void writing.then(() => (settled = true));
        while (!settled && proxy.forwarded - sent < share * bytes) await sleep(1);
        const missed = settled;
        proxy.kill();
        const error = await writing;
        const where = `${kind} (seed ${seed}): cut after ${Math.round(share * 100)}% of ${bytes} bytes${missed ? ", but the write had ended" : ""}`;
        if (error === null) {
          expect(await read(), where).toBe(JSON.stringify(rows));
        } else {
          expect(error, `${where}: ${String(error)}`).toBeInstanceOf(InterloperError);
          const message = (error as Error).message;
          expect(message, where).toMatch(target.named);
          expect(message.split("\n"), where).toHaveLength(1);
          expect(await read(), where).toBe(JSON.stringify(old));
        }
        console.log(
          `a connection cut mid-transfer (${kind}): ${where}: ${error === null ? "the write succeeded" : (error as Error).message}`,
        );
      } finally {
        await writer.close?.();
        await reader.close?.();
        await proxy.close();
        await target.cleanup();
      }
    }, 120_000);
  }
});

/** The destination the fixture makes for `kind`, built in this process, reaching the server through the proxy on `port`. */
function throughProxy(kind: Kind, target: Server, port: number): Destination & { close?: () => Promise<void> } {
  const env = target.env(port);
  if (kind === "postgres") return new PostgresDestination({ connection: { ...PG_CONNECTION, port } });
  if (kind === "mysql") return new MySQLDestination({ connection: { ...MYSQL_CONNECTION, port } });
  if (kind === "gcs")
    return new GCSDestination({
      bucket: env["REL_GCS_BUCKET"]!,
      format: "jsonl",
      connection: { projectId: "test", apiEndpoint: env["REL_GCS_ENDPOINT"]! },
    });
  return new S3Destination({
    bucket: env["REL_S3_BUCKET"]!,
    format: "jsonl",
    connection: { ...TEST_CONNECTION, endpoint: env["REL_S3_ENDPOINT"]! },
  });
}

/**
 * A hung server: the proxy accepts and holds every byte. In process, a partition past --timeout
 * is abandoned (its write never completes later); in the pool its child fails it, or is stopped.
 * Either way the run fails naming the partitions that timed out.
 */
const HUNG_MODES: { readonly name: string; readonly args: (server: Server) => readonly string[]; readonly hung: RegExp }[] = [
  { name: "pool", args: (server) => ["--processes", String(server.processes)], hung: /timed out after 3s/ },
  { name: "in process", args: () => [], hung: /timed out after 3s/ },
];

const HUNG_WINDOW = days("2024-02-01", "2024-02-10");
const HUNG_BYTES =
  HUNG_WINDOW.partitions.reduce((sum, p) => sum + eventRows(p.key, "w", SCALE, PAD).reduce((n, row) => n + row.text.length, 0), 0) / 3;

/**
 * Which server hangs in which mode: every pair in the long variant; in a plain `npm test` each
 * server once and each mode twice (the pool alternates with in process), half the time.
 */
const hungCase = (kind: Kind, mode: (typeof HUNG_MODES)[number]): boolean => LONG || HUNG_MODES.indexOf(mode) === KINDS.indexOf(kind) % 2;

// Concurrent: each waits mostly for the pool's grace before SIGKILL (15 s) of a hung child.
describe.concurrent("a hung server mid-backfill", () => {
  for (const kind of KINDS) {
    for (const mode of HUNG_MODES.filter((m) => hungCase(kind, m))) {
      it(`${kind}, ${mode.name}: the run fails within --timeout naming what hung, and --missing completes`, async () => {
        if (!available[kind]) return;
        const target = await server(kind);
        const proxy = await startTcpProxy(target.target);
        const data = await tempDir();
        const env = { ...target.env(proxy.port), ...ROWS };
        try {
          const window = HUNG_WINDOW;
          const child = startCli(
            ["materialize", "events", "-w", String(window), "--timeout", "3s", ...mode.args(target), ...target.args],
            data,
            env,
          );
          // Hung in the middle of the writes: a third of the window's bytes have gone through.
          while (proxy.forwarded < HUNG_BYTES && child.process.exitCode === null) await sleep(2);
          proxy.pause();
          const exit = await child.exit;
          const stderr = child.stderr();
          expect(exit.code, stderr).toBe(1);
          expect(stderr).toMatch(/^Failed: \d+ of 10 partitions completed/m);
          expect(stderr).not.toMatch(/unexpected error|Unhandled|^\s+at /im);
          // A partition the pool stopped after the first failure prints as "FAIL <key>" and its
          // time, with no reason (reported); every line giving a reason must name what hung.
          const failures = stderr.split("\n").filter((line) => /^FAIL (\[[^\]]*\] )?\d{4}-\d{2}-\d{2} {2}\S/.test(line));
          expect(failures.length, stderr).toBeGreaterThan(0);
          // Each failure names what hung: the child killed at --timeout, or (a partition that
          // was connecting) the driver's own connect timeout, naming the server.
          for (const line of failures)
            expect(line, stderr).toMatch(new RegExp(`${mode.hung.source}|${target.named.source}.*(timeout|ETIMEDOUT)`));
          proxy.resume();
          const final = await runCli(["materialize", "events", "-w", String(window), "--missing", ...target.args], data, env);
          expect(final.code, final.stderr).toBe(0);
          const reader = target.reader();
          try {
            const counts = await checkPartitions(reader, kind, window, { scale: SCALE, pad: PAD, dataset: datasetOf(kind, target) });
            expect(Object.keys(counts).sort()).toEqual(window.partitions.map((p: TimePartition) => p.key));
          } finally {
            await reader.close?.();
          }
        } finally {
          await proxy.close();
          await target.cleanup();
        }
      }, 120_000);
    }
  }
});
