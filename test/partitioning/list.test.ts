import { describe, expect, it, test } from "vitest";
import {
  ConfigError,
  ListPartition,
  ListPartitionConfig,
  ListPartitionWindow,
  Partition,
  PartitionConfig,
  PartitionError,
  PartitionWindow,
  TimePartition,
  TimePartitionConfig,
} from "../../src/index.js";
import type { PartitionDefinition } from "../../src/index.js";
import { errorOf, expectPartitionError } from "../support/assertions.js";

const regions = () => new ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"] });

describe("ListPartitionConfig", () => {
  it("is of kind list and keeps its options", () => {
    const cfg = regions();
    expect(cfg.kind).toBe("list");
    expect(cfg.column).toBe("region");
    expect(cfg.values).toEqual(["eu", "us", "apac"]);
    expect(cfg.allowWindow).toBe(false);
    expect(cfg).toBeInstanceOf(PartitionConfig);
    expect(new ListPartitionConfig({ column: "region", values: ["eu"], allowWindow: true }).allowWindow).toBe(true);
  });

  it("is not changed by later changes to the array it was given", () => {
    const values = ["eu", "us"];
    const cfg = new ListPartitionConfig({ column: "region", values });
    values.push("apac");
    expect(cfg.values).toEqual(["eu", "us"]);
  });

  it("parses a declared key", () => {
    const p = regions().partition("us");
    expect(p).toBeInstanceOf(ListPartition);
    expect(p.key).toBe("us");
    expect(p.value).toBe("us");
  });

  it("refuses a key that is not declared, naming it and listing the declared values", () => {
    expectPartitionError(() => regions().partition("mars"), "mars", "eu", "us", "apac");
    expectPartitionError(() => regions().partition("EU"), "EU");
    expectPartitionError(() => regions().partition(""));
  });
});

describe("ListPartitionConfig: refused values", () => {
  const bad: readonly [string, string][] = [
    ["empty", ""],
    ["a slash", "eu/west"],
    ["a backslash", "eu\\west"],
    ["NUL", "eu\u0000west"],
    ["a carriage return", "eu\rwest"],
    ["a newline", "eu\n"],
    ["a tab", "\teu"],
    ["an escape sequence", "eu\u001b[2J"],
    ["DEL", "eu\u007f"],
    ["an equals sign", "region=eu"],
    ["a dot", "."],
    ["two dots", ".."],
    // Issue 41.21: a window joins its ends with "..", so "eu..west" reads as a window.
    ["two dots inside", "eu..west"],
    ["two dots at an end", "eu.."],
  ];
  for (const [label, value] of bad) {
    test(`refuses a value that is ${label} when the config is built`, () => {
      expect(errorOf(() => new ListPartitionConfig({ column: "region", values: ["eu", value] }))).toBeInstanceOf(ConfigError);
    });
  }

  it('says why a value holding ".." is refused, on one line', () => {
    const error = errorOf(() => new ListPartitionConfig({ column: "region", values: ["eu", "eu..west"] }));
    expect((error as Error).message).toBe(
      'list partitioning on "region": value string "eu..west" must not contain ".." (a window joins its ends with it) (values are used as path segments and SQL literals)',
    );
  });

  it("names the refused value", () => {
    const error = errorOf(() => new ListPartitionConfig({ column: "region", values: ["eu", "eu/west"] }));
    expect((error as Error).message).toContain("eu/west");
  });

  it("names a refused control character by its code point, the value escaped, on one line", () => {
    const error = errorOf(() => new ListPartitionConfig({ column: "region", values: ["eu", "eu\rwest"] }));
    expect((error as Error).message).toBe(
      'list partitioning on "region": value string "eu\\rwest" must not contain the control character U+000D (values are used as path segments and SQL literals)',
    );
    const partition = errorOf(() => new ListPartition("\u001b[2Jeu"));
    expect(partition).toBeInstanceOf(PartitionError);
    expect((partition as Error).message).toBe('list partition value string "\\u001b[2Jeu" must not contain the control character U+001B');
  });

  it("allows characters past the C0 controls and DEL: non-breaking space, C1, emoji, right-to-left", () => {
    expect(
      new ListPartitionConfig({ column: "r", values: ["a\u00a0b", "a\u0085b", "🚀", "שלום", "a.tmp-b", "__proto__"] }).values,
    ).toHaveLength(6);
  });

  it("refuses duplicate values", () => {
    const error = errorOf(() => new ListPartitionConfig({ column: "region", values: ["eu", "us", "eu"] }));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain("eu");
  });

  it("allows single dots, dashes and spaces inside a value", () => {
    expect(new ListPartitionConfig({ column: "r", values: ["a.b", "north-america", "new york"] }).values).toHaveLength(3);
  });
});

