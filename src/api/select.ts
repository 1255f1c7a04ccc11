import type { Asset } from "../asset/asset.js";
import type { DAG } from "../dag/dag.js";
import { ConfigError, type OptionPhrase } from "../errors.js";
import { closest } from "../suggest.js";

/**
 * Which assets a command works on, as the command line names them (positional arguments and
 * `--exclude`). A selector is one of:
 *
 * - `shop.orders`: the asset with that qualified key;
 * - `orders`: a bare word, read in this order: the asset outside any source with that key, else
 *   the only asset of any source with that key (several: an error asking for the qualified
 *   key), else the source with that key (all its assets);
 * - `source:shop`: the source's assets, even when an asset is also called `shop`;
 * - `tag:finance`: the assets whose `tags` hold `finance`;
 *
 * each optionally with `+` before (and everything upstream, transitively) and/or after (and
 * everything downstream). Several selectors are a union; `exclude` removes what its selectors
 * match; no selector means every asset.
 */
export interface Selection {
  readonly select?: readonly string[];
  readonly exclude?: readonly string[];
  /**
   * The assets the command can work on. Selectors that expand (a source, a tag, `+`, or none at
   * all) leave the others out; an asset named by its key alone that fails it is an error.
   */
  readonly keep?: AssetFilter;
}

/** Which assets a command can work on, and why it refuses one named by key. */
export interface AssetFilter {
  /** An adjective for the message of an empty selection: "materializable", "partitioned". */
  readonly label: string;
  test(asset: Asset): boolean;
  /** Why an asset named by its key is refused; a phrase where it names an option. */
  refusal(asset: Asset): string | OptionPhrase;
}

/** What materialize and plan run. */
export const MATERIALIZABLE: AssetFilter = {
  label: "materializable",
  test: (asset) => asset.materializable,
  refusal: (asset) => `asset "${asset.qualifiedKey}" is not materializable: its data comes from elsewhere`,
};

/** Partitioned assets, for what `needs` them: "coverage", or the option that asks for them (`only`, `--missing`). */
export function partitioned(needs: string | OptionPhrase): AssetFilter {
  return {
    label: "partitioned",
    test: (asset) => asset.partitioning !== null,
    refusal: (asset) => (o) =>
      `asset "${asset.qualifiedKey}" is not partitioned: ${typeof needs === "string" ? needs : needs(o)} needs a partitioned asset`,
  };
}

/** Both at once: what `--missing` can refill. */
export function both(a: AssetFilter, b: AssetFilter): AssetFilter {
  return {
    label: `${a.label} ${b.label}`,
    test: (asset) => a.test(asset) && b.test(asset),
    refusal: (asset) => (a.test(asset) ? b : a).refusal(asset),
  };
}

/** What a selector's base names, before `+` widens it. */
export type SelectorTarget =
  | { readonly kind: "asset"; readonly key: string }
  | { readonly kind: "word"; readonly word: string }
  | { readonly kind: "source"; readonly key: string }
  | { readonly kind: "tag"; readonly tag: string };

/** One parsed selector. */
export interface Selector {
  readonly text: string;
  readonly target: SelectorTarget;
  /** `+orders`: and everything upstream. */
  readonly upstream: boolean;
  /** `orders+`: and everything downstream. */
  readonly downstream: boolean;
}

const WORD = /^[A-Za-z][A-Za-z0-9_]*$/;
const QUALIFIED = /^[A-Za-z][A-Za-z0-9_]*\.[A-Za-z][A-Za-z0-9_]*$/;
const TAG = /^[A-Za-z0-9_-]+$/;

/** Parses one selector, or throws ConfigError saying what a selector looks like. */
export function parseSelector(text: string): Selector {
  const upstream = text.startsWith("+");
  const rest = upstream ? text.slice(1) : text;
  const downstream = rest.endsWith("+");
  const base = downstream ? rest.slice(0, -1) : rest;
  const target = targetOf(base);
  if (!target) {
    throw new ConfigError(
      `${JSON.stringify(text)} is not a selector: expected an asset key (orders, shop.orders), a source key (shop or source:shop) or tag:NAME, with + before to add what is upstream, after to add what is downstream`,
    );
  }
  return { text, target, upstream, downstream };
}

