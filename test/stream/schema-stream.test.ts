// Schemas of streams: inferred from a bounded prefix under auto (widening integer to number,
// refusing contradictions), or declared and enforced batch by batch under strict/reconcile.
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import * as il from "../../src/index.js";
import { INFERENCE_PREFIX_ROWS } from "../../src/asset/conform-stream.js";
import { listFiles } from "../contract/temp-dir.js";
import { caught, tempDir } from "../engine/helpers.js";

type Item = { date: string; id: number; qty: number; amount: number; label: string; [extra: string]: unknown };

/** The i-th deterministic row: qty an integer, amount a float. */
const item = (date: string, i: number): Item => ({ date, id: i, qty: (i % 9) + 1, amount: i / 4 + 0.3, label: `item ${i}` });

/** Every file below a folder with its bytes and modification time, to prove nothing changed. */
async function snapshot(root: string): Promise<Record<string, { text: string; mtimeMs: number }>> {
  const out: Record<string, { text: string; mtimeMs: number }> = {};
  for (const file of await listFiles(root)) {
    const path = join(root, file);
    out[file] = { text: await readFile(path, "utf8"), mtimeMs: (await stat(path)).mtimeMs };
  }
  return out;
}

/** The error and every cause below it. */
function chain(error: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = error; e !== undefined && e !== null && out.length < 10; e = (e as { cause?: unknown }).cause) out.push(e);
  return out;
}
const hasInChain = (error: unknown, type: new (...args: never[]) => Error) => chain(error).some((e) => e instanceof type);

type Produce = (date: string) => unknown;

let dir: { path: string; remove: () => Promise<void> };
beforeEach(async () => {
  il.MemoryDestination.clear();
  dir = await tempDir();
});
afterEach(async () => {
  await dir.remove();
});

const daily = () => new il.TimePartitionConfig({ column: "date", start: "2025-01-01" });
const day = (key: string) => new il.TimePartition(key);
const D = "2025-05-10";

/** A source with one CSV-backed asset whose run is swapped per materialization. */
function setup(options: { schema?: z.ZodObject; strategy?: il.ConformStrategy } = {}) {
  let produce: Produce = (date) => [item(date, 0)];
  const def = il.asset({
    key: "items",
    partitioning: daily(),
    ...(options.schema ? { schema: options.schema } : {}),
    ...(options.strategy ? { strategy: options.strategy } : {}),
    run: (ctx) => produce(ctx.partition!.key) as never,
  });
  const csv = new il.CSVDestination({ basePath: dir.path });
  const shop = il.source({ key: "shop", assets: [def] })({ destinations: csv });
  return {
    asset: shop.assets.items,
    csv,
    shop,
    set(next: Produce) {
      produce = next;
    },
    fileOf: (key: string) => csv.pathOf(shop.assets.items.ioContext(day(key)), day(key)),
  };
}

/** Batches of `size` rows, `total` in all, with `patch` applied to the row at each given stream index. */
function batched(total: number, size: number, patch: Record<number, (row: Item) => Item> = {}): Produce {
  return async function* (date: string) {
    for (let start = 0; start < total; start += size) {
      const batch: Item[] = [];
      for (let i = start; i < Math.min(total, start + size); i++) batch.push(patch[i] ? patch[i]!(item(date, i)) : item(date, i));
      yield batch;
    }
  };
}

/** Single rows, `total` in all, with `patch` applied to the row at each given stream index. */
function singles(total: number, patch: Record<number, (row: Item) => Item> = {}): Produce {
  return function* (date: string) {
    for (let i = 0; i < total; i++) yield patch[i] ? patch[i]!(item(date, i)) : item(date, i);
  };
}

