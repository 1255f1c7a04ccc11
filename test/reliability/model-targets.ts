// The destinations the model-based tests (model.test.ts, model-servers.test.ts) run against:
// each gives, per command sequence, empty storage of its own, a second instance over the same
// storage (a second process would hold one), and its cleanup.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CSVDestination,
  FileDestination,
  GCSDestination,
  MemoryDestination,
  S3Destination,
  type Destination,
} from "../../src/destination/index.js";
import { LocalObjectStoreDestination } from "../../src/destination/store/index.js";
import { MySQLDestination, PostgresDestination, SQLiteDestination } from "../../src/destination/database/index.js";
import { quoteBacktick, quoteDouble } from "../../src/destination/database/sql-dialect.js";
import { MYSQL_CONNECTION, mysqlAvailable, PG_CONNECTION, postgresAvailable, uniqueName } from "../database/servers.js";
import { motoAvailable, startMoto, TEST_CONNECTION, type Moto } from "../object-store/moto.js";
import { type GcsServer, startGcsServer } from "../support/gcs-server.js";

/** Empty storage for one command sequence. */
export interface Storage {
  /** The dataset the sequence's source writes to. */
  readonly dataset: string;
  readonly destination: Destination;
  /** Another instance over the same storage, made on first use. */
  twin(): Destination;
  /** Closes both instances and removes what the sequence stored. */
  cleanup(): Promise<void>;
}

export interface ModelTarget {
  readonly name: string;
  /** Commands per sequence at most in the long variant: fewer where a step is slow. */
  readonly longSteps: number;
  /** Whether it can run here (a server answers); prints the skip line when not. */
  available(): Promise<boolean>;
  /** Starts what the target needs for a whole test (the S3 server). */
  start?(): Promise<void>;
  stop?(): Promise<void>;
  /** Whether table names that differ only in case are one table there (refused, so not generated). */
  readonly caseBlindTables?: boolean;
  /** Storage for one sequence; `variant` picks among a target's variants (S3's format). */
  open(variant: number): Promise<Storage>;
}

type Closable = Destination & { close?(): Promise<void> };

/** Storage over two lazily made instances of `make`. */
function storage(dataset: string, make: () => Closable, remove: (first: Closable) => Promise<void>): Storage {
  const destination = make();
  let twin: Closable | undefined;
  return {
    dataset,
    destination,
    twin: () => (twin ??= make()),
    async cleanup() {
      try {
        await remove(destination);
      } finally {
        await twin?.close?.();
        await destination.close?.();
      }
    },
  };
}

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), "interloper-model-"));
}

const fileTarget = (name: string, make: (basePath: string) => Closable): ModelTarget => ({
  name,
  longSteps: 20,
  available: async () => true,
  async open() {
    const dir = await tempDir();
    return storage(
      "shop",
      () => make(dir),
      () => rm(dir, { recursive: true, force: true }),
    );
  },
});

/** Runs a statement through a destination's own connection (cleanup only). */
async function sql(destination: Destination, statement: string): Promise<void> {
  await (destination as unknown as { run(sql: string): Promise<unknown> }).run(statement);
}

function s3Target(): ModelTarget {
  const formats = ["parquet", "jsonl", "csv"] as const;
  const bucket = "model";
  let moto: Moto | undefined;
  let sequence = 0;
  return {
    name: "S3",
    // A step on moto took about twice one on PostgreSQL or MySQL (70 ms against 30), so its long
    // sequences are shorter: 200 of up to 12 steps took 45 s, of up to 20 steps 137 s.
    longSteps: 12,
    available: async () => motoAvailable(),
    async start() {
      moto = await startMoto();
      await moto.createBucket(bucket);
    },
    async stop() {
      await moto?.stop();
    },
    async open(variant) {
      const format = formats[variant % formats.length]!;
      const prefix = `seq-${++sequence}-${format}`;
      // Objects stay until the server stops with the test: each sequence has its own prefix.
      return storage(
        "shop",
        () => new S3Destination({ bucket, prefix, format, connection: { ...TEST_CONNECTION, endpoint: moto!.endpoint } }),
        async () => undefined,
      );
    },
  };
}

function gcsTarget(): ModelTarget {
  const formats = ["parquet", "jsonl", "csv"] as const;
  const bucket = "model";
  let server: GcsServer | undefined;
  let sequence = 0;
  return {
    name: "GCS",
    longSteps: 12,
    // The JSON API server of test/support runs in this process: always there.
    available: async () => true,
    async start() {
      // Small list pages: every listing of more than a few partitions goes through page tokens.
      server = await startGcsServer({ maxPageSize: 5 });
      server.createBucket(bucket);
    },
    async stop() {
      await server?.stop();
    },
    async open(variant) {
      const format = formats[variant % formats.length]!;
      const prefix = `seq-${++sequence}-${format}`;
      return storage(
        "shop",
        () => new GCSDestination({ bucket, prefix, format, connection: { projectId: "test", apiEndpoint: server!.endpoint } }),
        async () => undefined,
      );
    },
  };
}

/** The destinations without a server, each sequence on empty storage of its own. */
export function localTargets(): ModelTarget[] {
  return [
    fileTarget("CSV", (basePath) => new CSVDestination({ basePath })),
    fileTarget("File", (basePath) => new FileDestination({ basePath })),
    {
      name: "Memory",
      longSteps: 20,
      available: async () => true,
      // One store per process: a dataset of its own is empty storage; the test clears it after.
      open: async () =>
        storage(
          uniqueName("il_m"),
          () => new MemoryDestination(),
          async () => undefined,
        ),
    },
    fileTarget("object store (parquet)", (basePath) => new LocalObjectStoreDestination({ basePath, format: "parquet" })),
    fileTarget("object store (jsonl)", (basePath) => new LocalObjectStoreDestination({ basePath, format: "jsonl" })),
    fileTarget("object store (csv)", (basePath) => new LocalObjectStoreDestination({ basePath, format: "csv" })),
    {
      name: "SQLite",
      longSteps: 20,
      caseBlindTables: true,
      available: async () => true,
      async open() {
        const dir = await tempDir();
        return storage(
          "shop",
          () => new SQLiteDestination({ path: join(dir, "model.sqlite") }),
          () => rm(dir, { recursive: true, force: true }),
        );
      },
    },
  ];
}

/**
 * The destinations behind a server, each sequence in a dataset (or prefix) of its own.
 */
export function serverTargets(): ModelTarget[] {
  return [
    s3Target(),
    {
      name: "PostgreSQL",
      longSteps: 20,
      available: postgresAvailable,
      open: async () => {
        const dataset = uniqueName("il_m");
        return storage(
          dataset,
          () => new PostgresDestination({ connection: PG_CONNECTION }),
          (d) => sql(d, `DROP SCHEMA IF EXISTS ${quoteDouble(dataset)} CASCADE`),
        );
      },
    },
    {
      name: "MySQL",
      longSteps: 20,
      available: mysqlAvailable,
      open: async () => {
        const dataset = uniqueName("il_m");
        return storage(
          dataset,
          () => new MySQLDestination({ connection: MYSQL_CONNECTION }),
          (d) => sql(d, `DROP DATABASE IF EXISTS ${quoteBacktick(dataset)}`),
        );
      },
    },
    // Last, so that the targets before it keep their seeds.
    gcsTarget(),
  ];
}
