import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// Everything that does date arithmetic runs once per process time zone: a bug that only
// shows west of UTC or at a half-hour offset must fail here, not in a user's backfill.
const zones = ["UTC", "America/Los_Angeles", "Asia/Kolkata"];
const zoned = ["test/**/*.test.ts", "test/**/*.test.tsx"];
// Whole processes and the work queue: run once, in the machine's zone (the queue hands keys, not
// dates, between processes; its tests wait on pg-boss's polling, 25 s a zone).
const once = ["test/e2e/**", "test/reliability/**", "test/services/**", "test/queue/**"];
// Unit files that run once, not once a zone, in America/Los_Angeles rather than UTC so that a
// zone assumption still shows (project "once-unit"); test/architecture/zone-free.test.ts checks
// that every listed file exists. First, files with no dates at all: no Date, partition, timestamp
// or datetime (that test fails one that starts to use them).
export const zoneFree = [
  "test/cli/color.test.ts",
  "test/cli/english.test.ts", // plural words and thousands separators
  "test/config/close-project.test.ts",
  "test/config/find-config.test.ts", // where a config file is found
  "test/config/load-config.test.ts",
  "test/config/relative-paths.test.ts",
  "test/database/lazy-connection.test.ts",
  "test/database/sql-text.test.ts", // a scan of src for SQL text
  "test/destination/csv-reader-numbers.test.ts", // numeric text only
  "test/destination/stat-files.test.ts", // file identities (device, inode, size, times as numbers)
  "test/engine/close-project.test.ts",
  "test/support/gcs-server.test.ts",
  "test/support/tcp-proxy.test.ts",
  "test/support/terminal-screen.test.ts",
];
// Then the bucket backends' clients (S3, GCS): they store partitions, but handle no times; the
// keys, paths and values they store are made by ObjectStoreDestination and the formats, which the
// same contract runs in every zone over the local object store (test/object-store/contract.test.ts,
// with layout.test.ts and formats.test.ts). The S3 contract is the slowest unit file on a loaded
// machine (its moto server answers slowly): 229 s of a zone's 949 s, 100 s in a whole run.
export const bucketClients = [
  "test/object-store/gcs-contract.test.ts",
  "test/object-store/gcs.test.ts",
  "test/object-store/s3-contract.test.ts",
  "test/object-store/s3-drop.test.ts",
  "test/object-store/s3-node-warning.test.ts", // the SDK's Node version warning, in a child process
  "test/object-store/s3.test.ts",
];
const onceUnit = [...zoneFree, ...bucketClients];

// `npm test` is the run a developer makes after a change (about five minutes). `.ci/run` runs
// every file: on Node 20 with INTERLOPER_RELIABILITY_LONG=1 (each reliability test in its long
// variant), on the other Nodes with INTERLOPER_ALL_FILES=1 (short variants). What only a run of
// every file does (docs/reliability.md, "What runs where"; a short run's summary says so):
export const allFiles = process.env["INTERLOPER_RELIABILITY_LONG"] === "1" || process.env["INTERLOPER_ALL_FILES"] === "1";
// - the fault-injection files that take ten seconds or more even in their short variants: writers
//   and servers killed, servers hung or gone, racing processes, fuzzed configs and data, the work
//   queue's failures, the workflow examples (run by CI on every change);
export const longOnly = [
  "test/e2e/queue-examples.test.ts",
  "test/reliability/crash-file-records.test.ts",
  "test/reliability/crash-files.test.ts",
  "test/reliability/crash-sql-records.test.ts",
  "test/reliability/crash-stores.test.ts",
  "test/reliability/hangs.test.ts",
  "test/reliability/hostile-config.test.ts",
  "test/reliability/hostile-data.test.ts",
  "test/reliability/ledger-processes.test.ts",
  "test/reliability/model-servers.test.ts",
  "test/reliability/mysql-concurrency.test.ts",
  "test/reliability/queue-cli.test.ts",
  "test/reliability/queue-failures.test.ts",
  "test/reliability/queue-workers.test.ts",
  "test/reliability/races.test.ts",
  "test/reliability/row-count-races.test.ts",
  "test/reliability/servers-away.test.ts",
  "test/reliability/sql-periods.test.ts",
  "test/reliability/terminal-escapes.test.ts",
];
// - the unit files of the SQL destinations and of the object stores' records (they wait on the
//   database and S3 servers) in UTC and America/Los_Angeles: a short run has them in Asia/Kolkata
//   alone, whose offset east of UTC shows a date read as local midnight (the day before in UTC).
export const serverBacked = ["test/database/**", "test/object-store/provenance-objects.test.ts", "test/coverage/every-destination.test.ts"];
const SERVER_ZONE = "Asia/Kolkata";
/** What the short run leaves out of a zone's projects. */
const shortOf = (zone: string) => (allFiles || zone === SERVER_ZONE ? [] : serverBacked);
// Files that mock a module, set the environment before a library reads it at import, or check
// what has been loaded: they need a module registry (and process) of their own. Every other file shares its worker's registry (vitest's
// `isolate: false`), which cut the time spent importing the sources from 305 s to 86 s of a
// 115-file run: each file otherwise loads and transforms the whole library again.
const ownModules = [
  "test/cli/ink-reporter.test.tsx",
  "test/cli/progress-view.test.tsx",
  "test/cli/warned-coverage.test.tsx", // sets FORCE_COLOR before chalk is first imported
  "test/config/named-config.test.ts", // proves cosmiconfig is not loaded: needs a fresh require cache
  "test/coverage/render.test.tsx",
  "test/destination/ledger-compaction-race.test.ts",
];

export default defineConfig({
  // Vite's transformer (Oxc) lowers decorators only in their TypeScript "experimental" form, as
  // jiti does when the CLI loads a user's interloper.config.ts: tests run `@il.destination` as
  // users' configs do. The standard form tsc emits is covered by test/destination/decorator.test.ts.
  oxc: { decorator: { legacy: true } },
  test: {
    reporters: ["default", "./test/support/summary-reporter.ts"],
    // Most of the suite's time is spent waiting on database servers, child processes and timers,
    // not computing: one worker more than the cores keeps the machine busy (vitest's default, one
    // fewer than the cores, runs the files one at a time on a 2-core machine, 19.7 min against
    // 13.3 min with 3 workers, measured on one).
    maxWorkers: availableParallelism() + 1,
    testTimeout: 20_000,
    projects: [
      ...zones.flatMap((zone) => [
        {
          extends: true as const,
          test: {
            name: `tz:${zone}`,
            include: zoned,
            exclude: [...once, ...ownModules, ...onceUnit, ...shortOf(zone)],
            env: { TZ: zone },
            isolate: false,
          },
        },
        {
          extends: true as const,
          test: { name: `tz:${zone}:own-modules`, include: ownModules, exclude: [...once, ...shortOf(zone)], env: { TZ: zone } },
        },
      ]),
      {
        extends: true as const,
        test: { name: "once-unit", include: onceUnit, env: { TZ: "America/Los_Angeles" }, isolate: false },
      },
      {
        extends: true as const,
        // Whole CLI processes: slow when the machine is shared, so they get more time. Each file
        // keeps its own modules: their time goes to the processes they start, and their helpers
        // hold server connections that one file's afterAll closes.
        test: {
          name: "e2e",
          include: once.map((dir) => `${dir.replace("/**", "")}/**/*.test.ts`),
          exclude: allFiles ? [] : longOnly,
          testTimeout: 90_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
