// Rows may carry their partition's own key in the partition column ("2026-05" in a monthly
// partition, "2026-W21" in a weekly one), as partitioning.md's examples write them and
// destinations.md promises. A coarse key was read as no instant at all, so every destination
// refused the rows as "outside the window"; a database's SQL, which compares text as an instant,
// must read such text too, or the rows could be written and never found again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CSVDestination,
  type Destination,
  FileDestination,
  IOContext,
  LocalObjectStoreDestination,
  MemoryDestination,
  type AssetRef,
} from "../../src/destination/index.js";
import { TimeGranularity, TimePartition, TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import { TableData } from "../../src/representation/index.js";
import type { Row } from "../../src/representation/index.js";
import type { FieldSpec } from "../../src/schema/index.js";
import { dialects, type Dialect } from "../database/dialects.js";
import { makeTempDir } from "../contract/temp-dir.js";

const { HOUR, WEEK, MONTH, QUARTER, YEAR } = TimeGranularity;

/** Per granularity: two neighbouring periods, and a date inside the first. */
const CASES = [
  { granularity: HOUR, keys: ["2026-05-20T13", "2026-05-20T14"], inside: "2026-05-20T13:30:00Z" },
  { granularity: MONTH, keys: ["2026-05", "2026-06"], inside: "2026-05-20" },
  { granularity: WEEK, keys: ["2026-W21", "2026-W22"], inside: "2026-05-20" },
  { granularity: QUARTER, keys: ["2026-Q2", "2026-Q3"], inside: "2026-05-20" },
  { granularity: YEAR, keys: ["2026", "2027"], inside: "2026-05-20" },
] as const;

interface Harness {
  readonly destination: Destination;
  cleanup(): Promise<void>;
}

type Make = () => Promise<Harness>;

function inDir(make: (basePath: string) => Destination): Make {
  return async () => {
    const dir = await makeTempDir("interloper-own-key-");
    return { destination: make(dir.path), cleanup: () => dir.remove() };
  };
}

const FILE_DESTINATIONS: ReadonlyArray<readonly [string, Make]> = [
  ["CSVDestination", inDir((basePath) => new CSVDestination({ basePath }))],
  ["FileDestination", inDir((basePath) => new FileDestination({ basePath }))],
  ["LocalObjectStoreDestination (parquet)", inDir((basePath) => new LocalObjectStoreDestination({ basePath, format: "parquet" }))],
  ["LocalObjectStoreDestination (csv)", inDir((basePath) => new LocalObjectStoreDestination({ basePath, format: "csv" }))],
  [
    "MemoryDestination",
    () => Promise.resolve({ destination: new MemoryDestination(), cleanup: () => Promise.resolve(MemoryDestination.clear()) }),
  ],
];

// As a run infers it from such rows: the partition column is text.
const SCHEMA: FieldSpec[] = [
  { name: "period", type: "string", nullable: false },
  { name: "n", type: "integer", nullable: false },
];

const rowsOf = (data: unknown): Row[] => [...TableData.from(data)!.rows];

/** Writes two partitions, each carrying its own key (the first also a date inside it), and reads them back and counts them. */
async function roundTrip(destination: Destination, granularity: TimeGranularity, keys: readonly string[], inside: string): Promise<void> {
  const asset: AssetRef = {
    key: "shop.sales",
    table: `sales_${granularity.name}`,
    dataset: "shop",
    partitioning: new TimePartitionConfig({ column: "period", granularity, allowWindow: true }),
  };
  const context = (window: TimePartition | TimePartitionWindow | null) =>
    new IOContext({ asset, window, schema: SCHEMA, metadata: { runId: "own-key" } });
  const [first, second] = keys.map((key) => TimePartition.fromKey(key)) as [TimePartition, TimePartition];
  expect(first.contains(keys[0])).toBe(true);
  await destination.writePartition(context(first), first, [
    { period: keys[0], n: 1 },
    { period: keys[0], n: 2 },
  ]);
  await destination.writePartition(context(second), second, [{ period: keys[1], n: 3 }]);
  expect(rowsOf(await destination.readPartition(context(first), first))).toEqual([
    { period: keys[0], n: 1 },
    { period: keys[0], n: 2 },
  ]);
  const both = new TimePartitionWindow(first.value, second.value, granularity);
  expect(rowsOf(await destination.read(context(both))).map((row) => row["n"])).toEqual([1, 2, 3]);
  expect(await destination.partitionRowCounts!(context(null))).toEqual({ [keys[0]!]: 2, [keys[1]!]: 1 });
  // A rewrite replaces the partition's rows, the key's and a date's inside it alike.
  await destination.writePartition(context(first), first, [
    { period: keys[0], n: 4 },
    { period: inside, n: 5 },
  ]);
  expect(rowsOf(await destination.readPartition(context(first), first)).map((row) => row["n"])).toEqual([4, 5]);
  expect(await destination.partitionRowCounts!(context(null))).toEqual({ [keys[0]!]: 2, [keys[1]!]: 1 });
}

describe("TimePartition: a period's own key is inside it", () => {
  it("contains its key, and its window gives the key back", () => {
    for (const { keys } of CASES) {
      const partition = TimePartition.fromKey(keys[0]);
      expect(partition.contains(keys[0])).toBe(true);
      expect(partition.contains(keys[1])).toBe(false);
      expect(partition.window.keyOf(keys[0])).toBe(keys[0]);
    }
  });
});

for (const [name, make] of FILE_DESTINATIONS) {
  describe(`${name}: rows carrying their partition's own key`, () => {
    for (const { granularity, keys, inside } of CASES) {
      it(`${granularity.name}: are written, read back and counted`, async () => {
        const { destination, cleanup } = await make();
        try {
          await roundTrip(destination, granularity, keys, inside);
        } finally {
          await cleanup();
        }
      });
    }
  });
}

const found: Dialect[] = await dialects();
for (const dialect of found) {
  describe.skipIf(!dialect.available)(`${dialect.name}: rows carrying their partition's own key`, () => {
    let harness: ReturnType<Dialect["make"]>;
    beforeAll(() => {
      harness = dialect.make();
    });
    afterAll(async () => {
      await harness.cleanup();
    });
    for (const { granularity, keys, inside } of CASES) {
      it(`${granularity.name}: are written, read back and counted`, async () => {
        await roundTrip(harness.destination, granularity, keys, inside);
      });
    }
  });
}
