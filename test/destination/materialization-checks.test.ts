// Materialization.checks (issue 35): a record keeps the verdicts of the asset's checks; records
// written before checks existed, without the field, still read; a damaged field reads as unknown.
import { describe, expect, it } from "vitest";
import { newMaterialization, parseMaterialization, type ProvenanceDraft } from "../../src/destination/provenance/materialization.js";

const draft = (checks?: ProvenanceDraft["checks"]): ProvenanceDraft => ({
  startedAt: "2026-01-05T00:00:00.000Z",
  codeVersion: null,
  interloperVersion: "0.1.0",
  upstream: () => [],
  ...(checks ? { checks } : {}),
});
const run = { asset: "shop.orders", runId: "r1", backfillId: null };

describe("Materialization.checks", () => {
  it("holds the verdicts of the partition's checks, without their examples, and round-trips as JSON", () => {
    const verdict = {
      name: "unique(id)",
      severity: "warn" as const,
      passed: false,
      failures: 2,
      message: "2 rows repeat",
      examples: ["1"],
    };
    const record = newMaterialization(
      draft((partition) => (partition === "2026-01-05" ? [verdict] : undefined)),
      run,
      "2026-01-05",
      3,
    );
    expect(record.checks).toEqual([{ name: "unique(id)", severity: "warn", passed: false, failures: 2, message: "2 rows repeat" }]);
    expect(parseMaterialization(JSON.stringify(record))).toEqual(record);
    // Another partition (no verdicts) and an asset without checks: no field at all.
    expect(
      "checks" in
        newMaterialization(
          draft((p) => (p === "x" ? [verdict] : undefined)),
          run,
          "2026-01-06",
          3,
        ),
    ).toBe(false);
    expect("checks" in newMaterialization(draft(), run, "2026-01-06", 3)).toBe(false);
  });

  it("reads a record written before checks, and refuses a damaged checks field", () => {
    const old = newMaterialization(draft(), run, "2026-01-05", 3);
    expect(parseMaterialization(JSON.stringify(old))).toEqual(old);
    expect(parseMaterialization(JSON.stringify({ ...old, checks: "passed" }))).toBeNull();
    expect(
      parseMaterialization(JSON.stringify({ ...old, checks: [{ name: "x", severity: "fatal", passed: true, failures: 0, message: "" }] })),
    ).toBeNull();
  });
});
