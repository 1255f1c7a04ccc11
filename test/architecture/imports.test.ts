// The layering of docs/architecture.md, read from the imports of src/**/*.ts: no cycle between
// folders (a type import counts: it is what a layer knows of another), no cycle between files
// through imports that remain at run time, and the table of what each layer may import, which
// this file reads from the page itself so that the map and the code cannot drift apart.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../support/source-files.js";

const SRC = resolve(import.meta.dirname, "../../src");

interface Import {
  readonly from: string;
  readonly to: string;
  /** `import type` / `export type`: erased when compiled. */
  readonly typeOnly: boolean;
}

const STATIC = /^\s*(?:import|export)\s+(type\s+)?(?:[^;"']*?\s+from\s+)?["'](\.{1,2}\/[^"']+)["']/gm;
const DYNAMIC = /\bimport\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

/** Every relative import of src, as paths relative to src (`runner/run.ts`). */
function imports(): Import[] {
  const files = new Set(sourceFiles(SRC).map((file) => relative(SRC, file)));
  const target = (file: string, specifier: string) => {
    const base = relative(SRC, resolve(dirname(join(SRC, file)), specifier)).replace(/\.js$/, "");
    const found = [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`].find((candidate) => files.has(candidate));
    if (!found) throw new Error(`${file} imports ${specifier}, which is not a file of src`);
    return found;
  };
  return [...files].flatMap((file) => {
    const text = readFileSync(join(SRC, file), "utf8");
    return [
      ...[...text.matchAll(STATIC)].map((m) => ({ from: file, to: target(file, m[2]!), typeOnly: m[1] !== undefined })),
      ...[...text.matchAll(DYNAMIC)].map((m) => ({ from: file, to: target(file, m[1]!), typeOnly: false })),
    ];
  });
}

/** A file's layer: its top folder under src, or the file itself at the top (errors.ts, index.ts). */
function layerOf(file: string): string {
  return file.includes("/") ? file.slice(0, file.indexOf("/")) : file;
}

/** The cycles of a graph (its strongly connected components of more than one node), each sorted. */
function cycles(edges: ReadonlyArray<readonly [string, string]>): string[][] {
  const next = new Map<string, string[]>();
  for (const [a, b] of edges) if (a !== b) next.set(a, [...(next.get(a) ?? []), b]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (stack.includes(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let top = stack.pop(); top !== undefined; top = top === node ? undefined : stack.pop()) component.push(top);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe("the imports of src", () => {
  const all = imports();

  it("are read: the parser finds the imports it is meant to", () => {
    expect(all.some((i) => i.from === "dag/dag.ts" && i.to === "asset/dependencies.ts" && !i.typeOnly)).toBe(true);
    expect(all.some((i) => i.from === "runner/run.ts" && i.to === "asset/asset.ts" && i.typeOnly)).toBe(true);
    expect(all.some((i) => i.from === "cli/program/check.ts" && i.to === "cli/commands/check.ts" && !i.typeOnly)).toBe(true);
  });

  it("form no cycle between folders, type imports included", () => {
    expect(cycles(all.map((i) => [layerOf(i.from), layerOf(i.to)] as const))).toEqual([]);
  });

  it("form no cycle between files through imports that remain at run time", () => {
    expect(cycles(all.filter((i) => !i.typeOnly).map((i) => [i.from, i.to] as const))).toEqual([]);
  });

  it("point down: each layer imports only what docs/architecture.md allows it", () => {
    const allowed = layerTable();
    const broken = all.filter((i) => {
      const [from, to] = [layerOf(i.from), layerOf(i.to)];
      if (from === to || from === "index.ts") return false;
      if (!from.includes(".") && to.endsWith(".ts")) return false; // the top files are leaves any layer may use
      return !(allowed.get(from)?.includes(to) ?? false);
    });
    expect(broken.map((i) => `${i.from} -> ${i.to}`)).toEqual([]);
  });

  it("reach api from cli through the session alone (docs/architecture.md, 'A command')", () => {
    const around = all.filter((i) => i.from.startsWith("cli/") && i.to.startsWith("api/") && !i.to.startsWith("api/session/"));
    expect(around.map((i) => `${i.from} -> ${i.to}`)).toEqual([]);
  });

  it("name every folder of src in docs/architecture.md, and no folder that is gone", () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    const table = layerTable();
    expect([...table.keys()].sort()).toEqual(folders);
    const diagram = readFileSync(ARCHITECTURE, "utf8").split("\n## Where")[0]!;
    expect(folders.filter((folder) => !new RegExp(`^\\s*${folder} ─`, "m").test(diagram))).toEqual([]);
  });
});

const ARCHITECTURE = resolve(import.meta.dirname, "../../docs/architecture.md");

/** The `| layer | may import |` table of docs/architecture.md, as layer -> the layers it may import. */
function layerTable(): Map<string, string[]> {
  const rows = readFileSync(ARCHITECTURE, "utf8").matchAll(/^\| ([a-z-]+) \|([a-z, -]*)\|$/gm);
  return new Map(
    [...rows]
      .filter((row) => row[1] !== "layer")
      .map((row) => [
        row[1]!,
        row[2]!
          .split(",")
          .map((name) => name.trim())
          .filter(Boolean),
      ]),
  );
}