describe("ListPartition", () => {
  it("has key === value", () => {
    const p = new ListPartition("eu");
    expect(p.key).toBe("eu");
    expect(p.value).toBe("eu");
    expect(String(p)).toBe("eu");
    expect(p).toBeInstanceOf(Partition);
  });

  it("filters and slices by membership", () => {
    const p = new ListPartition("eu");
    expect(p.filter("region")).toEqual({ column: "region", value: "eu" });
    const rows = [
      { region: "eu", n: 1 },
      { region: "us", n: 2 },
      { region: "eu", n: 3 },
      { region: "apac", n: 4 },
      { region: "EU", n: 5 },
    ];
    const slice = p.slice(rows, "region");
    expect(slice.map((r) => r.n)).toEqual([1, 3]);
    expect(slice[0]).toBe(rows[0]);
  });

  it("has a window of one", () => {
    const w = regions().partition("us").window;
    expect(w.length).toBe(1);
    expect(String(w)).toBe("us");
    expect(w.partitions.map((p) => p.key)).toEqual(["us"]);
  });
});

describe("ListPartitionWindow", () => {
  it("covers the contiguous declared range in declared order", () => {
    const cfg = regions();
    const w = cfg.window("eu", "us");
    expect(w).toBeInstanceOf(ListPartitionWindow);
    expect(w).toBeInstanceOf(PartitionWindow);
    expect(w.length).toBe(2);
    expect([...w].map((p) => p.key)).toEqual(["eu", "us"]);
    expect(String(w)).toBe("eu..us");
    expect(w.key).toBe("eu..us");
    expect([...cfg.window("us", "apac")].map((p) => p.key)).toEqual(["us", "apac"]);
    expect([...cfg.window("eu", "apac")].map((p) => p.key)).toEqual(["eu", "us", "apac"]);
  });

  it("is a single key for a window of one", () => {
    const w = regions().window("apac", "apac");
    expect(w.length).toBe(1);
    expect(String(w)).toBe("apac");
  });

  it("can be built directly", () => {
    const w = new ListPartitionWindow(regions(), "us", "apac");
    expect(w.partitions.map((p) => p.key)).toEqual(["us", "apac"]);
    for (const p of w) expect(p).toBeInstanceOf(ListPartition);
  });

  it("refuses a start after its end in declared order", () => {
    expectPartitionError(() => regions().window("apac", "eu"), "apac", "eu");
    expectPartitionError(() => new ListPartitionWindow(regions(), "us", "eu"), "us", "eu");
  });

  it("refuses keys that are not declared, naming them", () => {
    expectPartitionError(() => regions().window("eu", "mars"), "mars");
    expectPartitionError(() => new ListPartitionWindow(regions(), "mars", "eu"), "mars");
  });

  it("filters by membership and names the partition holding a value", () => {
    const w = regions().window("eu", "us");
    expect(w.filter("region")).toEqual({ column: "region", values: ["eu", "us"] });
    expect(w.keyOf("us")).toBe("us");
    expect(w.keyOf("apac")).toBeNull();
    expect(w.keyOf("mars")).toBeNull();
  });
});