function targetOf(base: string): SelectorTarget | null {
  if (base.startsWith("tag:")) return TAG.test(base.slice(4)) ? { kind: "tag", tag: base.slice(4) } : null;
  if (base.startsWith("source:")) return WORD.test(base.slice(7)) ? { kind: "source", key: base.slice(7) } : null;
  if (QUALIFIED.test(base)) return { kind: "asset", key: base };
  if (WORD.test(base)) return { kind: "word", word: base };
  return null;
}

/**
 * The assets a selection names, upstream first (the DAG's order). Throws ConfigError, naming the
 * selector and the nearest known key, source or tag, when a selector is malformed or matches
 * nothing, when a bare key is ambiguous, and when a non-empty selection leaves nothing to work on.
 */
export function selectAssets(dag: DAG, selection: Selection = {}): Asset[] {
  const select = selection.select ?? [];
  const exclude = selection.exclude ?? [];
  const keep = selection.keep;
  const graph = new Graph(dag);
  const chosen = new Set<Asset>();
  const named = new Set<Asset>();
  if (select.length === 0) for (const asset of dag.assets) chosen.add(asset);
  for (const text of select) {
    const selector = parseSelector(text);
    const matched = graph.resolve(selector, null);
    for (const asset of matched) chosen.add(asset);
    for (const asset of matched) if (namesByKey(selector, asset)) named.add(asset);
  }
  for (const text of exclude) {
    for (const asset of graph.resolve(parseSelector(text), "exclude")) chosen.delete(asset);
  }
  const selected = dag.assets.filter((asset) => chosen.has(asset));
  if (keep) {
    const refused = selected.find((asset) => named.has(asset) && !keep.test(asset));
    if (refused) throw new ConfigError(keep.refusal(refused));
  }
  const kept = keep ? selected.filter((asset) => keep.test(asset)) : selected;
  if (kept.length === 0 && (select.length > 0 || exclude.length > 0)) {
    const words = (o: (option: string) => string) => [...select, ...exclude.flatMap((text) => [o("exclude"), text])].join(" ");
    throw new ConfigError((o) => `the selection ${JSON.stringify(words(o))} leaves no ${keep ? `${keep.label} ` : ""}asset`);
  }
  return kept;
}

/**
 * The asset a selection names when it is exactly one selector naming one asset by its key (no
 * `+`, no `--exclude`, not a source): commands show it alone in detail. Null otherwise.
 */
export function singleAsset(dag: DAG, selection: Selection): Asset | null {
  if ((selection.select ?? []).length !== 1 || (selection.exclude ?? []).length > 0) return null;
  const selector = parseSelector(selection.select![0]!);
  const [asset, ...others] = new Graph(dag).resolve(selector, null);
  return asset && others.length === 0 && namesByKey(selector, asset) ? asset : null;
}

/** Whether a selector names this asset by its key, with no `+` (a word naming a source does not). */
function namesByKey(selector: Selector, asset: Asset): boolean {
  if (selector.upstream || selector.downstream) return false;
  const target = selector.target;
  if (target.kind === "asset") return asset.qualifiedKey === target.key;
  return target.kind === "word" && (asset.qualifiedKey === target.word || asset.key === target.word);
}

/** The DAG's assets seen by key, source and tag, with edges both ways. */
class Graph {
  private readonly dag: DAG;
  private readonly downstreamOf = new Map<Asset, Asset[]>();

  constructor(dag: DAG) {
    this.dag = dag;
    for (const asset of dag.assets) {
      for (const dependency of dag.dependencies(asset)) {
        if (dependency.asset) this.downstreamOf.set(dependency.asset, [...(this.downstreamOf.get(dependency.asset) ?? []), asset]);
      }
    }
  }

