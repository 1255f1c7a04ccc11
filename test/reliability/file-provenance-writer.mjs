// A writer process of crash-file-records.test.ts: writes partitions of one asset in a loop, through
// the built package (dist), until its parent SIGKILLs it; each row holds the write's run id. Before each write it prints
// `start {runId} {key} {rows}`, after it `done {runId}`, with synchronous writes to its stdout (a
// pipe), so that what the parent read before the kill is what happened before it.
//
//   argv: <kind: csv | file> <base path> <cycle>
import { writeSync } from "node:fs";
import * as il from "../../dist/index.js";

const [kind, base, cycle] = process.argv.slice(2);
// Every other cycle without syncs: the writes are then shorter, and a kill falls more often
// between a write's ledger append and its rename.
const durable = Number(cycle) % 2 === 1;
const destination =
  kind === "csv" ? new il.CSVDestination({ basePath: base, durable }) : new il.FileDestination({ basePath: base, durable });
const asset = {
  key: "prov.events",
  table: "events",
  dataset: "prov",
  partitioning: new il.TimePartitionConfig({ column: "date", start: "2020-01-01" }),
};
const KEYS = ["2020-01-01", "2020-01-02"];

async function* batches(rows) {
  for (let at = 0; at < rows.length; at += 4) yield rows.slice(at, at + 4);
}

writeSync(1, "ready\n");
for (let i = 0; ; i++) {
  const key = KEYS[Math.floor(Math.random() * KEYS.length)];
  const count = 1 + Math.floor(Math.random() * 40);
  const runId = `${cycle}-${process.pid}-${i}`;
  const partition = il.TimePartition.fromKey(key);
  const context = new il.IOContext({ asset, window: partition, metadata: { runId } });
  const rows = Array.from({ length: count }, (_, n) => ({ date: key, n, run: runId }));
  writeSync(1, `start ${runId} ${key} ${count}\n`);
  if (kind === "csv" && i % 2 === 1) await destination.writePartitionStream(context, partition, batches(rows));
  else await destination.writePartition(context, partition, rows);
  writeSync(1, `done ${runId}\n`);
}
