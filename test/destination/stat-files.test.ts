// fileIdentities: the identity of each of many files, called directly where stats are fast and
// through the thread pool where they are slow; both ways give what a stat of each path gives.
import { mkdir, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileIdentity } from "../../src/destination/store/local/file-identity.js";
import { fileIdentities } from "../../src/destination/store/local/stat-files.js";
import { makeTempDir } from "../contract/temp-dir.js";

let base: { path: string; remove(): Promise<void> };
beforeEach(async () => {
  base = await makeTempDir("interloper-stat-files-");
});
afterEach(async () => {
  await base.remove();
});

/** 1,000 paths (several slices): most files exist, every seventh is missing, one is a folder's child of a file. */
async function paths(): Promise<string[]> {
  const list: string[] = [];
  for (let i = 0; i < 1_000; i++) {
    const folder = join(base.path, `p=${i}`);
    list.push(join(folder, "data.csv"));
    if (i % 7 === 3) continue;
    await mkdir(folder);
    await writeFile(join(folder, "data.csv"), "x".repeat(i % 13));
  }
  list.push(join(base.path, "p=0", "data.csv", "below-a-file"));
  return list;
}

async function expected(list: readonly string[]): Promise<Array<string | null>> {
  return Promise.all(list.map((path) => stat(path, { bigint: true }).then(fileIdentity, () => null)));
}

describe("fileIdentities", () => {
  it("called directly: each path's identity in order, null where there is no file", async () => {
    const list = await paths();
    const identities = await fileIdentities(list);
    expect(identities).toEqual(await expected(list));
    expect(identities.filter((identity) => identity === null)).toHaveLength(143 + 1);
  });

  it("where stats are slow, the rest through the thread pool: the same answer", async () => {
    const list = await paths();
    // Every slice counts as slow: after three, the rest go through the pool.
    expect(await fileIdentities(list, -1)).toEqual(await expected(list));
  });

  it("a file replaced meanwhile has another identity; none for an empty list", async () => {
    const list = await paths();
    const before = await fileIdentities(list);
    await rm(list[0]!);
    await writeFile(list[0]!, "replaced");
    const after = await fileIdentities(list);
    expect(after[0]).not.toBe(before[0]);
    expect(after.slice(1)).toEqual(before.slice(1));
    expect(await fileIdentities([])).toEqual([]);
  });
});