  /** The assets a selector matches, `+` included; `option` (as `exclude`), when given, prefixes the message of an error. */
  resolve(selector: Selector, option: string | null): Set<Asset> {
    const base = this.base(selector, option);
    const found = new Set(base);
    if (selector.upstream) this.walk(base, (asset) => this.dag.dependencies(asset).flatMap((d) => (d.asset ? [d.asset] : [])), found);
    if (selector.downstream) this.walk(base, (asset) => this.downstreamOf.get(asset) ?? [], found);
    return found;
  }

  private walk(start: readonly Asset[], next: (asset: Asset) => readonly Asset[], found: Set<Asset>): void {
    const queue = [...start];
    for (let asset = queue.pop(); asset; asset = queue.pop()) {
      for (const neighbour of next(asset)) {
        if (found.has(neighbour)) continue;
        found.add(neighbour);
        queue.push(neighbour);
      }
    }
  }

  private base(selector: Selector, option: string | null): Asset[] {
    const target = selector.target;
    const assets = this.dag.assets;
    // The API names the option, the command line its flag: `exclude` or --exclude.
    const what: OptionPhrase = (o) => `${option ? `${o(option)} ` : ""}${JSON.stringify(selector.text)}`;
    const prefix: OptionPhrase = (o) => (option ? `${o(option)}: ` : "");
    switch (target.kind) {
      case "asset": {
        const found = assets.filter((a) => a.qualifiedKey === target.key);
        if (found.length === 0)
          throw new ConfigError((o) => `${prefix(o)}no asset "${target.key}"${this.suggest(target.key, this.assetKeys())}${this.known()}`);
        return found;
      }
      case "word": {
        const standalone = assets.filter((a) => a.qualifiedKey === target.word);
        if (standalone.length > 0) return standalone;
        const byKey = assets.filter((a) => a.key === target.word);
        if (byKey.length > 1) {
          throw new ConfigError(
            (o) => `${what(o)} is ambiguous: it names ${byKey.map((a) => a.qualifiedKey).join(", ")}; use the qualified key`,
          );
        }
        if (byKey.length === 1) return byKey;
        const ofSource = assets.filter((a) => a.source?.key === target.word);
        if (ofSource.length > 0) return ofSource;
        throw new ConfigError(
          (o) =>
            `${prefix(o)}no asset or source "${target.word}"${this.suggest(target.word, [...this.assetKeys(), ...this.sources()])}${this.known()}`,
        );
      }
      case "source": {
        const found = assets.filter((a) => a.source?.key === target.key);
        if (found.length === 0) {
          const sources = this.sources();
          throw new ConfigError(
            (o) =>
              `${prefix(o)}no source "${target.key}"${this.suggest(target.key, sources, "source:")} (sources: ${sources.join(", ") || "none"})`,
          );
        }
        return found;
      }
      case "tag": {
        const found = assets.filter((a) => a.tags.includes(target.tag));
        if (found.length === 0) {
          const tags = [...new Set(assets.flatMap((a) => a.tags))].sort();
          throw new ConfigError(
            (o) =>
              `${prefix(o)}no asset has the tag "${target.tag}"${this.suggest(target.tag, tags, "tag:")} (${tags.length ? `tags: ${tags.join(", ")}` : "no asset declares tags"})`,
          );
        }
        return found;
      }
    }
  }

  private assetKeys(): string[] {
    return this.dag.assets.flatMap((a) => [a.qualifiedKey, a.key]);
  }

  private sources(): string[] {
    return [...new Set(this.dag.assets.flatMap((a) => (a.source ? [a.source.key] : [])))];
  }

  private suggest(input: string, candidates: readonly string[], prefix = ""): string {
    const suggestion = closest(input, candidates);
    return suggestion ? `: did you mean "${prefix}${suggestion}"?` : "";
  }

  private known(): string {
    const sources = this.sources();
    return ` (assets: ${this.dag.assets.map((a) => a.qualifiedKey).join(", ") || "none"}${sources.length ? `; sources: ${sources.join(", ")}` : ""})`;
  }
}
