// The API's errors name its options; the command line says the same message with its flags.
import { describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { projectOf } from "../../src/api/project.js";
import { flagOf } from "../../src/cli/flags.js";

const daily = il.asset({ key: "orders", partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }), run: () => [] });
const project = projectOf(il.defineConfig({ assets: [daily] }));

function refusal(fn: () => unknown): il.InterloperError {
  try {
    fn();
  } catch (error) {
    if (error instanceof il.InterloperError) return error;
    throw error;
  }
  throw new Error("expected an InterloperError");
}

describe("options in messages", () => {
  it("the API names its options; the command line names the flags that set them", () => {
    const both = refusal(() => il.planMaterialize(project, { partition: "2026-01-01", window: "2026-01-01..2026-01-02" }));
    expect(both).toBeInstanceOf(il.ConfigError);
    expect(both.message).toBe("`partition` and `window` cannot be used together: name the partitions one way");
    expect(both.messageNaming(flagOf)).toBe("--partition and --window cannot be used together: name the partitions one way");
    const offset = refusal(() => il.planMaterialize(project, { offset: 1 }));
    expect(offset.message).toBe("`offset` only applies with `lookback`");
    expect(offset.messageNaming(flagOf)).toBe("--offset only applies with --lookback");
  });

  it("maps options to flags of another name, and others to kebab case", () => {
    expect(["only", "timeoutMs", "graceMs", "fullRefresh", "window"].map(flagOf)).toEqual([
      "--missing",
      "--timeout",
      "--grace",
      "--full-refresh",
      "--window",
    ]);
  });

  it("a message that names no option is said the same way everywhere", () => {
    const plain = new il.ConfigError('no asset "x"');
    expect(plain.messageNaming(flagOf)).toBe(plain.message);
  });
});
