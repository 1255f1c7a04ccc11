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

describe("Materialization.schema", () => {
  const fields = [
    { name: "amount", type: "integer" as const, nullable: true },
    { name: "at", type: "datetime" as const, nullable: false, asDate: true },
  ];

  it("keeps the schema a write inferred (an asset without one declared), as plain fields, and round-trips as JSON", () => {
    const record = newMaterialization({ ...draft(), inferredSchema: true }, run, "2026-01-05", 3, fields);
    expect(record.schema).toEqual(fields);
    expect(parseMaterialization(JSON.stringify(record))).toEqual(record);
    // A declared schema is the asset's to say: not kept.
    expect("schema" in newMaterialization(draft(), run, "2026-01-05", 3, fields)).toBe(false);
  });

  it("reads a record whose schema field is damaged as unknown", () => {
    const record = newMaterialization({ ...draft(), inferredSchema: true }, run, "2026-01-05", 3, fields);
    for (const schema of [{}, [{ name: "a", type: "text", nullable: true }], [{ name: "a", type: "string" }]]) {
      expect(parseMaterialization(JSON.stringify({ ...record, schema }))).toBeNull();
    }
  });
});
