import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TimePartition, TimePartitionWindow } from "../../src/partitioning/index.js";
import {
  RowsTable,
  TableData,
  registerRepresentation,
  representationKinds,
  unregisterRepresentation,
} from "../../src/representation/index.js";
import type { Representation } from "../../src/representation/index.js";

type ColumnMap = Map<string, unknown[]>;

// The native value of the new kind, so `to("map")` is typed like the built-ins.
declare module "../../src/representation/index.js" {
  interface NativeKinds {
    map: ColumnMap;
  }
}

/** A toy third shape: a Map from column name to values, as a user's library might hand back. */
class MapTable extends TableData<ColumnMap> {
  readonly kind = "map";
  constructor(
    readonly data: ColumnMap,
    readonly length = data.size === 0 ? 0 : [...data.values()][0]!.length,
  ) {
    super();
  }
  get rows() {
    const out: Record<string, unknown>[] = [];
    for (let i = 0; i < this.length; i++) {
      const row: Record<string, unknown> = {};
      for (const [name, values] of this.data) row[name] = values[i];
      out.push(row);
    }
    return out;
  }
  columns() {
    return [...this.data.keys()];
  }
  values(column: string) {
    return this.data.get(column) ?? new Array<unknown>(this.length).fill(null);
  }
  take(indices: readonly number[]) {
    const out: ColumnMap = new Map();
    for (const [name, values] of this.data)
      out.set(
        name,
        indices.map((i) => values[i]),
      );
    return new MapTable(out, indices.length);
  }
  protected concat(others: readonly TableData<ColumnMap>[]) {
    const tables: TableData<ColumnMap>[] = [this, ...others];
    const out: ColumnMap = new Map();
    for (const name of new Set(tables.flatMap((t) => t.columns()))) {
      out.set(
        name,
        tables.flatMap((t) => [...t.values(name)]),
      );
    }
    return new MapTable(
      out,
      tables.reduce((n, t) => n + t.length, 0),
    );
  }
}

const mapRepresentation: Representation<ColumnMap> = {
  kind: "map",
  detect: (data) => data instanceof Map && data.size > 0 && [...data.values()].every(Array.isArray),
  wrap: (data) => new MapTable(data),
  fromTable: (table) => new MapTable(new Map(table.columns().map((c) => [c, [...table.values(c)]])), table.length),
};

const sample = (): ColumnMap =>
  new Map<string, unknown[]>([
    ["date", ["2026-01-02", "2026-01-01", "2026-01-02", "2026-02-01"]],
    ["n", [1, 2, 3, 4]],
  ]);

describe("a registered third shape", () => {
  beforeAll(() => registerRepresentation(mapRepresentation));
  afterAll(() => unregisterRepresentation("map"));

  it("is detected first, before the built-ins", () => {
    expect(representationKinds()).toEqual(["map", "columns", "rows"]);
    const table = TableData.from(sample());
    expect(table).toBeInstanceOf(MapTable);
    expect(TableData.from(new Map([["a", 1]]))).toBeNull();
  });

  it("slices and splits in its own kind", () => {
    const table = TableData.from(sample())!;
    const slice = table.slice(new TimePartition("2026-01-02"), "date");
    expect(slice.kind).toBe("map");
    expect(slice.to("map").get("n")).toEqual([1, 3]);
    const split = table.split(new TimePartitionWindow("2026-01-01", "2026-01-03"), "date");
    expect(split.slices.map(([p, t]) => [p.key, t.to("map").get("n")])).toEqual([
      ["2026-01-01", [2]],
      ["2026-01-02", [1, 3]],
      ["2026-01-03", []],
    ]);
    expect(split.outside).toBe(1);
  });

  it("joins, converting other kinds to it", () => {
    const joined = TableData.join([TableData.from(sample())!, TableData.from([{ n: 5, extra: true }])!]);
    expect(joined.kind).toBe("map");
    expect(joined.to("map").get("n")).toEqual([1, 2, 3, 4, 5]);
    expect(joined.to("map").get("extra")).toEqual([null, null, null, null, true]);
  });

  it("converts to and from the built-ins", () => {
    const table = TableData.from(sample())!;
    expect(table.to("rows")[1]).toEqual({ date: "2026-01-01", n: 2 });
    expect(table.to("columns")).toEqual({ date: ["2026-01-02", "2026-01-01", "2026-01-02", "2026-02-01"], n: [1, 2, 3, 4] });
    expect(TableData.from([{ a: 1 }, { b: 2 }])!.to("map")).toEqual(
      new Map([
        ["a", [1, null]],
        ["b", [null, 2]],
      ]),
    );
  });
});

describe("the registry", () => {
  it("lets a later registration claim values a built-in would, and replaces a kind re-registered", () => {
    let wrapped = 0;
    const claimed: Representation<Record<string, unknown>[]> = {
      kind: "tagged",
      detect: (data) => Array.isArray(data) && data.length > 0 && (data[0] as { tag?: unknown }).tag === true,
      wrap: (data) => {
        wrapped++;
        return new RowsTable(data);
      },
      fromTable: (table) => new RowsTable(table.rows),
    };
    registerRepresentation(claimed);
    registerRepresentation(claimed);
    try {
      expect(representationKinds()).toEqual(["tagged", "columns", "rows"]);
      expect(TableData.from([{ tag: true }])).not.toBeNull();
      expect(TableData.from([{ tag: false }])).not.toBeNull();
      expect(wrapped).toBe(1);
    } finally {
      expect(unregisterRepresentation("tagged")).toBe(true);
    }
    expect(unregisterRepresentation("tagged")).toBe(false);
  });

  it("refuses a representation without a kind or a hook", () => {
    expect(() => registerRepresentation({ ...mapRepresentation, kind: "" })).toThrow(TypeError);
    const { fromTable: _, ...partial } = mapRepresentation;
    expect(() => registerRepresentation(partial as Representation<ColumnMap>)).toThrow(/missing its fromTable/);
  });
});
