// Issue 19 item 4: options are never lost or mistyped silently. A built-in destination refuses an
// unknown or missing option naming the nearest known one; an undecorated subclass of Destination
// keeps the options given to its constructor over its field initialisers (set once an asset is bound
// to it) and refuses options its class never takes; @destination on a non-destination and a
// non-destination in `destinations` are ConfigErrors when the config loads.
import { describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { projectOf } from "../../src/api/project.js";
import { ConfigError } from "../../src/errors.js";
import { InertDatabaseDestination, InertDestination } from "../support/stub-destinations.js";

const configError = (make: () => unknown, message: string) => {
  let caught: unknown;
  try {
    make();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  expect((caught as Error).message).toBe(message);
};

// An undecorated destination of a user's config: fields with defaults, options by reflection.
class Undecorated extends InertDestination {
  basePath = "./default";
  pretty = false;
}

/**
 * The destination, once bound to an asset: the options of a class that declares none are set
 * over its fields then (the fields are defined after the base constructor has returned).
 */
function bound<D extends il.Destination>(destination: D): D {
  il.source({ key: "s", assets: [il.asset({ key: "a", run: () => [] })] })({ destinations: destination });
  return destination;
}

describe("built-in destinations check their options", () => {
  it("an unknown key names the nearest known one; a missing required one is named", () => {
    const make = il.CSVDestination as unknown as new (options: unknown) => unknown;
    configError(
      () => new make({ basepath: "/x" }),
      'CSVDestination: unknown option "basepath"; did you mean "basePath"? (known: basePath, durable)',
    );
    configError(() => new make({}), 'CSVDestination: option "basePath" is required');
    configError(() => new make(undefined), "CSVDestination: expected an options object, got undefined");
    configError(
      () => new make({ basePath: "/x", durabel: true }),
      'CSVDestination: unknown option "durabel"; did you mean "durable"? (known: basePath, durable)',
    );
    configError(() => new make({ basePath: "/x", zzzzzzzz: 1 }), 'CSVDestination: unknown option "zzzzzzzz" (known: basePath, durable)');
  });

  it("every built-in with options refuses a typo", () => {
    const cases: Array<[new (options: never) => unknown, object, string]> = [
      [
        il.FileDestination,
        { basepath: "/x" },
        'FileDestination: unknown option "basepath"; did you mean "basePath"? (known: basePath, durable)',
      ],
      [
        il.LocalObjectStoreDestination,
        { basePath: "/x", prefx: "p" },
        'LocalObjectStoreDestination: unknown option "prefx"; did you mean "prefix"? (known: basePath, prefix, format, durable)',
      ],
      [
        il.S3Destination,
        { Bucket: "b" },
        'S3Destination: unknown option "Bucket"; did you mean "bucket"? (known: bucket, prefix, format, connection)',
      ],
      [
        il.GCSDestination,
        { bucket: "b", fromat: "csv" },
        'GCSDestination: unknown option "fromat"; did you mean "format"? (known: bucket, prefix, format, connection)',
      ],
      [il.SQLiteDestination, { paht: "w.db" }, 'SQLiteDestination: unknown option "paht"; did you mean "path"? (known: path)'],
      [
        il.PostgresDestination,
        { conection: {} },
        'PostgresDestination: unknown option "conection"; did you mean "connection"? (known: connection)',
      ],
      [il.MySQLDestination, { url: "mysql://x" }, 'MySQLDestination: unknown option "url" (known: connection)'],
      [il.S3Destination, { prefix: "p" }, 'S3Destination: option "bucket" is required'],
      [il.SQLiteDestination, {}, 'SQLiteDestination: option "path" is required'],
    ];
    for (const [ctor, options, message] of cases) configError(() => new ctor(options as never), message);
  });

  it("existing messages are kept", () => {
    configError(() => new il.GCSDestination({ bucket: "" }), "GCSDestination: bucket must be a non-empty bucket name");
    configError(
      () => new il.LocalObjectStoreDestination({ basePath: "" }),
      "LocalObjectStoreDestination: basePath must be a non-empty folder path",
    );
  });
});

describe("one options path for built-in and user destinations", () => {
  it("a built-in's options are set on its fields by the base, as a user class's are", () => {
    const csv = new il.CSVDestination({ basePath: "/data", durable: false });
    expect([csv.basePath, csv.durable]).toEqual(["/data", false]);
    expect(new il.CSVDestination({ basePath: "/data" }).durable).toBe(true);
    const store = new il.LocalObjectStoreDestination({ basePath: "/lake", prefix: "raw", format: "csv" });
    expect([store.basePath, store.prefix, store.format, store.durable]).toEqual(["/lake", "raw", "csv", true]);
    expect(new il.SQLiteDestination({ path: ":memory:" }).path).toBe(":memory:");
  });

  it("a subclass of a built-in extends its declared options, and assigns them in its constructor", () => {
    interface PrettyOptions extends il.CSVDestinationOptions {
      readonly pretty?: boolean;
    }
    class Pretty extends il.CSVDestination {
      static override readonly options = il.declareOptions<PrettyOptions>({
        basePath: "required",
        durable: "optional",
        pretty: "optional",
      });
      readonly pretty: boolean;
      constructor(options: PrettyOptions) {
        super(options);
        this.pretty = options.pretty ?? false;
      }
    }
    expect(new Pretty({ basePath: "/p" }).pretty).toBe(false);
    const pretty = new Pretty({ basePath: "/p", pretty: true });
    expect([pretty.basePath, pretty.pretty]).toEqual(["/p", true]);
    configError(
      () => new Pretty({ basePath: "/p", prety: true } as PrettyOptions),
      'Pretty: unknown option "prety"; did you mean "pretty"? (known: basePath, durable, pretty)',
    );
  });

  it("a user class that declares its options has unknown and missing ones refused when it is constructed", () => {
    interface LakeOptions {
      readonly root: string;
      readonly pretty?: boolean;
    }
    class Lake extends InertDestination {
      static override readonly options = il.declareOptions<LakeOptions>({ root: "required", pretty: "optional" });
      // Set by the base constructor: a `declare`d field defines nothing over it.
      declare readonly root: string;
      readonly pretty: boolean;
      constructor(options: LakeOptions) {
        super(options);
        this.pretty = options.pretty ?? false;
      }
    }
    expect(new Lake({ root: "/r" })).toMatchObject({ root: "/r", pretty: false });
    configError(() => new Lake({ pretty: true } as never), 'Lake: option "root" is required');
    configError(
      () => new Lake({ root: "/r", rooot: 1 } as never),
      'Lake: unknown option "rooot"; did you mean "root"? (known: root, pretty)',
    );
  });

  it("a private option is checked but never set on the instance", () => {
    const url = "postgres://user:s3cret@127.0.0.1:1/db";
    const pg = new il.PostgresDestination({ connection: { url } });
    expect(Object.keys(pg)).not.toContain("connection");
    expect(JSON.stringify(pg)).not.toContain("s3cret");
    const s3 = new il.S3Destination({ bucket: "b", connection: { credentials: { accessKeyId: "AKIA", secretAccessKey: "s3cret" } } });
    expect(Object.keys(s3)).not.toContain("connection");
    expect(s3.connection.credentials?.secretAccessKey).toBe("[redacted]");
  });

  it("MemoryDestination takes no options", () => {
    const make = il.MemoryDestination as unknown as new (options: unknown) => unknown;
    configError(() => new make({ basePath: "/x" }), 'MemoryDestination: unknown option "basePath" (known: none)');
    expect(new il.MemoryDestination()).toBeInstanceOf(il.MemoryDestination);
  });

  it("a user subclass of DatabaseDestination keeps its options", () => {
    class Warehouse extends InertDatabaseDestination {
      url = "default";
    }
    expect(bound(new (Warehouse as unknown as new (options: object) => Warehouse)({ url: "db://given" })).url).toBe("db://given");
  });

  it("every destination can be closed; the base's close does nothing", async () => {
    await expect(new Undecorated({}).close()).resolves.toBeUndefined();
    await expect(new il.CSVDestination({ basePath: "/x" }).close()).resolves.toBeUndefined();
  });
});

describe("an undecorated subclass of Destination", () => {
  it("keeps the options given over its field initialisers, once bound to an asset", () => {
    const u = bound(new Undecorated({ basePath: "./x", pretty: true }));
    expect(u.basePath).toBe("./x");
    expect(u.pretty).toBe(true);
    expect(u).toBeInstanceOf(Undecorated);
    expect(u).toBeInstanceOf(il.Destination);
    // Options not given keep their defaults; later assignments are the class's own.
    const d = bound(new Undecorated({ pretty: true }));
    expect(d.basePath).toBe("./default");
    d.basePath = "./later";
    expect(d.basePath).toBe("./later");
  });

  it("that computes a value from an option declares its options and reads them from its argument; the value stands", () => {
    class Normalising extends InertDestination {
      static override readonly options = il.declareOptions<{ basePath?: string }>({ basePath: "optional" });
      readonly basePath: string;
      constructor(options: { basePath?: string }) {
        super(options);
        this.basePath = (options.basePath ?? "./default").replace(/\/+$/, "");
      }
    }
    expect(bound(new Normalising({ basePath: "./x///" })).basePath).toBe("./x");
    expect(new Normalising({}).basePath).toBe("./default");
    const Decorated = il.destination()(Normalising);
    expect(new Decorated({ basePath: "./x///" }).basePath).toBe("./x");
  });

  it("with private fields and relative paths works", () => {
    class Private extends InertDestination {
      basePath = "data";
      #secret = "s";
      get secret(): string {
        return this.#secret;
      }
      override get location(): string {
        return this.resolvePath(this.basePath);
      }
    }
    const p = bound(new Private({ basePath: "lake" }));
    expect(p.secret).toBe("s");
    p.resolvePathsFrom("/srv/project");
    expect(p.location).toBe("/srv/project/lake");
  });

  it("a plain JavaScript class (fields defined natively) keeps its options too", () => {
    const make = new Function(
      "Destination",
      `return class Plain extends Destination {
      basePath = "./default";
      writePartition() {}
      readPartition() { return null; }
      partitionRowCounts() { return {}; }
    }`,
    ) as (base: typeof il.Destination) => new (options: object) => il.Destination & { basePath: string };
    const Plain = make(il.Destination);
    expect(bound(new Plain({ basePath: "./x" })).basePath).toBe("./x");
  });

  it("an option its class never takes is a ConfigError naming the nearest field, when an asset or source is bound to it", () => {
    const typo = new Undecorated({ basepath: "/x" });
    const message = 'Undecorated: unknown option "basepath"; did you mean "basePath"? (known: basePath, pretty)';
    configError(() => il.source({ key: "shop", assets: [il.asset({ key: "a", run: () => [] })] })({ destinations: typo }), message);
    configError(() => projectOf(il.defineConfig({ assets: [il.asset({ key: "a", destinations: typo, run: () => [] })] })), message);
  });

  it("an option naming a read-only property is a ConfigError, not a TypeError", () => {
    configError(
      () => new Undecorated({ location: "/x" }),
      'Undecorated: option "location" cannot be set: it is a read-only property of the destination',
    );
  });

  it("a subclass of ObjectStoreDestination takes prefix and format", () => {
    class Lake extends il.ObjectStoreDestination {
      root = "/lake";
      async putObject(): Promise<void> {}
      async getObject(): Promise<null> {
        return null;
      }
      listObjects(): never[] {
        return [];
      }
      async deleteObject(): Promise<void> {}
      objectUri(name: string): string {
        return `lake://${name}`;
      }
    }
    const lake = new Lake({ root: "/r", prefix: "raw", format: "csv" });
    expect(() => bound(lake)).not.toThrow();
    expect([lake.root, lake.prefix, lake.format]).toEqual(["/r", "raw", "csv"]);
    configError(
      () => il.source({ key: "s", assets: [il.asset({ key: "a", run: () => [] })] })({ destinations: new Lake({ prefixx: "raw" }) }),
      'Lake: unknown option "prefixx"; did you mean "prefix"? (known: format, prefix, root)',
    );
  });
});

describe("decorated destinations", () => {
  it("an unknown option names the nearest field", () => {
    @il.destination()
    class Decorated extends InertDestination {
      basePath = "./default";
    }
    expect(new Decorated({ basePath: "./x" }).basePath).toBe("./x");
    expect(new Decorated({}).basePath).toBe("./default");
    configError(
      () => new Decorated({ basepath: "./x" }),
      'Decorated: unknown option "basepath"; did you mean "basePath"? (known: basePath)',
    );
  });

  it("@destination on a class that neither extends Destination nor has its hooks is a ConfigError", () => {
    configError(() => {
      @(il.destination() as (target: unknown, context: ClassDecoratorContext) => void)
      class NotOne {}
      return NotOne;
    }, "@destination applies to subclasses of il.Destination and to classes with writePartition(), readPartition(), partitionRowCounts(), but class NotOne has no writePartition()");
  });
});

describe("destinations that are not destinations", () => {
  it("are ConfigErrors naming the source and the key, or the asset", () => {
    const src = il.source({ key: "shop", assets: [il.asset({ key: "orders", run: () => [] })] });
    configError(
      () => src({ destinations: { warehouse: "./data" } as never }),
      'source "shop": destination "warehouse" is not a Destination (got string "./data")',
    );
    configError(
      () => src({ destinations: [il.CSVDestination] as never }),
      'source "shop": destination 0 is not a Destination (got class CSVDestination)',
    );
    configError(
      () => il.source({ key: "s", destinations: { lake: {} } as never, assets: [il.asset({ key: "a", run: () => [] })] })(),
      'source "s": destination "lake" is not a Destination (got object {})',
    );
    configError(
      () => projectOf(il.defineConfig({ assets: [il.asset({ key: "solo", destinations: { db: 42 } as never, run: () => [] })] })),
      'asset "solo": destination "db" is not a Destination (got number 42)',
    );
  });

  it("refuse an instance of another class, naming it, rather than read it as an empty record of named destinations", () => {
    class Warehouse {
      constructor(readonly path = "./data") {}
    }
    class Lake {}
    const orders = il.asset({ key: "orders", run: () => [] });
    configError(
      () => il.source({ key: "shop", destinations: new Warehouse() as never, assets: [orders] })(),
      'source "shop": destination 0 is not a Destination (got Warehouse)',
    );
    configError(
      () => projectOf(il.defineConfig({ assets: [il.asset({ key: "solo", destinations: new Lake() as never, run: () => [] })] })),
      'asset "solo": destination 0 is not a Destination (got Lake)',
    );
    configError(
      () => projectOf(il.defineConfig({ assets: [il.asset({ key: "mapped", destinations: new Map() as never, run: () => [] })] })),
      'asset "mapped": destination 0 is not a Destination (got Map)',
    );
  });
});
