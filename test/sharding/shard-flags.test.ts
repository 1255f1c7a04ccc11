// The flags that pick a shard (`--shard i/n`, 1-based; `--shard-index-env VAR --shard-count n`,
// VAR 0-based as Kubernetes and AWS Batch number their workers) and `--timeout` durations.
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/index.js";
import { parseShard } from "../../src/api/plan.js";
import { parseDuration, shardFromFlags } from "../../src/cli/commands/shard.js";

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected a ConfigError, nothing was thrown");
}

describe("--shard i/n", () => {
  it.each([
    ["1/4", { index: 1, count: 4 }],
    ["4/4", { index: 4, count: 4 }],
    ["1/1", { index: 1, count: 1 }],
    [" 3 / 12 ", { index: 3, count: 12 }],
  ])("%j is shard %j (1-based)", (text, shard) => {
    expect(parseShard(text)).toEqual(shard);
    expect(shardFromFlags({ shard: text }, {})).toEqual(shard);
  });

  it.each(["0/4", "5/4", "a/b", "1/0", "0/0", "-1/4", "1", "1/4/2", "", "1.5/4", "2of4"])(
    "%j is refused with a ConfigError naming it and the expected form",
    (text) => {
      const error = configError(() => shardFromFlags({ shard: text }, {}));
      expect(error.message).toContain(`"${text}"`);
      expect(error.message).toContain("i/n");
    },
  );

  it("cannot be combined with --shard-index-env or --shard-count", () => {
    expect(
      configError(() => shardFromFlags({ shard: "1/4", shardIndexEnv: "JOB_COMPLETION_INDEX" }, { JOB_COMPLETION_INDEX: "0" })).message,
    ).toMatch(/--shard.*--shard-index-env/);
    expect(configError(() => shardFromFlags({ shard: "1/4", shardCount: 4 }, {})).message).toMatch(/--shard.*--shard-count/);
  });

  it("no shard flag: no shard", () => {
    expect(shardFromFlags({}, { JOB_COMPLETION_INDEX: "3" })).toBeUndefined();
  });
});

describe("--shard-index-env VAR --shard-count n", () => {
  it.each([
    ["0", 4, { index: 1, count: 4 }],
    ["3", 4, { index: 4, count: 4 }],
    ["7", 8, { index: 8, count: 8 }],
    ["0", 1, { index: 1, count: 1 }],
  ])("VAR=%s (0-based) with --shard-count %d is shard %j", (value, count, shard) => {
    expect(shardFromFlags({ shardIndexEnv: "JOB_COMPLETION_INDEX", shardCount: count }, { JOB_COMPLETION_INDEX: value })).toEqual(shard);
    expect(shardFromFlags({ shardIndexEnv: "AWS_BATCH_JOB_ARRAY_INDEX", shardCount: count }, { AWS_BATCH_JOB_ARRAY_INDEX: value })).toEqual(
      shard,
    );
  });

  it("reads process.env by default", () => {
    const name = "INTERLOPER_TEST_SHARD_INDEX";
    process.env[name] = "2";
    try {
      expect(shardFromFlags({ shardIndexEnv: name, shardCount: 3 })).toEqual({ index: 3, count: 3 });
    } finally {
      delete process.env[name];
    }
  });

  it("an index past the count is refused (VAR=4 of 4 is the fifth worker)", () => {
    configError(() => shardFromFlags({ shardIndexEnv: "JOB_COMPLETION_INDEX", shardCount: 4 }, { JOB_COMPLETION_INDEX: "4" }));
  });

  it("the variable unset: a ConfigError naming the variable and saying it is not set", () => {
    const error = configError(() => shardFromFlags({ shardIndexEnv: "JOB_COMPLETION_INDEX", shardCount: 4 }, {}));
    expect(error.message).toContain("JOB_COMPLETION_INDEX");
    expect(error.message).toMatch(/not set/);
  });

  it.each(["", "x", "-1", "1.5", "one", "0x1", "1/4"])("the variable holding %j: a ConfigError quoting the value", (value) => {
    const error = configError(() =>
      shardFromFlags({ shardIndexEnv: "JOB_COMPLETION_INDEX", shardCount: 4 }, { JOB_COMPLETION_INDEX: value }),
    );
    expect(error.message).toContain("JOB_COMPLETION_INDEX");
    expect(error.message).toContain(`"${value}"`);
  });

  it("--shard-index-env needs --shard-count, and --shard-count needs --shard-index-env", () => {
    expect(configError(() => shardFromFlags({ shardIndexEnv: "JOB_COMPLETION_INDEX" }, { JOB_COMPLETION_INDEX: "0" })).message).toContain(
      "--shard-count",
    );
    expect(configError(() => shardFromFlags({ shardCount: 4 }, {})).message).toContain("--shard-index-env");
  });
});

describe("--timeout durations", () => {
  it.each([
    ["2s", 2000],
    ["90s", 90_000],
    ["5m", 300_000],
    ["1h", 3_600_000],
    ["250ms", 250],
    ["30", 30_000],
    ["1.5s", 1500],
  ])("%j is %d ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["", "0", "0s", "-5s", "5 minutes", "s", "1d", "ten"])("%j is refused", (text) => {
    expect(configError(() => parseDuration(text)).message).toContain("--timeout");
  });
});
