// The unit files vitest.config.ts runs once instead of once per time zone: each must exist (a
// renamed file would otherwise drop out of the list and run three times again, or a typo run
// nothing), and those listed as having no dates must still have none, or they belong back in
// the zoned projects.
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { bucketClients, longOnly, serverBacked, zoneFree } from "../../vitest.config.js";

const ROOT = resolve(import.meta.dirname, "../..");

/** What makes a file's outcome depend on the process time zone: dates, partitions, zone names. */
const DATED = /\bDate\b|Partition|Granularity|toISOString|datetime|\bTZ\b|timeZone/;

describe("the files run once, in one zone", () => {
  it("every one exists, and is listed once", () => {
    const listed = [...zoneFree, ...bucketClients];
    expect(listed.filter((file) => !existsSync(resolve(ROOT, file)))).toEqual([]);
    expect(new Set(listed).size).toBe(listed.length);
  });

  it("those listed as zone-free use no dates, partitions or zones", () => {
    const dated = zoneFree.filter((file) => DATED.test(readFileSync(resolve(ROOT, file), "utf8")));
    expect(dated, "files that now use dates: move them back to the zoned projects").toEqual([]);
  });
});

describe("the files only a run of every file has", () => {
  it("every one listed exists (a renamed one would otherwise run in every npm test again), once", () => {
    const folders = serverBacked.map((pattern) => pattern.replace("/**", ""));
    expect([...longOnly, ...folders].filter((file) => !existsSync(resolve(ROOT, file)))).toEqual([]);
    expect(new Set(longOnly).size).toBe(longOnly.length);
  });
});
