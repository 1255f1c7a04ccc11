// `@il.destination` as the specification uses it: on a plain class with the three hooks (which
// becomes a destination), and with the class's field defaults and class values as options.
import { describe, expect, it } from "vitest";
import ts from "typescript";
import * as il from "../../src/index.js";

// A plain class, as the specification decorates one.
@il.destination({ name: "Plain store" })
class PlainStore {
  static shared = new Map<string, unknown>();
  prefix = "default";
  calls = 0;

  private keyOf(context: il.IOContext, partition: il.Partition | null): string {
    return `${this.prefix}/${context.asset.table}/${partition?.key ?? "*"}`;
  }
  writePartition(context: il.IOContext, partition: il.Partition | null, data: unknown): void {
    this.calls++;
    PlainStore.shared.set(this.keyOf(context, partition), structuredClone(data));
  }
  readPartition(context: il.IOContext, partition: il.Partition | null): unknown {
    const key = this.keyOf(context, partition);
    if (!PlainStore.shared.has(key)) throw new il.DataNotFoundError(`nothing at ${key}`);
    return structuredClone(PlainStore.shared.get(key));
  }
  partitionRowCounts(context: il.IOContext): Record<string, number> {
    const start = `${this.prefix}/${context.asset.table}/`;
    const counts: Record<string, number> = {};
    for (const [key, rows] of PlainStore.shared) if (key.startsWith(start)) counts[key.slice(start.length)] = (rows as unknown[]).length;
    return counts;
  }
}

// TypeScript keeps a decorated class's own type: the decorator made it a destination taking options.
const Store = PlainStore as unknown as new (options?: object) => PlainStore & il.Destination;

function configError(action: () => unknown, message: string): void {
  expect(action).toThrow(il.ConfigError);
  expect(action).toThrow(message);
}

describe("@il.destination on a plain class", () => {
  it("makes a destination of it: its fields, options, hooks and statics, in a run", async () => {
    const store = new Store({ prefix: "lake" });
    expect(store).toBeInstanceOf(il.Destination);
    expect([store.prefix, store.calls, store.displayName, String(store)]).toEqual(["lake", 0, "Plain store", "Plain store"]);
    expect(new Store().prefix).toBe("default");
    const orders = il.asset({
      key: "orders",
      partitioning: new il.TimePartitionConfig({ column: "date", allowWindow: true }),
      run: (context) => [{ date: context.window!.partitions[0]!.key, id: 1 }],
    });
    const shop = il.source({ key: "shop", assets: [orders] })({ destinations: store });
    const result = await new il.DAG(shop).materialize(il.TimePartition.fromKey("2026-01-02"));
    expect(result.status).toBe("completed");
    expect(store.calls).toBe(1);
    expect(PlainStore.shared.has("lake/orders/2026-01-02")).toBe(true);
    expect(await shop.assets["orders"]!.read(il.TimePartition.fromKey("2026-01-02"))).toEqual([{ date: "2026-01-02", id: 1 }]);
    expect(await shop.assets["orders"]!.partitionRowCounts()).toEqual({ "2026-01-02": 1 });
  });

  it("refuses an option the class does not take, naming the nearest field", () => {
    configError(() => new Store({ prefx: "x" }), 'PlainStore: unknown option "prefx"; did you mean "prefix"?');
  });

  it("refuses a plain class without the three hooks, at decoration", () => {
    class NotOne {
      writePartition(): void {}
    }
    configError(
      () => il.destination()(NotOne),
      "@destination applies to subclasses of il.Destination and to classes with writePartition(), readPartition(), partitionRowCounts(), but class NotOne has no readPartition()",
    );
    configError(() => il.destination()("NotAClass" as never), '@destination applies to classes, got string "NotAClass"');
  });
});

describe("@il.destination's values", () => {
  class Files extends il.Destination {
    static format = "json";
    basePath = "./data";
    writePartition(): void {}
    readPartition(): unknown {
      return [];
    }
    partitionRowCounts(): Record<string, number> {
      return {};
    }
  }

  it("sets the default of a field, which an option given to new still overrides", () => {
    const Decorated = il.destination({ name: "X", basePath: "/p" })(Files);
    expect(new Decorated().basePath).toBe("/p");
    expect(new Decorated({}).basePath).toBe("/p");
    expect(new Decorated({ basePath: "/q" }).basePath).toBe("/q");
    expect(new Decorated().displayName).toBe("X");
    // The class decorated is left as it was.
    expect(new Files().basePath).toBe("./data");
  });

  it("sets a class value, and a plain class's field default alike", () => {
    const Decorated = il.destination({ format: "csv" })(Files);
    expect((Decorated as unknown as typeof Files).format).toBe("csv");
    expect(Files.format).toBe("json");
    class Bare {
      prefix = "default";
      writePartition(): void {}
      readPartition(): unknown {
        return [];
      }
      partitionRowCounts(): Record<string, number> {
        return {};
      }
    }
    const Plain = il.destination({ prefix: "raw" })(Bare) as unknown as new (options?: object) => Bare;
    expect(new Plain().prefix).toBe("raw");
    expect(new Plain({ prefix: "cooked" }).prefix).toBe("cooked");
  });

  it("sets a class value and a field default under the decorator syntax too", () => {
    @il.destination({ format: "csv", basePath: "/p" })
    class Syntax extends Files {
      static override format = "parquet";
    }
    expect(Syntax.format).toBe("csv");
    expect(new Syntax().basePath).toBe("/p");
  });

  it("refuses a default no field takes, when the class is constructed", () => {
    const Decorated = il.destination({ basPath: "/p" })(Files);
    configError(() => new Decorated(), 'Files: unknown option "basPath"; did you mean "basePath"?');
  });
});

describe("@il.destination compiled by tsc (standard decorators)", () => {
  // Vitest and jiti compile decorators in TypeScript's "experimental" form; a user who builds
  // with tsc gets the standard form, whose class statics are defined after the decorator
  // returns: compiled here as tsc does, then run.
  const source = `
    import * as il from "interloper";
    @il.destination({ name: "Standard", format: "csv", basePath: "/p" })
    export class Files extends il.Destination {
      static format = "parquet";
      basePath = "./data";
      writePartition() {}
      readPartition() { return []; }
      partitionRowCounts() { return {}; }
    }
    @il.destination({ prefix: "raw" })
    export class Plain {
      prefix = "default";
      writePartition() {}
      readPartition() { return []; }
      partitionRowCounts() { return {}; }
    }
  `;
  const compiled = ts.transpileModule(source, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS },
  }).outputText;
  type Made = new (options?: object) => il.Destination & { basePath?: string; prefix?: string };
  const exports: { Files?: Made; Plain?: Made } = {};
  new Function("require", "exports", compiled)(() => il, exports);
  const { Files, Plain } = exports as Required<typeof exports>;

  it("sets class values, field defaults under options, and refuses a typo", () => {
    expect((Files as unknown as { format: string }).format).toBe("csv");
    expect([new Files().basePath, new Files({ basePath: "/q" }).basePath, new Files().displayName]).toEqual(["/p", "/q", "Standard"]);
    expect([new Plain().prefix, new Plain({ prefix: "cooked" }).prefix]).toEqual(["raw", "cooked"]);
    expect(new Plain()).toBeInstanceOf(il.Destination);
    configError(() => new Files({ basepath: "/q" }), 'Files: unknown option "basepath"; did you mean "basePath"?');
  });
});
