// Races: two CLI processes writing the same partition at once (each writer's rows are
// distinguishable: w2 writes 3 more rows, every row tagged): afterwards the partition holds
// exactly one writer's complete rows. And readers during writes never see a partial partition.
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { DataNotFoundError } from "../../src/errors.js";
import { TimePartition } from "../../src/partitioning/index.js";
import { mysqlAvailable, postgresAvailable } from "../database/servers.js";
import { waitUntil } from "../e2e/pool-helpers.js";
import { type Child, checkStored, days, ensureBuilt, eventRows, eventsContext, localDestination, LONG, normalRows, startCli, useTempDirs, type LocalKind } from "./helpers.js";

const tempDir = useTempDirs();
const ROUNDS = LONG ? 8 : 2;
const DAY = "2024-05-01";
const PAD = 20_000;

let servers = { postgres: false, mysql: false };
beforeAll(async () => {
  await ensureBuilt();
  servers = { postgres: await postgresAvailable(), mysql: await mysqlAvailable() };
}, 180_000);

/** The exit a summary line ("Done: ..." / "Failed: ...") stands for; the process is then stopped. */
async function summaryExit(child: Child): Promise<{ code: number | null }> {
  const ended = await Promise.race([
    child.exit.then((e) => ({ code: e.code })),
    waitUntil(() => /^(Done|Failed): /m.test(child.stderr()), "the summary line", 60_000).then(() => ({ code: /^Done: /m.test(child.stderr()) ? 0 : 1 })),
  ]);
  child.process.kill("SIGKILL");
  await child.exit;
  return ended;
}

async function dropDataset(kind: "postgres" | "mysql", dataset: string): Promise<void> {
  const destination = localDestination(kind, "") as unknown as { run(sql: string): Promise<unknown>; close(): Promise<void> };
  await destination.run(kind === "postgres" ? `DROP SCHEMA IF EXISTS "${dataset}" CASCADE` : `DROP DATABASE IF EXISTS \`${dataset}\``);
  await destination.close();
}

describe("two processes writing the same partition at once", () => {
  for (const kind of ["csv", "file", "parquet", "sqlite", "postgres", "mysql"] as const) {
    it(`${kind}: the partition holds exactly one writer's complete rows (${ROUNDS} rounds)`, async () => {
      if ((kind === "postgres" || kind === "mysql") && !servers[kind]) return;
      const data = await tempDir();
      const dataset = kind === "postgres" || kind === "mysql" ? `il_rel_race_${randomBytes(4).toString("hex")}` : "rel";
      try {
        for (let round = 0; round < ROUNDS; round++) {
          const env = (writer: string) => ({ REL_DEST: kind, REL_DATASET: dataset, REL_WRITER: writer, REL_PAD: String(PAD) });
          const writers = [startCli(["materialize", "events", "-p", DAY], data, env("w")), startCli(["materialize", "events", "-p", DAY], data, env("w2"))];
          // A CLI process with a database destination does not exit once done (its connection
          // pool stays open: reported to the lead), so its summary line is taken as its end.
          const exits = await Promise.all(writers.map((w) => (kind === "postgres" || kind === "mysql" ? summaryExit(w) : w.exit)));
          // Both succeed; a database may refuse one of two colliding transactions, cleanly.
          expect(exits.some((e) => e.code === 0), writers.map((w) => w.stderr()).join("\n")).toBe(true);
          for (const [i, e] of exits.entries()) {
            expect([0, 1], writers[i]!.stderr()).toContain(e.code);
            expect(writers[i]!.stderr()).not.toMatch(/unexpected error/);
          }
          const state = await checkStored(kind, data, days(DAY, DAY), { writers: ["w", "w2"], pad: PAD, dataset });
          expect(Object.keys(state.counts)).toEqual([DAY]);
        }
      } finally {
        if (kind === "postgres" || kind === "mysql") await dropDataset(kind, dataset);
      }
    }, 120_000);
  }
});

describe("readers while a writer rewrites a large partition", () => {
  // SQLite is not here yet: a reader on a second connection once saw the partition as written
  // with 0 rows while another connection rewrote it (reported to the lead as an open finding).
  for (const kind of ["csv", "file", "parquet", "jsonl"] as const satisfies readonly LocalKind[]) {
    it(`${kind}: every read is one writer's complete partition`, async () => {
      const data = await tempDir();
      const writer = localDestination(kind, data);
      const reader = localDestination(kind, data);
      const partition = TimePartition.fromKey(DAY);
      const context = eventsContext(partition);
      const big = 2_000;
      const versions = { w: eventRows(DAY, "w", 1, big), w2: eventRows(DAY, "w2", 1, big) };
      const expected = new Map(Object.values(versions).map((rows) => [JSON.stringify(rows), rows[0]!.writer]));
      let writing = true;
      let reads = 0;
      const seen = new Set<string>();
      try {
        const write = (async () => {
          for (let i = 0; i < (LONG ? 60 : 16); i++) await writer.writePartition(context, partition, i % 2 === 0 ? versions.w : versions.w2);
          writing = false;
        })();
        const read = (async () => {
          while (writing) {
            let rows;
            try {
              rows = normalRows(await reader.readPartition(context, partition));
            } catch (error) {
              if (error instanceof DataNotFoundError) continue;
              throw error;
            }
            reads++;
            const who = expected.get(JSON.stringify(rows));
            expect(who, `read ${reads} saw a partition that no writer wrote (${rows.length} rows)`).toBeDefined();
            seen.add(who!);
          }
        })();
        await Promise.all([write, read]);
      } finally {
        await (writer as { close?: () => Promise<void> }).close?.();
        await (reader as { close?: () => Promise<void> }).close?.();
      }
      expect(reads).toBeGreaterThan(0);
      const state = await checkStored(kind, data, days(DAY, DAY), { writers: ["w", "w2"], pad: big });
      expect(state.counts).toEqual({ [DAY]: versions.w2.length });
    }, 120_000);
  }
});