describe("schema inference on a stream (auto, no declared schema)", () => {
  it("looks at a bounded prefix of rows", () => {
    expect(INFERENCE_PREFIX_ROWS).toBeGreaterThan(0);
    expect(INFERENCE_PREFIX_ROWS).toBeLessThanOrEqual(100_000);
  });

  it("widens an integer field to number when a later row holds 1.5, keeping every value", async () => {
    const t = setup();
    const at = INFERENCE_PREFIX_ROWS + 500;
    t.set(batched(INFERENCE_PREFIX_ROWS * 2, 100, { [at]: (r) => ({ ...r, qty: 1.5 }) }));
    await t.asset.materialize(day(D));

    expect(await t.asset.partitionRowCounts()).toEqual({ [D]: INFERENCE_PREFIX_ROWS * 2 });
    const number: il.FieldSpec[] = [
      { name: "date", type: "date", nullable: true },
      { name: "id", type: "integer", nullable: true },
      { name: "qty", type: "number", nullable: true },
      { name: "amount", type: "number", nullable: true },
      { name: "label", type: "string", nullable: true },
    ];
    const back = (await t.asset.read(day(D), number)) as Item[];
    expect(back).toHaveLength(INFERENCE_PREFIX_ROWS * 2);
    expect(back[at]!.qty).toBe(1.5);
    expect(back[at - 1]!.qty).toBe(item(D, at - 1).qty);
    expect(back[0]).toEqual(item(D, 0));
    expect(back.filter((_row, i) => i !== at).every((r) => Number.isInteger(r.qty))).toBe(true);
  });

  it("widens after the prefix when single rows are streamed too, and run() returns the values intact", async () => {
    const t = setup();
    const at = 12_345;
    t.set(singles(15_000, { [at]: (r) => ({ ...r, qty: 2.25 }) }));
    const rows = (await t.asset.run(day(D))) as Item[];
    expect(rows).toHaveLength(15_000);
    expect(rows[at]!.qty).toBe(2.25);
    expect(rows[at + 1]).toEqual(item(D, at + 1));
    await t.asset.materialize(day(D));
    expect(await t.asset.partitionRowCounts()).toEqual({ [D]: 15_000 });
  });

  it("gives a downstream asset the widened type: 1.5 reads back as a number", async () => {
    const at = INFERENCE_PREFIX_ROWS + 10;
    const items = il.asset({
      key: "items",
      partitioning: daily(),
      run: (ctx) => batched(INFERENCE_PREFIX_ROWS + 100, 50, { [at]: (r) => ({ ...r, qty: 1.5 }) })(ctx.partition!.key),
    });
    let qtys: unknown[] = [];
    const totals = il.asset({
      key: "totals",
      partitioning: daily(),
      requires: { items: "items" },
      run(ctx, deps) {
        qtys = (deps.items as Item[]).map((r) => r.qty);
        return [{ date: ctx.partition!.key, n: qtys.length }];
      },
    });
    const shop = il.source({ key: "shop", assets: [items, totals] })({ destinations: new il.CSVDestination({ basePath: dir.path }) });
    const result = await new il.DAG(shop).materialize(day(D));
    expect(result.error ?? null).toBeNull();
    expect(qtys).toHaveLength(INFERENCE_PREFIX_ROWS + 100);
    expect(qtys[at]).toBe(1.5);
    expect(qtys[0]).toBe(1);
    expect(qtys.every((q) => typeof q === "number")).toBe(true);
  });

  it("accepts nulls in later rows (inferred fields are nullable)", async () => {
    const t = setup();
    const at = INFERENCE_PREFIX_ROWS + 7;
    t.set(
      batched(INFERENCE_PREFIX_ROWS + 20, 100, {
        [at]: (r) => ({ ...r, amount: null as unknown as number, label: null as unknown as string }),
      }),
    );
    await t.asset.materialize(day(D));
    const back = (await t.asset.run(day(D))) as Item[];
    expect(back[at]!.amount).toBeNull();
    expect(await t.asset.partitionRowCounts()).toEqual({ [D]: INFERENCE_PREFIX_ROWS + 20 });
  });

  it("refuses a later row with a string in a number field: SchemaError naming the row and field; the previous file stays", async () => {
    const t = setup();
    t.set(batched(300, 100));
    await t.asset.materialize(day(D));
    const before = await snapshot(dir.path);
    expect(Object.keys(before).some((f) => f.endsWith(`date=${D}/data.csv`))).toBe(true);

    const at = INFERENCE_PREFIX_ROWS + 1_234;
    t.set(batched(INFERENCE_PREFIX_ROWS * 4, 100, { [at]: (r) => ({ ...r, amount: "twelve" as unknown as number }) }));
    const error = await caught(() => t.asset.materialize(day(D)));
    expect(hasInChain(error, il.SchemaError)).toBe(true);
    expect(error.message).toContain(`row ${at}`);
    expect(error.message).toContain('"amount"');
    expect(error.message).toContain("twelve");

    // Atomic: the old partition is exactly as it was, and no temporary file is left.
    expect(await snapshot(dir.path)).toEqual(before);
    expect(await t.asset.partitionRowCounts()).toEqual({ [D]: 300 });
  });

  it("refuses a string in an integer field in a later single row, naming the stream's row index", async () => {
    const t = setup();
    const at = 9_000;
    t.set(singles(10_000, { [at]: (r) => ({ ...r, id: "9000" as unknown as number }) }));
    const error = await caught(() => t.asset.materialize(day(D)));
    expect(hasInChain(error, il.SchemaError)).toBe(true);
    expect(error.message).toContain(`row ${at}`);
    expect(error.message).toContain('"id"');
    expect(await listFiles(dir.path)).toEqual([]);
  });

  it("refuses a later row with a field the prefix did not have: SchemaError naming it; nothing written", async () => {
    const t = setup();
    t.set(batched(300, 100));
    await t.asset.materialize(day(D));
    const before = await snapshot(dir.path);

    const at = INFERENCE_PREFIX_ROWS + 3;
    t.set(batched(INFERENCE_PREFIX_ROWS + 100, 100, { [at]: (r) => ({ ...r, coupon: "SPRING" }) }));
    const error = await caught(() => t.asset.materialize(day(D)));
    expect(hasInChain(error, il.SchemaError)).toBe(true);
    expect(error.message).toContain('"coupon"');
    expect(error.message).toContain(`row ${at}`);
    expect(await snapshot(dir.path)).toEqual(before);
  });

  it("rejects the schema contradiction with a SchemaError, as a conform failure of an array does", async () => {
    // The array path raises the SchemaError itself; a stream failing the same way should too,
    // so that callers can tell bad data from a destination failure.
    const t = setup();
    const at = INFERENCE_PREFIX_ROWS + 1;
    t.set(batched(INFERENCE_PREFIX_ROWS + 10, 100, { [at]: (r) => ({ ...r, amount: "x" as unknown as number }) }));
    const streamed = await caught(() => t.asset.materialize(day(D)));
    const t2 = setup({ schema: z.object({ date: z.iso.date(), amount: z.number() }) });
    t2.set((date) => [{ date, amount: "x" }]);
    const array = await caught(() => t2.asset.materialize(day(D)));
    expect(array).toBeInstanceOf(il.SchemaError);
    expect(streamed).toBeInstanceOf(il.SchemaError);
  });

  it("a stream that fails in the asset's own code leaves the previous partition as it was", async () => {
    const t = setup();
    t.set(batched(300, 100));
    await t.asset.materialize(day(D));
    const before = await snapshot(dir.path);
    t.set(async function* (date) {
      for (let i = 0; i < 5; i++) yield [item(date, i)];
      for (let i = 5; i < INFERENCE_PREFIX_ROWS * 3; i += 100) yield Array.from({ length: 100 }, (_, k) => item(date, i + k));
      throw new Error("upstream API went away");
    });
    const error = await caught(() => t.asset.materialize(day(D)));
    expect(chain(error).some((e) => (e as Error).message?.includes("upstream API went away"))).toBe(true);
    expect(await snapshot(dir.path)).toEqual(before);
  });

  it("strict and reconcile need a declared schema for a stream too", async () => {
    for (const strategy of ["strict", "reconcile"] as const) {
      const t = setup({ strategy });
      t.set(singles(3));
      expect(await caught(() => t.asset.materialize(day(D)))).toBeInstanceOf(il.SchemaError);
    }
    expect(await listFiles(dir.path)).toEqual([]);
  });
});