describe("ListPartitionConfig.check", () => {
  const asset = "shop.sales";

  it("returns the window it accepts and takes a bare partition as its window of one", () => {
    const cfg = regions();
    const w = cfg.window("us", "us");
    expect(cfg.check(w, asset)).toBe(w);
    const one = cfg.check(cfg.partition("eu"), asset);
    expect(one.length).toBe(1);
    expect(String(one)).toBe("eu");
    expect(cfg.check(new ListPartition("apac"), asset).length).toBe(1);
  });

  it("accepts a window built by an equal config", () => {
    expect(regions().check(regions().window("us", "us"), asset).length).toBe(1);
  });

  it("refuses several partitions without allowWindow, naming the asset", () => {
    expectPartitionError(() => regions().check(regions().window("eu", "us"), asset), asset);
    const windowed = new ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"], allowWindow: true });
    expect(windowed.check(windowed.window("eu", "apac"), asset).length).toBe(3);
  });

  it("refuses a window of another kind, naming the asset", () => {
    const time = new TimePartitionConfig({ column: "date" });
    expectPartitionError(() => regions().check(time.window("2026-01-01", "2026-01-01"), asset), asset);
    expectPartitionError(() => regions().check(new TimePartition("2026-01-01"), asset), asset);
  });

  it("refuses a key that is not declared, naming the asset and the key", () => {
    expectPartitionError(() => regions().check(new ListPartition("mars"), asset), asset, "mars");
    const other = new ListPartitionConfig({ column: "region", values: ["mars", "venus"] });
    expectPartitionError(() => regions().check(other.window("mars", "mars"), asset), asset, "mars");
  });

  it("refuses a window of another order whose text names other values, or none, in the asset's own order", () => {
    const own = new ListPartitionConfig({ column: "region", values: ["eu", "apac", "us"], allowWindow: true });
    // eu..apac of (eu, us, apac) holds us too; in (eu, apac, us) it is eu, apac.
    expectPartitionError(
      () => own.check(regions().window("eu", "apac"), asset),
      asset,
      "the list window eu..apac was made in the order eu, us, apac, where it holds eu, us, apac; in the asset's declared order eu, apac, us it holds eu, apac",
    );
    // us..apac of (eu, us, apac) ends before it starts in (eu, apac, us).
    expectPartitionError(() => own.check(regions().window("us", "apac"), asset), "us..apac", "ends before it starts");
    // The same values as a range of its own order, or a subset list's window, are served.
    const reordered = new ListPartitionConfig({ column: "region", values: ["us", "eu", "apac"] });
    expect(own.check(reordered.window("eu", "apac"), asset).length).toBe(2);
    const subset = new ListPartitionConfig({ column: "region", values: ["eu", "apac"] });
    expect(own.check(subset.window("eu", "apac"), asset).length).toBe(2);
  });
});

describe("ListPartitionConfig.compatible", () => {
  it("needs the same values in the same order; column and allowWindow do not matter", () => {
    const cfg = regions();
    expect(cfg.compatible(regions())).toBe(true);
    expect(cfg.compatible(new ListPartitionConfig({ column: "market", values: ["eu", "us", "apac"], allowWindow: true }))).toBe(true);
    expect(cfg.compatible(new ListPartitionConfig({ column: "region", values: ["us", "eu", "apac"] }))).toBe(false);
    expect(cfg.compatible(new ListPartitionConfig({ column: "region", values: ["eu", "us"] }))).toBe(false);
    expect(cfg.compatible(new ListPartitionConfig({ column: "region", values: ["eu", "us", "apac", "latam"] }))).toBe(false);
    expect(cfg.compatible(new TimePartitionConfig({ column: "region" }))).toBe(false);
  });
});

describe("ListPartitionConfig: definitions", () => {
  for (const cfg of [regions(), new ListPartitionConfig({ column: "market", values: ["de"], allowWindow: true })]) {
    test(`round-trips ${cfg.values.join(",")} through plain JSON`, () => {
      const def = cfg.toDefinition();
      expect(JSON.parse(JSON.stringify(def))).toEqual(def);
      expect(Object.getPrototypeOf(def)).toBe(Object.prototype);
      expect(def.kind).toBe("list");
      expect(def.column).toBe(cfg.column);
      expect(def.allowWindow).toBe(cfg.allowWindow);
      const back = PartitionConfig.fromDefinition(JSON.parse(JSON.stringify(def)) as PartitionDefinition);
      expect(back).toBeInstanceOf(ListPartitionConfig);
      const list = back as ListPartitionConfig;
      expect(list.values).toEqual(cfg.values);
      expect(list.column).toBe(cfg.column);
      expect(list.allowWindow).toBe(cfg.allowWindow);
      expect(list.toDefinition()).toEqual(def);
      expect(list.compatible(cfg)).toBe(true);
    });
  }

  it("refuses a definition with bad values", () => {
    const def = { ...regions().toDefinition(), values: ["eu", "a/b"] };
    expect(() => PartitionConfig.fromDefinition(def)).toThrow();
  });
});
