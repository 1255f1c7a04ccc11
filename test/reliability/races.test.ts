// Races: two CLI processes writing the same partition at once (each writer's rows are
// distinguishable: w2 writes 3 more rows, every row tagged): afterwards the partition holds
// exactly one writer's complete rows. And readers during writes never see a partial partition.
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { DatabaseDestination } from "../../src/destination/database/index.js";
import { PARTITION_TABLE } from "../../src/destination/database/partition-table.js";
import type { PartitionFilter } from "../../src/destination/index.js";
import { DataNotFoundError } from "../../src/errors.js";
import { TimePartition } from "../../src/partitioning/index.js";
import { mysqlAvailable, postgresAvailable } from "../database/servers.js";
import { waitUntil } from "../e2e/pool-helpers.js";
import {
  type Child,
  checkStored,
  days,
  ensureBuilt,
  eventRows,
  eventsContext,
  localDestination,
  LONG,
  normalRows,
  startCli,
  useTempDirs,
  type LocalKind,
} from "./helpers.js";

const tempDir = useTempDirs();
const ROUNDS = LONG ? 4 : 2;
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
    waitUntil(() => /^(Done|Failed): /m.test(child.stderr()), "the summary line", 60_000).then(() => ({
      code: /^Done: /m.test(child.stderr()) ? 0 : 1,
    })),
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
          const writers = [
            startCli(["materialize", "events", "-p", DAY], data, env("w")),
            startCli(["materialize", "events", "-p", DAY], data, env("w2")),
          ];
          // A CLI process with a database destination does not exit once done (its connection
          // pool stays open: reported to the lead), so its summary line is taken as its end.
          const exits = await Promise.all(writers.map((w) => (kind === "postgres" || kind === "mysql" ? summaryExit(w) : w.exit)));
          // Both succeed; a database may refuse one of two colliding transactions, cleanly.
          expect(
            exits.some((e) => e.code === 0),
            writers.map((w) => w.stderr()).join("\n"),
          ).toBe(true);
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
  // Every read (readPartition, `read` of the window as asset.read takes it) and every row count
  // sees one writer's complete window: never nothing-yet-written-as-0-rows, never a mix. The SQL
  // destinations once read rows and ledger in two snapshots, so a first write committing between
  // them read as "written, 0 rows"; they now read both in one read transaction.
  const SQL_KINDS = ["sqlite", "postgres", "mysql"] as const;
  const cases = [
    ...(["csv", "file", "parquet", "jsonl", ...SQL_KINDS] as const).map((kind) => ({ kind, last: DAY })),
    // A window of two days written at once: one transaction in SQL, so read as one writer's.
    ...SQL_KINDS.map((kind) => ({ kind, last: "2024-05-02" })),
  ] satisfies ReadonlyArray<{ kind: LocalKind; last: string }>;
  for (const { kind, last } of cases) {
    const what = last === DAY ? "partition" : `window ${DAY}..${last}`;
    it(`${kind}: every read and row count of the ${what} is one writer's complete ${what}`, async () => {
      const server = kind === "postgres" || kind === "mysql";
      if (server && !servers[kind]) return;
      const data = await tempDir();
      const dataset = server ? `il_rel_read_${randomBytes(4).toString("hex")}` : "rel";
      const writer = localDestination(kind, data);
      const reader = localDestination(kind, data);
      const window = days(DAY, last);
      const one = last === DAY;
      const partition = TimePartition.fromKey(DAY);
      const context = eventsContext(one ? partition : window, dataset);
      const big = 2_000;
      const rowsOf = (who: string) => window.partitions.flatMap((p) => eventRows(p.key, who, 1, big));
      const versions = { w: rowsOf("w"), w2: rowsOf("w2") };
      const expected = new Map(Object.values(versions).map((rows) => [JSON.stringify(rows), rows[0]!.writer]));
      const countsOf = (who: string) =>
        JSON.stringify(Object.fromEntries(window.partitions.map((p) => [p.key, eventRows(p.key, who, 1, big).length])));
      // Before the first write commits there is nothing at all; after, one writer's counts.
      const expectedCounts = new Set(["{}", countsOf("w"), countsOf("w2")]);
      let writing = true;
      let reads = 0;
      let counted = 0;
      const seen = new Set<string>();
      try {
        try {
          const write = (async () => {
            for (let i = 0; i < (LONG ? 30 : 16); i++) {
              const rows = i % 2 === 0 ? versions.w : versions.w2;
              await (one ? writer.writePartition(context, partition, rows) : writer.write(context, rows));
            }
            writing = false;
          })();
          const read = (async () => {
            for (let attempt = 0; writing; attempt++) {
              if (attempt % 3 === 2) {
                const counts = JSON.stringify(await reader.partitionRowCounts(eventsContext(null, dataset)));
                counted++;
                expect(expectedCounts.has(counts), `row count ${counted} was ${counts}: no writer's window`).toBe(true);
                continue;
              }
              let rows;
              try {
                // readPartition, and `read` of the window (the path asset.read takes).
                const value =
                  attempt % 3 === 0 && one
                    ? await reader.readPartition(context, partition)
                    : await reader.read(eventsContext(window, dataset));
                rows = normalRows(value);
              } catch (error) {
                if (error instanceof DataNotFoundError) continue;
                throw error;
              }
              reads++;
              const who = expected.get(JSON.stringify(rows));
              expect(who, `read ${reads} saw a ${what} that no writer wrote (${rows.length} rows)`).toBeDefined();
              seen.add(who!);
            }
          })();
          // Both run to their end; the first failure is then reported.
          for (const outcome of await Promise.allSettled([write, read])) if (outcome.status === "rejected") throw outcome.reason;
        } finally {
          await writer.close?.();
          await reader.close?.();
        }
        expect(reads).toBeGreaterThan(0);
        expect(counted).toBeGreaterThan(0);
        const state = await checkStored(kind, data, window, { writers: ["w", "w2"], pad: big, dataset });
        expect(JSON.stringify(state.counts)).toEqual(countsOf("w2"));
      } finally {
        if (server) await dropDataset(kind, dataset);
      }
    }, 120_000);
  }
});

