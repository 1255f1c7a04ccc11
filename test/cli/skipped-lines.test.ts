// The command line's lines for skipped assets: the library's reason, and for a list asset a
// window of time skips, the command that runs it instead (the library names no command).
import { describe, expect, it } from "vitest";
import { skippedLines } from "../../src/cli/commands/skipped.js";

describe("skippedLines", () => {
  it("adds the command to run a list asset a window of time skips; other reasons stand as the library gives them", () => {
    expect(
      skippedLines([
        { asset: "shop.stock", reason: "partitioned by a list (eu, us), which a window of time does not name", listValues: ["eu", "us"] },
        { asset: "shop.monthly", reason: "no month of it lies wholly inside 2026-01-05..2026-01-20" },
      ]),
    ).toEqual([
      "Skipping shop.stock: partitioned by a list (eu, us), which a window of time does not name: run `interloper materialize shop.stock` for all its values, or add --partition VALUE",
      "Skipping shop.monthly: no month of it lies wholly inside 2026-01-05..2026-01-20",
    ]);
  });
});
