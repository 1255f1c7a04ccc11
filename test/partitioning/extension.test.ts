// partitioning.md, "Extending partitioning": a new kind subclasses PartitionConfig, Partition and
// PartitionWindow, implements their abstract contract, and registers its kind for fromDefinition.
import { describe, expect, it } from "vitest";
import {
  ConfigError,
  ListPartitionConfig,
  Partition,
  PartitionConfig,
  PartitionError,
  PartitionWindow,
  TimePartition,
  TimePartitionConfig,
} from "../../src/index.js";
import type { PartitionDefinition, PartitionFilter } from "../../src/index.js";
import { errorOf } from "../support/assertions.js";

const LETTERS = "abcdefghijklmnopqrstuvwxyz";

class LetterPartition extends Partition {
  readonly key: string;
  readonly value: string;

  constructor(letter: string) {
    super();
    if (!LETTERS.includes(letter) || letter.length !== 1) throw new PartitionError(`"${letter}" is not a letter`);
    this.key = letter;
    this.value = letter;
  }

  get window(): LetterWindow {
    return new LetterWindow(this.key, this.key);
  }

  contains(value: unknown): boolean {
    return value === this.value;
  }

  filter(column: string): PartitionFilter {
    return { column, value: this.value };
  }
}

class LetterWindow extends PartitionWindow {
  readonly partitions: readonly LetterPartition[];
  readonly length: number;

  constructor(first: string, last: string) {
    super();
    const from = LETTERS.indexOf(first);
    const to = LETTERS.indexOf(last);
    if (from < 0 || to < 0 || to < from) throw new PartitionError(`bad letter window ${first}..${last}`);
    this.partitions = [...LETTERS.slice(from, to + 1)].map((l) => new LetterPartition(l));
    this.length = this.partitions.length;
  }

  keyOf(value: unknown): string | null {
    return this.partitions.find((p) => p.contains(value))?.key ?? null;
  }

  filter(column: string): PartitionFilter {
    return { column, values: this.partitions.map((p) => p.key) };
  }

  toString(): string {
    const first = this.partitions[0]?.key ?? "";
    const last = this.partitions[this.length - 1]?.key ?? "";
    return first === last ? first : `${first}..${last}`;
  }
}

class LetterConfig extends PartitionConfig {
  readonly kind = "letter";

  constructor(column: string, allowWindow = false) {
    super(column, allowWindow);
  }

  partition(key: string): LetterPartition {
    return new LetterPartition(key);
  }

  window(startKey: string, endKey: string): LetterWindow {
    return new LetterWindow(startKey, endKey);
  }

  compatible(other: PartitionConfig): boolean {
    return other instanceof LetterConfig;
  }

  toDefinition(): PartitionDefinition {
    return { kind: this.kind, column: this.column, allowWindow: this.allowWindow };
  }

  protected checkKind(window: PartitionWindow, assetKey: string): void {
    if (!(window instanceof LetterWindow)) {
      throw new PartitionError(`asset "${assetKey}" is partitioned by letter but was given ${String(window)}`);
    }
  }
}

PartitionConfig.register("letter", (definition) => new LetterConfig(definition.column, definition.allowWindow));

describe("a third partitioning kind", () => {
  it("is rebuilt by fromDefinition once registered", () => {
    const cfg = new LetterConfig("initial", true);
    const back = PartitionConfig.fromDefinition(JSON.parse(JSON.stringify(cfg.toDefinition())) as PartitionDefinition);
    expect(back).toBeInstanceOf(LetterConfig);
    expect(back.column).toBe("initial");
    expect(back.allowWindow).toBe(true);
  });

  it("leaves the built-in kinds registered", () => {
    const time = new TimePartitionConfig({ column: "date" });
    expect(PartitionConfig.fromDefinition(time.toDefinition())).toBeInstanceOf(TimePartitionConfig);
    const list = new ListPartitionConfig({ column: "r", values: ["x"] });
    expect(PartitionConfig.fromDefinition(list.toDefinition())).toBeInstanceOf(ListPartitionConfig);
  });

  it("gets check from the base: a bare partition is its window of one", () => {
    const cfg = new LetterConfig("initial");
    const w = cfg.check(new LetterPartition("c"), "people");
    expect(w.length).toBe(1);
    expect(String(w)).toBe("c");
    expect(w.key).toBe("c");
  });

  it("gets check from the base: several partitions need allowWindow", () => {
    expect(() => new LetterConfig("initial").check(new LetterWindow("a", "c"), "people")).toThrow(PartitionError);
    expect(() => new LetterConfig("initial").check(new LetterWindow("a", "c"), "people")).toThrow(/people/);
    expect(new LetterConfig("initial", true).check(new LetterWindow("a", "c"), "people").length).toBe(3);
  });

  it("is refused by the built-in kinds, and refuses theirs", () => {
    expect(() => new TimePartitionConfig({ column: "date" }).check(new LetterPartition("a"), "people")).toThrow(/people/);
    expect(() => new TimePartitionConfig({ column: "date" }).check(new LetterPartition("a"), "people")).toThrow(PartitionError);
    const list = new ListPartitionConfig({ column: "r", values: ["a"] });
    expect(() => list.check(new LetterPartition("a"), "people")).toThrow(PartitionError);
    expect(() => new LetterConfig("initial").check(new TimePartition("2026-01-01"), "people")).toThrow(PartitionError);
    expect(new TimePartitionConfig({ column: "date" }).compatible(new LetterConfig("date"))).toBe(false);
  });

  it("gets slice, iteration and toString from the base", () => {
    const rows = [{ initial: "a" }, { initial: "b" }, { initial: "a" }];
    expect(new LetterPartition("a").slice(rows, "initial")).toEqual([{ initial: "a" }, { initial: "a" }]);
    expect([...new LetterWindow("x", "z")].map((p) => p.key)).toEqual(["x", "y", "z"]);
    expect(String(new LetterPartition("q"))).toBe("q");
  });

  it("cannot replace a built-in kind: registering time, list or multi again is a ConfigError, and they still read back", () => {
    for (const kind of ["time", "list", "multi"]) {
      const error = errorOf(() => PartitionConfig.register(kind, (d) => new LetterConfig(d.column)));
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toBe(
        `PartitionConfig.register: "${kind}" is a built-in partitioning kind and cannot be replaced: expected a kind name other than "time", "list" and "multi"`,
      );
    }
    expect(PartitionConfig.fromDefinition(new TimePartitionConfig({ column: "date" }).toDefinition())).toBeInstanceOf(TimePartitionConfig);
    // A kind of one's own may be registered again, as when its module is loaded twice.
    expect(() => PartitionConfig.register("letter", (d) => new LetterConfig(d.column, d.allowWindow))).not.toThrow();
  });

  it("refuses something that is neither a partition nor a window with a PartitionError naming the asset", () => {
    expect(() => new LetterConfig("initial").check("a" as unknown as LetterWindow, "people")).toThrow(PartitionError);
    expect(() => new LetterConfig("initial").check("a" as unknown as LetterWindow, "people")).toThrow(/asset "people"/);
  });
});