describe("a declared schema on a stream", () => {
  const Declared = z.object({
    date: z.iso.date(),
    id: z.number().int(),
    qty: z.number().int(),
    amount: z.number(),
    label: z.string().nullable(),
  });

  it("strict: a later row with an extra field fails with a SchemaError naming the field; the previous file stays", async () => {
    const t = setup({ schema: Declared, strategy: "strict" });
    t.set(batched(250, 100));
    await t.asset.materialize(day(D));
    const before = await snapshot(dir.path);

    t.set(batched(2_000, 100, { [1_503]: (r) => ({ ...r, junk: true }) }));
    const error = await caught(() => t.asset.materialize(day(D)));
    expect(hasInChain(error, il.SchemaError)).toBe(true);
    expect(error.message).toContain('"junk"');
    expect(await snapshot(dir.path)).toEqual(before);
    expect(await t.asset.partitionRowCounts()).toEqual({ [D]: 250 });
  });

  it("strict: a later row with a wrong type fails, naming the field and the row's index in the stream", async () => {
    const t = setup({ schema: Declared, strategy: "strict" });
    const at = 1_503;
    t.set(batched(2_000, 100, { [at]: (r) => ({ ...r, qty: "3" as unknown as number }) }));
    const error = await caught(() => t.asset.materialize(day(D)));
    expect(hasInChain(error, il.SchemaError)).toBe(true);
    expect(error.message).toContain('"qty"');
    expect(error.message).toContain(`row ${at}`);
    expect(await listFiles(dir.path)).toEqual([]);
  });

  it("strict: a later row missing a required field fails", async () => {
    const t = setup({ schema: Declared, strategy: "strict" });
    t.set(
      singles(6_000, {
        5_500: (r) => {
          const { amount: _drop, ...rest } = r;
          return rest as Item;
        },
      }),
    );
    const error = await caught(() => t.asset.materialize(day(D)));
    expect(hasInChain(error, il.SchemaError)).toBe(true);
    expect(error.message).toContain('"amount"');
    expect(error.message).toContain("missing");
  });

  it("strict: a stream that matches is written as it is", async () => {
    const t = setup({ schema: Declared, strategy: "strict" });
    t.set(batched(1_234, 100));
    await t.asset.materialize(day(D));
    expect(await t.asset.read(day(D))).toEqual(Array.from({ length: 1_234 }, (_, i) => item(D, i)));
  });

  it("auto: a null in a required field of a later row fails with a SchemaError", async () => {
    const t = setup({ schema: Declared });
    t.set(batched(3_000, 500, { [2_600]: (r) => ({ ...r, id: null as unknown as number }) }));
    const error = await caught(() => t.asset.materialize(day(D)));
    expect(hasInChain(error, il.SchemaError)).toBe(true);
    expect(error.message).toContain('"id"');
    expect(await listFiles(dir.path)).toEqual([]);
  });

  it('auto: coerces stored forms in later rows ("7" to 7)', async () => {
    const t = setup({ schema: Declared });
    t.set(batched(1_500, 100, { [1_450]: (r) => ({ ...r, qty: "7" as unknown as number }) }));
    await t.asset.materialize(day(D));
    const back = (await t.asset.read(day(D))) as Item[];
    expect(back[1_450]!.qty).toBe(7);
  });

  it("reconcile: drops extra fields in any batch with one log warn event per field, and adds missing nullable fields as null", async () => {
    const t = setup({ schema: Declared, strategy: "reconcile" });
    t.set(
      batched(1_000, 100, {
        3: (r) => ({ ...r, junk: 1 }),
        150: (r) => ({ ...r, junk: 2 }),
        777: (r) => ({ ...r, extra_note: "x" }),
        778: (r) => {
          const { label: _drop, ...rest } = r;
          return rest as Item;
        },
      }),
    );
    const events: il.InterloperEvent[] = [];
    await t.asset.materialize(day(D), { emit: (e) => events.push(e as il.InterloperEvent) });

    const back = (await t.asset.read(day(D))) as Item[];
    expect(back).toHaveLength(1_000);
    expect(back.every((r) => !("junk" in r) && !("extra_note" in r))).toBe(true);
    expect(back[778]!.label).toBeNull();
    expect(back[3]).toEqual(item(D, 3));
    const text = await readFile(t.fileOf(D), "utf8");
    expect(text.split("\n")[0]).toBe("date,id,qty,amount,label");

    const warns = events.filter((e): e is Extract<il.InterloperEvent, { type: "log" }> => e.type === "log" && e.level === "warn");
    expect(warns.filter((e) => e.message.includes('"junk"'))).toHaveLength(1);
    expect(warns.filter((e) => e.message.includes('"extra_note"'))).toHaveLength(1);
    expect(warns).toHaveLength(2);
  });

  it("reconcile: a warning names the first row holding the extra field, counted over the whole stream", async () => {
    const t = setup({ schema: Declared, strategy: "reconcile" });
    t.set(batched(1_000, 100, { 642: (r) => ({ ...r, junk: 1 }) }));
    const events: il.InterloperEvent[] = [];
    await t.asset.materialize(day(D), { emit: (e) => events.push(e as il.InterloperEvent) });
    const warn = events.find((e): e is Extract<il.InterloperEvent, { type: "log" }> => e.type === "log" && e.level === "warn");
    expect(warn?.message).toContain('"junk"');
    expect(warn?.message).toContain("row 642");
  });

  it("reconcile: a later value that cannot be coerced fails with a SchemaError", async () => {
    const t = setup({ schema: Declared, strategy: "reconcile" });
    t.set(batched(1_000, 100, { 901: (r) => ({ ...r, amount: "lots" as unknown as number }) }));
    const error = await caught(() => t.asset.materialize(day(D)));
    expect(hasInChain(error, il.SchemaError)).toBe(true);
    expect(error.message).toContain('"amount"');
    expect(await listFiles(dir.path)).toEqual([]);
  });
});
