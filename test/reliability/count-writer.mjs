// A writer process of the row-count race and ledger tests (started by count-writers.ts): writes one partition each time its parent asks,
// through the built package (dist), as a CLI process would. Its parent starts two of these and
// asks both for the same partition at the same moment.
//
//   argv: <kind: csv | file | jsonl> <base path> <rows as JSON> <durable: true | false>
//   message in: { key }            writes `rows` (each row's date set to key) to partition `key`
//   message out: { key } | { error }
import * as il from "../../dist/index.js";

const [kind, base, rowsJson, durableText] = process.argv.slice(2);
const rows = JSON.parse(rowsJson);
const durable = durableText === "true";

const destination =
  kind === "csv"
    ? new il.CSVDestination({ basePath: base, durable })
    : kind === "file"
      ? new il.FileDestination({ basePath: base, durable })
      : new il.LocalObjectStoreDestination({ basePath: base, format: kind, durable });
const asset = {
  key: "race.counts",
  table: "counts",
  dataset: "race",
  partitioning: new il.TimePartitionConfig({ column: "date", start: "2020-01-01" }),
};

process.on("message", ({ key }) => void write(key));

async function write(key) {
  try {
    const partition = il.TimePartition.fromKey(key);
    const context = new il.IOContext({ asset, window: partition, metadata: { runId: "race" } });
    await destination.writePartition(
      context,
      partition,
      rows.map((row) => ({ date: key, ...row })),
    );
    process.send({ key });
  } catch (error) {
    process.send({ error: String(error?.stack ?? error) });
  }
}
process.send({ ready: true });
