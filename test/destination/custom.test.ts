import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Destination, destination, IOContext } from "../../src/destination/index.js";
import type { AssetRef } from "../../src/destination/index.js";
import { ConfigError, DataNotFoundError } from "../../src/errors.js";
import { TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import type { Partition, PartitionWindow } from "../../src/partitioning/index.js";
import type { Row } from "../../src/representation/index.js";
import { makeTempDir } from "../contract/temp-dir.js";
import { InertDestination } from "../support/stub-destinations.js";

// The spec's JSONDestination, in TypeScript, with the standard class decorator.
@destination({ name: "JSON files" })
class JSONDestination extends Destination {
  basePath = "";

  private tableDir(context: IOContext): string {
    return join(this.basePath, context.asset.dataset ?? "", context.asset.table);
  }

  private pathOf(context: IOContext, partition: Partition | null): string {
    const table = this.tableDir(context);
    return partition === null ? join(table, "data.json") : join(table, `${context.partitionColumn()}=${partition.key}`, "data.json");
  }

  // Sync hooks on purpose: the base must accept them as well as async ones.
  writePartition(context: IOContext, partition: Partition | null, data: unknown): void {
    const path = this.pathOf(context, partition);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, JSON.stringify(data));
  }

  readPartition(context: IOContext, partition: Partition | null): unknown {
    const path = this.pathOf(context, partition);
    if (!existsSync(path)) throw new DataNotFoundError(`no data for asset "${context.asset.key}": ${path} does not exist`);
    return JSON.parse(readFileSync(path, "utf8")) as unknown;
  }

  partitionRowCounts(context: IOContext): Record<string, number> {
    const table = this.tableDir(context);
    const prefix = `${context.partitionColumn()}=`;
    if (!existsSync(table)) return {};
    const counts: Record<string, number> = {};
    for (const name of readdirSync(table).filter((n) => n.startsWith(prefix))) {
      counts[name.slice(prefix.length)] = (JSON.parse(readFileSync(join(table, name, "data.json"), "utf8")) as unknown[]).length;
    }
    return counts;
  }
}

const daily = new TimePartitionConfig({ column: "date", allowWindow: true });
const orders: AssetRef = { key: "shop.orders", table: "orders", dataset: "shop", partitioning: daily };

function ctx(window: PartitionWindow | Partition | null): IOContext {
  return new IOContext({ asset: orders, window, schema: null, metadata: { runId: "r1" } });
}

describe("a custom destination (the spec's JSONDestination)", () => {
  let basePath: string;
  let remove: () => Promise<void>;

  beforeEach(async () => {
    const dir = await makeTempDir("interloper-json-");
    basePath = dir.path;
    remove = dir.remove;
  });
  afterEach(async () => {
    await remove();
  });

  it("lets the option win over the class field's default", () => {
    // Class fields initialise after the base constructor: a naive base would lose the option.
    expect(new JSONDestination({ basePath }).basePath).toBe(basePath);
  });

  it("keeps the field default when no option is given", () => {
    expect(new JSONDestination().basePath).toBe("");
    expect(new JSONDestination({}).basePath).toBe("");
  });

  it("refuses an unknown option with ConfigError naming it", () => {
    const make = (): unknown => new JSONDestination({ basePath, bathPath: "typo" });
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(/bathPath/);
  });

  it("takes its display name from the decorator and keeps its class name", () => {
    const json = new JSONDestination({ basePath });
    expect(json.displayName).toBe("JSON files");
    expect(String(json)).toBe("JSON files");
    expect(JSONDestination.name).toBe("JSONDestination");
    expect(json).toBeInstanceOf(Destination);
  });

  it("round-trips a window through the base's write and read", async () => {
    const json = new JSONDestination({ basePath });
    const window = new TimePartitionWindow("2026-01-01", "2026-01-03");
    const rows: Row[] = [
      { date: "2026-01-03", id: 1 },
      { date: "2026-01-01", id: 2 },
      { date: "2026-01-01", id: 3 },
    ];
    await json.write(ctx(window), rows);
    expect(readdirSync(join(basePath, "shop", "orders")).sort()).toEqual(["date=2026-01-01", "date=2026-01-02", "date=2026-01-03"]);
    expect(await json.read(ctx(window))).toEqual([rows[1], rows[2], rows[0]]);
    expect(await json.read(ctx(window.partitions[1]!))).toEqual([]);
    expect(await json.partitionRowCounts(ctx(null))).toEqual({ "2026-01-01": 2, "2026-01-02": 0, "2026-01-03": 1 });
  });

  it("carries relations declared on the decorator", () => {
    class Connection {}
    const Related = destination({ name: "Related", relations: { connection: Connection } })(class Related extends InertDestination {});
    expect((Related as unknown as typeof Destination).relations).toEqual({ connection: Connection });
  });
});

describe("a destination missing a hook", () => {
  // `abstract` keeps TypeScript from refusing the class; at runtime, as in a JavaScript config,
  // nothing stops `new` but the base's own check.
  abstract class NoCounts extends Destination {
    writePartition(): void {}
    readPartition(): unknown {
      return null;
    }
  }
  abstract class NoRead extends Destination {
    writePartition(): void {}
    partitionRowCounts(): Record<string, number> {
      return {};
    }
  }
  type Constructor = new (options?: object) => Destination;

  it("cannot be instantiated: ConfigError naming the class and the hook", () => {
    const make = (): unknown => new (NoCounts as unknown as Constructor)();
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(/NoCounts/);
    expect(make).toThrow(/partitionRowCounts/);
  });

  it("cannot be instantiated through the decorator either", () => {
    const Decorated = destination({ name: "No read" })(NoRead) as unknown as Constructor;
    const make = (): unknown => new Decorated({});
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(/NoRead/);
    expect(make).toThrow(/readPartition/);
  });
});
