// A partitioning kind of the user's own (a PartitionConfig subclass, registered) on a database:
// its rows read back, and its row counts must count them too. The base mapped a stored value to
// its partition for time and list kinds only, so every other kind counted 0 in each written
// partition and coverage called them empty.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SQLiteDestination } from "../../src/destination/database/index.js";
import { IOContext, type AssetRef } from "../../src/destination/index.js";
import { PartitionError } from "../../src/errors.js";
import { Partition, PartitionConfig, PartitionWindow } from "../../src/partitioning/index.js";
import type { PartitionDefinition, PartitionFilter } from "../../src/partitioning/index.js";
import { makeTempDir } from "../contract/temp-dir.js";

const SHARDS = ["0", "1", "2"];

class ShardPartition extends Partition {
  readonly value: string;
  constructor(readonly key: string) {
    super();
    if (!SHARDS.includes(key)) throw new PartitionError(`"${key}" is not a shard: expected one of ${SHARDS.join(", ")}`);
    this.value = key;
  }
  get window(): ShardWindow {
    return new ShardWindow([this]);
  }
  contains(value: unknown): boolean {
    return value === this.value;
  }
  filter(column: string): PartitionFilter {
    return { column, value: this.value };
  }
}

class ShardWindow extends PartitionWindow {
  readonly length: number;
  constructor(readonly partitions: readonly ShardPartition[]) {
    super();
    this.length = partitions.length;
  }
  keyOf(value: unknown): string | null {
    return this.partitions.find((p) => p.contains(value))?.key ?? null;
  }
  filter(column: string): PartitionFilter {
    return { column, values: this.partitions.map((p) => p.value) };
  }
  toString(): string {
    return this.partitions.map((p) => p.key).join(",");
  }
}

class ShardConfig extends PartitionConfig {
  readonly kind = "shard";
  constructor(column: string) {
    super(column, false);
  }
  partition(key: string): ShardPartition {
    return new ShardPartition(key);
  }
  window(startKey: string, endKey: string): ShardWindow {
    return new ShardWindow(SHARDS.slice(SHARDS.indexOf(startKey), SHARDS.indexOf(endKey) + 1).map((k) => new ShardPartition(k)));
  }
  compatible(other: PartitionConfig): boolean {
    return other instanceof ShardConfig;
  }
  toDefinition(): PartitionDefinition {
    return { kind: this.kind, column: this.column, allowWindow: this.allowWindow };
  }
  protected checkKind(window: PartitionWindow, assetKey: string): void {
    if (!(window instanceof ShardWindow)) throw new PartitionError(`asset "${assetKey}" is sharded but was given ${String(window)}`);
  }
}

PartitionConfig.register("shard", (definition) => new ShardConfig(definition.column));

const asset: AssetRef = { key: "shop.users", table: "users", dataset: "shop", partitioning: new ShardConfig("shard") };
const context = (partition: Partition | null) => new IOContext({ asset, window: partition, metadata: { runId: "shards" } });

let base: { path: string; remove(): Promise<void> };
beforeEach(async () => {
  base = await makeTempDir("interloper-custom-kind-");
});
afterEach(async () => {
  await base.remove();
});

describe("a custom partitioning kind on a database", () => {
  it("counts each partition's rows, as it reads them back", async () => {
    const destination = new SQLiteDestination({ path: `${base.path}/warehouse.db` });
    try {
      const [zero, one] = [new ShardPartition("0"), new ShardPartition("1")];
      await destination.writePartition(context(zero), zero, [{ shard: "0", name: "ada" }]);
      await destination.writePartition(context(one), one, [
        { shard: "1", name: "bob" },
        { shard: "1", name: "cy" },
      ]);
      // A row of a value the kind reads as no key (written by another tool) belongs to no partition.
      await destination.insert("users", "shop", [{ shard: "x", name: "stray" }], context(null).withSchema(null));
      expect(await destination.readPartition(context(one), one)).toEqual([
        { shard: "1", name: "bob" },
        { shard: "1", name: "cy" },
      ]);
      expect(await destination.partitionRowCounts(context(null))).toEqual({ "0": 1, "1": 2 });
    } finally {
      await destination.close();
    }
  });
});
