import { describe, expect, it } from "vitest";
import { count, formatCount, nounFor, subject } from "../../src/text/english.js";

describe("english", () => {
  it("counts agree with their number", () => {
    expect(count(1, "row")).toBe("1 row");
    expect(count(0, "row")).toBe("0 rows");
    expect(count(1234, "partition")).toBe("1,234 partitions");
    expect(count(2, "was", "were")).toBe("2 were");
    expect(nounFor(1, "run")).toBe("run");
    expect(formatCount(1_234_567)).toBe("1,234,567");
  });

  it("a list of names agrees with its verb", () => {
    expect(subject(["db"], "holds", "hold")).toBe("db holds");
    expect(subject(["db", "files"], "holds", "hold")).toBe("db, files hold");
  });
});
