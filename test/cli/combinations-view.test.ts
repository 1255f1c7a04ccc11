// The picture of a multi asset's combinations (issue 36): one heatmap row per combination of
// list values, what each lacks, the asset's totals and how to see one combination; a multi
// asset of lists alone drawn as labelled bars of its combinations.
import { afterEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { combinationsText, isCombinations } from "../../src/cli/views/coverage-combinations.js";
import { coverageText } from "../../src/cli/views/coverage-text.js";
import { summaryLines } from "../../src/cli/views/coverage-summary.js";

afterEach(() => il.MemoryDestination.clear());

const stock = il.asset({
  key: "stock",
  partitioning: new il.MultiPartitionConfig({
    date: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
    region: new il.ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"] }),
  }),
  run: (ctx) => [{ ...(ctx.partition as il.MultiPartition).keys }],
});

const lists = il.asset({
  key: "lists",
  partitioning: new il.MultiPartitionConfig({
    region: new il.ListPartitionConfig({ column: "region", values: ["eu", "us"] }),
    channel: new il.ListPartitionConfig({ column: "channel", values: ["web", "shop"] }),
  }),
  run: (ctx) => [{ ...(ctx.partition as il.MultiPartition).keys }],
});

async function coverages(select: string, window: string, values?: il.MultiValues) {
  const session = await il.openProject(
    il.defineConfig({ sources: [il.source({ key: "shop", assets: [stock, lists] })({ destinations: new il.MemoryDestination() })] }),
  );
  await session.materialize({ selection: "stock", window: "2026-01-01..2026-01-03|eu,apac" });
  await session.materialize({ selection: "stock", partition: "2026-01-04|apac" });
  await session.materialize({ selection: "lists", partition: "eu|web" });
  const results = await session.coverage(select, { window, byCombination: true, ...(values ? { values } : {}) });
  await session.close();
  return results;
}

describe("the picture of a multi asset's combinations", () => {
  it("draws one row per combination, each cell a period, with what it lacks, the totals and how to see one", async () => {
    const slices = await coverages("stock", "2026-01-01..2026-01-04");
    expect(isCombinations(slices)).toBe(true);
    expect(combinationsText(slices, 100)).toEqual([
      "shop.stock  date (day) x region (eu, us, apac): 3 combinations, 2026-01-01..2026-01-04",
      "[eu]    ███·  3/4  3 rows  missing 2026-01-04",
      "[us]    ····  0/4  0 rows  missing 2026-01-01..2026-01-04",
      "[apac]  ████  4/4  4 rows",
      "",
      "legend: █ stored  ○ empty  ▒ partly missing  · missing",
      "",
      "expected 12  materialized 7  empty 0  missing 5  unexpected 0",
      "rows 7",
      "one combination's calendar: --values region=eu; step through them: -i",
    ]);
  });

  it("counts a list's values in the head line when naming them would crowd it", async () => {
    const slices = await coverages("stock", "2026-01-01..2026-01-04");
    const many = slices.map((c) => ({
      ...c,
      dimensions: c.dimensions!.map((d) => (d.kind === "list" ? { ...d, values: ["a", "b", "c", "d", "e", "f", "g"] } : d)),
    }));
    expect(combinationsText(many, 100)[0]).toBe("shop.stock  date (day) x region (7 values): 3 combinations, 2026-01-01..2026-01-04");
  });

  it("lists each combination as an asset of its own among the others", async () => {
    const lines = summaryLines(await coverages("stock", "2026-01-01..2026-01-04"), 100);
    expect(lines.map((line) => line.split("  ")[0])).toEqual(["shop.stock[eu]", "shop.stock[us]", "shop.stock[apac]"]);
  });

  it("narrowed to one value, is one combination: drawn as a time asset's calendar", async () => {
    const slices = await coverages("stock", "2026-01-01..2026-01-04", { region: ["us"] });
    expect(isCombinations(slices)).toBe(false);
    const text = coverageText(slices[0]!, 100);
    expect(text).toContain('shop.stock[us]  day partitions on "date", 2026-01-01..2026-01-04');
    expect(text.some((line) => line.startsWith("Mon") || line.startsWith("Thu"))).toBe(true);
  });

  it("draws a multi asset of lists alone as labelled bars of its combinations", async () => {
    const [whole] = await coverages("lists", "eu|web,shop");
    expect(whole!.asset).toBe("shop.lists");
    const text = coverageText(whole!, 80);
    expect(text.slice(0, 2)).toEqual([`eu|web   ${"█".repeat(50)} 1`, "eu|shop  · missing"]);
    expect(text).toContain('shop.lists  multi partitions on "region|channel", eu|web..eu|shop');
  });

  it("the whole asset's summary row names a combination written empty, which its bar and counts hide (issue 41.12)", async () => {
    // The us feed returns nothing: its days are stored, with 0 rows.
    const sparse = il.asset({
      key: "sparse",
      partitioning: stock.partitioning!,
      run: (ctx) => {
        const keys = (ctx.partition as il.MultiPartition).keys;
        return keys["region"] === "us" ? [] : [{ ...keys }];
      },
    });
    // Of lists alone, as the whole-project summary draws it: a bar of its combinations.
    const listed = il.asset({ key: "listed", partitioning: lists.partitioning!, run: sparse.run });
    const session = await il.openProject(
      il.defineConfig({ sources: [il.source({ key: "shop", assets: [sparse, listed] })({ destinations: new il.MemoryDestination() })] }),
    );
    await session.materialize({ selection: "sparse", window: "2026-01-01..2026-01-04" });
    await session.materialize({ selection: "listed" });
    const [whole] = await session.coverage("sparse", { window: "2026-01-01..2026-01-04" });
    const [byList] = await session.coverage("listed");
    await session.close();
    expect(summaryLines([whole!], 200)).toEqual([
      expect.stringMatching(/^shop\.sparse +\S+ +12\/12 +8 rows +empty 2026-01-01\|us\.\.2026-01-04\|us$/),
    ]);
    expect(summaryLines([byList!], 200)).toEqual([expect.stringMatching(/^shop\.listed +\S+ +4\/4 +2 rows +empty us\|web, us\|shop$/)]);
  });
});
