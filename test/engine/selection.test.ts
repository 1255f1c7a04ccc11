// The selection shared by materialize, plan, coverage and list (src/api/select.ts): the
// selector syntax, how each form resolves over a DAG, the precedence of a bare word, --exclude,
// and the one-line errors that name the selector and the nearest known key, source or tag.
import { describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { both, MATERIALIZABLE, parseSelector, partitioned, selectAssets, singleAsset, type AssetFilter } from "../../src/api/select.js";
import { flagOf } from "../../src/cli/flags.js";

const rows = () => [{ n: 1 }];
const daily = () => new il.TimePartitionConfig({ column: "date", start: "2026-01-01" });
const mem = new il.MemoryDestination();

// shop: raw -> orders -> revenue -> report; customers; ledger (an asset named like the ledger source)
// crm: customers -> contacts (a second "customers": a bare "customers" is ambiguous)
// ledger: entries, which reads shop.revenue
// audit (source): trail; audit (an asset outside any source, named like the audit source)
const raw = il.asset({ key: "raw", partitioning: daily(), tags: ["ingest"], run: rows });
const orders = il.asset({ key: "orders", partitioning: daily(), tags: ["sales"], requires: { raw }, run: rows });
const revenue = il.asset({ key: "revenue", partitioning: daily(), tags: ["finance", "daily-report"], requires: { orders }, run: rows });
const report = il.asset({ key: "report", partitioning: daily(), tags: ["finance"], requires: { revenue }, run: rows });
const shopCustomers = il.asset({ key: "customers", run: rows });
const ledgerAsset = il.asset({ key: "ledger", run: rows, materializable: false });
const crmCustomers = il.asset({ key: "customers", run: rows });
const contacts = il.asset({ key: "contacts", requires: { customers: "customers" }, run: rows });
const entries = il.asset({ key: "entries", partitioning: daily(), requires: { revenue: "shop.revenue" }, run: rows });
const trail = il.asset({ key: "trail", run: rows });
const auditAsset = il.asset({ key: "audit", run: rows });

const dag = new il.DAG(
  il.source({ key: "shop", assets: [raw, orders, revenue, report, shopCustomers, ledgerAsset] })({ destinations: mem }),
  il.source({ key: "crm", assets: [crmCustomers, contacts] })({ destinations: mem }),
  il.source({ key: "ledger", assets: [entries] })({ destinations: mem }),
  il.source({ key: "audit", assets: [trail] })({ destinations: mem }),
  auditAsset,
);

const keys = (select: string[], exclude: string[] = [], keep?: AssetFilter) =>
  selectAssets(dag, { select, exclude, ...(keep ? { keep } : {}) })
    .map((a) => a.qualifiedKey)
    .sort();
const configError = (select: string[], exclude: string[] = [], keep?: AssetFilter): il.ConfigError => {
  try {
    selectAssets(dag, { select, exclude, ...(keep ? { keep } : {}) });
  } catch (e) {
    expect(e).toBeInstanceOf(il.ConfigError);
    expect((e as Error).message).not.toContain("\n");
    return e as il.ConfigError;
  }
  throw new Error(`selecting ${select.join(" ")} --exclude ${exclude.join(" ")} did not fail`);
};
/** The message as the API says it, naming its options. */
const error = (select: string[], exclude: string[] = []) => configError(select, exclude).message;
/** The message as the command line says it, naming its flags. */
const flagError = (select: string[], exclude: string[] = [], keep?: AssetFilter) =>
  configError(select, exclude, keep).messageNaming(flagOf);

describe("parseSelector", () => {
  it("reads every form: key, qualified key, source:, tag:, and + before, after or both", () => {
    expect(parseSelector("orders")).toEqual({
      text: "orders",
      target: { kind: "word", word: "orders" },
      upstream: false,
      downstream: false,
    });
    expect(parseSelector("shop.orders").target).toEqual({ kind: "asset", key: "shop.orders" });
    expect(parseSelector("source:shop").target).toEqual({ kind: "source", key: "shop" });
    expect(parseSelector("tag:daily-report_2").target).toEqual({ kind: "tag", tag: "daily-report_2" });
    expect(parseSelector("+orders")).toMatchObject({ upstream: true, downstream: false });
    expect(parseSelector("orders+")).toMatchObject({ upstream: false, downstream: true });
    expect(parseSelector("+shop.orders+")).toMatchObject({
      target: { kind: "asset", key: "shop.orders" },
      upstream: true,
      downstream: true,
    });
    expect(parseSelector("+tag:finance")).toMatchObject({ target: { kind: "tag", tag: "finance" }, upstream: true });
    expect(parseSelector("source:shop+")).toMatchObject({ target: { kind: "source", key: "shop" }, downstream: true });
  });

  it.each([
    "",
    "+",
    "++",
    "++orders",
    "orders++",
    "a b",
    " orders",
    "shop..orders",
    ".orders",
    "orders.",
    "a.b.c",
    "tag:",
    "tag:a b",
    "tag:a.b",
    "source:",
    "source:a.b",
    "-x",
    "1orders",
    "shop/orders",
    "é",
    "orders,revenue",
  ])("refuses %j with one line saying what a selector looks like", (text) => {
    expect(() => parseSelector(text)).toThrow(il.ConfigError);
    expect(() => parseSelector(text)).toThrow(
      /is not a selector: expected an asset key \(orders, shop\.orders\), a source key \(shop or source:shop\) or tag:NAME/,
    );
  });
});

describe("selectAssets", () => {
  it("no selector: every asset, in the DAG's order (upstream first)", () => {
    const all = selectAssets(dag, {});
    expect(all).toEqual([...dag.assets]);
    expect(all.indexOf(dag.find("shop.raw")!)).toBeLessThan(all.indexOf(dag.find("shop.report")!));
  });

  it("a bare key, a qualified key, a source, a tag", () => {
    expect(keys(["orders"])).toEqual(["shop.orders"]);
    expect(keys(["shop.customers"])).toEqual(["shop.customers"]);
    expect(keys(["crm"])).toEqual(["crm.contacts", "crm.customers"]);
    expect(keys(["source:crm"])).toEqual(["crm.contacts", "crm.customers"]);
    expect(keys(["tag:finance"])).toEqual(["shop.report", "shop.revenue"]);
  });

  it("+ before adds everything upstream, + after everything downstream, transitively, across sources", () => {
    expect(keys(["+revenue"])).toEqual(["shop.orders", "shop.raw", "shop.revenue"]);
    expect(keys(["orders+"])).toEqual(["ledger.entries", "shop.orders", "shop.report", "shop.revenue"]);
    expect(keys(["+orders+"])).toEqual(["ledger.entries", "shop.orders", "shop.raw", "shop.report", "shop.revenue"]);
    expect(keys(["+tag:sales"])).toEqual(["shop.orders", "shop.raw"]);
    expect(keys(["+source:ledger"])).toEqual(["ledger.entries", "shop.orders", "shop.raw", "shop.revenue"]);
    expect(keys(["+crm.contacts"])).toEqual(["crm.contacts", "crm.customers"]);
  });

  it("several selectors are a union, returned once each in the DAG's order", () => {
    const selected = selectAssets(dag, { select: ["report", "+revenue", "tag:finance", "crm.customers"] });
    expect(selected.map((a) => a.qualifiedKey).sort()).toEqual(["crm.customers", "shop.orders", "shop.raw", "shop.report", "shop.revenue"]);
    expect(selected).toEqual(dag.assets.filter((a) => selected.includes(a)));
  });

  it("--exclude removes what its selectors match, in the same syntax; alone, from every asset", () => {
    expect(keys(["shop"], ["tag:finance"])).toEqual(["shop.customers", "shop.ledger", "shop.orders", "shop.raw"]);
    expect(keys(["+report"], ["+orders"])).toEqual(["shop.report", "shop.revenue"]);
    expect(keys(["orders+"], ["ledger"])).toEqual(["ledger.entries", "shop.orders", "shop.report", "shop.revenue"]);
    expect(keys([], ["shop", "crm", "audit"])).toEqual(["audit.trail", "ledger.entries"]);
  });

  describe("a bare word: an asset before a source", () => {
    it("the asset outside any source with that key wins over the source with that key", () => {
      expect(keys(["audit"])).toEqual(["audit"]);
      expect(keys(["source:audit"])).toEqual(["audit.trail"]);
    });

    it("the only sourced asset with that key wins over the source with that key", () => {
      expect(keys(["ledger"])).toEqual(["shop.ledger"]);
      expect(keys(["source:ledger"])).toEqual(["ledger.entries"]);
    });

    it("a key that several sources hold is ambiguous: the error names every qualified key", () => {
      expect(error(["customers"])).toBe('"customers" is ambiguous: it names shop.customers, crm.customers; use the qualified key');
      expect(error(["+customers+"])).toMatch(/^"\+customers\+" is ambiguous: it names shop\.customers, crm\.customers/);
      expect(error(["orders"], ["customers"])).toMatch(/^`exclude` "customers" is ambiguous/);
      expect(flagError(["orders"], ["customers"])).toMatch(/^--exclude "customers" is ambiguous/);
      expect(keys(["crm.customers+"])).toEqual(["crm.contacts", "crm.customers"]);
    });
  });

  describe("a selector that matches nothing is a one-line ConfigError naming it and the nearest known name", () => {
    it("an unknown bare word suggests the closest asset key or source", () => {
      expect(error(["ordrs"])).toMatch(
        /^no asset or source "ordrs": did you mean "orders"\? \(assets: .*shop\.orders.*; sources: shop, crm, ledger, audit\)$/,
      );
      expect(error(["crn"])).toMatch(/did you mean "crm"\?/);
      expect(error(["zzzzzzzzzz"])).toMatch(/^no asset or source "zzzzzzzzzz" \(assets: /);
    });

    it("an unknown qualified key, source or tag", () => {
      expect(error(["shop.ordrs"])).toMatch(/^no asset "shop\.ordrs": did you mean "shop\.orders"\?/);
      expect(error(["source:shp"])).toBe('no source "shp": did you mean "source:shop"? (sources: shop, crm, ledger, audit)');
      expect(error(["tag:financ"])).toBe(
        'no asset has the tag "financ": did you mean "tag:finance"? (tags: daily-report, finance, ingest, sales)',
      );
      const untagged = new il.DAG(il.asset({ key: "a", run: rows }));
      expect(() => selectAssets(untagged, { select: ["tag:x"] })).toThrow('no asset has the tag "x" (no asset declares tags)');
    });

    it("with exclude, the message names the option (the command line says --exclude)", () => {
      expect(error(["orders"], ["ordrs"])).toMatch(/^`exclude`: no asset or source "ordrs": did you mean "orders"\?/);
      expect(error([], ["tag:nope"])).toMatch(/^`exclude`: no asset has the tag "nope"/);
      expect(flagError(["orders"], ["ordrs"])).toMatch(/^--exclude: no asset or source "ordrs": did you mean "orders"\?/);
      expect(flagError([], ["tag:nope"])).toMatch(/^--exclude: no asset has the tag "nope"/);
      expect(flagError(["shop.ordrs"])).toMatch(/^no asset "shop\.ordrs"/);
    });

    it("a selection that exclude empties is an error too, naming the option (the command line says --exclude)", () => {
      expect(error(["orders"], ["tag:sales"])).toBe('the selection "orders `exclude` tag:sales" leaves no asset');
      expect(flagError(["orders"], ["tag:sales"])).toBe('the selection "orders --exclude tag:sales" leaves no asset');
    });
  });

  describe("what a command can work on (keep)", () => {
    it("materialize: no selector means every materializable asset; expansions skip the others", () => {
      expect(keys([], [], MATERIALIZABLE)).not.toContain("shop.ledger");
      expect(keys(["shop"], [], MATERIALIZABLE)).toEqual(["shop.customers", "shop.orders", "shop.raw", "shop.report", "shop.revenue"]);
    });

    it("an asset named by key that the command cannot work on is an error naming it", () => {
      expect(() => keys(["ledger"], [], MATERIALIZABLE)).toThrow('asset "shop.ledger" is not materializable');
      expect(() => keys(["shop.customers"], [], partitioned("coverage"))).toThrow(
        'asset "shop.customers" is not partitioned: coverage needs a partitioned asset',
      );
      const missing = both(
        MATERIALIZABLE,
        partitioned((o) => o("only")),
      );
      expect(() => keys(["crm.customers"], [], missing)).toThrow(
        'asset "crm.customers" is not partitioned: `only` needs a partitioned asset',
      );
      expect(flagError(["crm.customers"], [], missing)).toBe(
        'asset "crm.customers" is not partitioned: --missing needs a partitioned asset',
      );
    });

    it("a selection with nothing the command can work on is an error naming the selection", () => {
      expect(() => keys(["crm"], [], partitioned("coverage"))).toThrow('the selection "crm" leaves no partitioned asset');
      expect(keys([], [], partitioned("coverage"))).toContain("shop.orders");
    });
  });
});

describe("singleAsset: a selection that names one asset by key (shown in detail by coverage)", () => {
  it.each([
    [["orders"], "shop.orders"],
    [["shop.orders"], "shop.orders"],
    [["audit"], "audit"],
    [["ledger"], "shop.ledger"],
  ])("%j names %s", (select, key) => {
    expect(singleAsset(dag, { select })?.qualifiedKey).toBe(key);
  });

  it.each([[[]], [["orders", "revenue"]], [["+orders"]], [["orders+"]], [["tag:sales"]], [["source:ledger"]], [["crm"]]])(
    "%j does not",
    (select) => {
      expect(singleAsset(dag, { select })).toBeNull();
    },
  );

  it("nor does one key with --exclude", () => {
    expect(singleAsset(dag, { select: ["orders"], exclude: ["revenue"] })).toBeNull();
  });
});

describe("asset tags", () => {
  it("are the declared ones, each once; none is an empty list; a source passes none down", () => {
    expect(dag.find("shop.revenue")!.tags).toEqual(["finance", "daily-report"]);
    expect(il.asset({ key: "a", tags: ["x", "x", "y"], run: rows }).tags).toEqual(["x", "y"]);
    expect(dag.find("crm.customers")!.tags).toEqual([]);
  });

  it.each([[[""]], [["a b"]], [["a.b"]], [["tag:x"]], [[1]], [[null]], ["finance"], [{ finance: true }]])(
    "refuses tags %j with a ConfigError naming the asset",
    (tags) => {
      expect(() => il.asset({ key: "a", tags: tags as string[], run: rows })).toThrow(il.ConfigError);
      expect(() => il.asset({ key: "a", tags: tags as string[], run: rows })).toThrow(
        /^asset "a": tag.* (is invalid: expected a non-empty string of letters, digits, _ or -|must be an array of strings)/,
      );
    },
  );

  it(".with({ tags }) replaces them on the copy only, validated the same way", () => {
    const revenueAsset = dag.find("shop.revenue")!;
    const copy = revenueAsset.with({ tags: ["weekly"] });
    expect(copy.tags).toEqual(["weekly"]);
    expect(revenueAsset.tags).toEqual(["finance", "daily-report"]);
    expect(copy.with({ destinations: mem }).tags).toEqual(["weekly"]);
    expect(() => revenueAsset.with({ tags: ["no spaces"] })).toThrow('asset "shop.revenue": tag "no spaces" is invalid');
    const tagged = new il.DAG(dag.find("crm.customers")!.with({ tags: ["weekly"] }));
    expect(selectAssets(tagged, { select: ["tag:weekly"] }).map((a) => a.qualifiedKey)).toEqual(["crm.customers"]);
  });
});
