// A writer process of the SIGKILL test of crash-sql-records.test.ts: writes partitions of one asset
// through the built package (dist) in a loop, each write a new run whose rows name it, until its
// parent kills it. It says "ready" once its first write committed.
//
//   argv: <engine: sqlite | postgres | mariadb> <SQLite path, or the connection as JSON> <dataset>
import * as il from "../../dist/index.js";

const [engine, where, dataset] = process.argv.slice(2);
const destination =
  engine === "sqlite"
    ? new il.SQLiteDestination({ path: where })
    : engine === "postgres"
      ? new il.PostgresDestination({ connection: JSON.parse(where) })
      : new il.MySQLDestination({ connection: JSON.parse(where) });
const asset = {
  key: "shop.orders",
  table: "orders",
  dataset,
  partitioning: new il.TimePartitionConfig({ column: "date", allowWindow: true }),
};
const schema = [
  { name: "date", type: "date", nullable: false },
  { name: "writer", type: "string", nullable: true },
  { name: "n", type: "integer", nullable: true },
];
const draft = { startedAt: new Date().toISOString(), codeVersion: null, interloperVersion: "test", upstream: () => [] };

for (let i = 0; ; i++) {
  const runId = `${process.pid}-${i}`;
  const day = `2026-01-0${1 + (i % 3)}`;
  // A window of two days every third write: one transaction holding two records.
  const window =
    i % 3 === 2 ? new il.TimePartitionWindow("2026-01-01", "2026-01-02", il.TimeGranularity.DAY) : il.TimePartitionWindow.parse(day);
  const days = window.partitions.map((p) => p.key);
  const rows = days.flatMap((d) => Array.from({ length: 1 + (i % 5) * 200 }, (_, n) => ({ date: d, writer: runId, n })));
  await destination.write(new il.IOContext({ asset, window, schema, metadata: { runId, provenance: draft } }), rows);
  if (i === 0) process.send?.("ready");
}