describe("a write committing between the statements of a read", () => {
  // A read takes the rows, then asks the ledger whether an empty partition was written; a row
  // count takes counts, then the ledger. A first write of a partition committing between the two
  // once made the partition read as written with 0 rows. Here the reader is held at exactly that
  // point (its own select/count hook waits for a whole write by a second connection), and must
  // see the state before the write or the state after it: never a mix, never an error.
  const days0 = ["2024-05-01", "2024-05-02", "2024-05-03", "2024-05-04"] as const;
  for (const kind of ["sqlite", "postgres", "mysql"] as const) {
    it(`${kind}: readPartition, a window read and a row count each see one state`, async () => {
      if ((kind === "postgres" || kind === "mysql") && !servers[kind]) return;
      const data = await tempDir();
      const dataset = kind === "sqlite" ? "rel" : `il_rel_mid_${randomBytes(4).toString("hex")}`;
      const writer = localDestination(kind, data) as DatabaseDestination;
      const reader = localDestination(kind, data) as DatabaseDestination;
      const part = (day: string) => TimePartition.fromKey(day);
      const write = (day: string) => writer.writePartition(eventsContext(part(day), dataset), part(day), eventRows(day, "w"));
      let between: (() => Promise<void>) | null = null;
      const hold = async () => {
        const action = between;
        between = null;
        await action?.();
      };
      const select = reader.select.bind(reader);
      const count = reader.count.bind(reader);
      Object.assign(reader, {
        select: async (table: string, ds: string | null, where: PartitionFilter | null) => {
          const rows = await select(table, ds, where);
          if (table !== PARTITION_TABLE) await hold();
          return rows;
        },
        count: async (table: string, ds: string | null, column: string) => {
          const counts = await count(table, ds, column);
          if (table !== PARTITION_TABLE) await hold();
          return counts;
        },
      });
      const outcome = (promise: Promise<unknown>) =>
        promise.then(
          (value) => JSON.stringify(normalRows(value)),
          (error: unknown) => (error instanceof DataNotFoundError ? "not found" : Promise.reject(error)),
        );
      const [first, second, third, fourth] = days0;
      try {
        try {
          // The table holds one day's rows; the ledger is only made by the first partition write,
          // which the first read lets through: a table created after the read's snapshot (MySQL
          // cannot read one in it, and starts the read over).
          await writer.write(eventsContext(null, dataset), eventRows(first, "w"));
          const rowsOf = (...keys: string[]) => JSON.stringify(keys.flatMap((key) => eventRows(key, "w")));

          between = () => write(second);
          expect(["not found", rowsOf(second)]).toContain(
            await outcome(reader.readPartition(eventsContext(part(second), dataset), part(second))),
          );
          expect(await outcome(reader.readPartition(eventsContext(part(second), dataset), part(second)))).toBe(rowsOf(second));

          const window = days(first, third);
          between = () => write(third);
          expect(["not found", rowsOf(first, second, third)]).toContain(await outcome(reader.read(eventsContext(window, dataset))));
          expect(await outcome(reader.read(eventsContext(window, dataset)))).toBe(rowsOf(first, second, third));

          const countsOf = (...keys: string[]) => JSON.stringify(Object.fromEntries(keys.map((key) => [key, eventRows(key, "w").length])));
          between = () => write(fourth);
          expect([countsOf(first, second, third), countsOf(first, second, third, fourth)]).toContain(
            JSON.stringify(await reader.partitionRowCounts(eventsContext(null, dataset))),
          );
          expect(JSON.stringify(await reader.partitionRowCounts(eventsContext(null, dataset)))).toBe(
            countsOf(first, second, third, fourth),
          );
          expect(between).toBeNull();
        } finally {
          await writer.close();
          await reader.close();
        }
      } finally {
        if (kind !== "sqlite") await dropDataset(kind, dataset);
      }
    }, 60_000);
  }
});
