// Issue 17 item 7, through the library: a destination built by a program resolves relative
// paths against the current folder; one of a config loaded by loadProject against the config's
// folder (the CLI end to end: test/reliability/config-relative-paths.test.ts); the first base a
// destination resolves with is kept.
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { projectOf, resolvePathsFrom } from "../../src/api/project.js";

const FOLDER = resolve("fixtures/projects/relative");

describe("relative destination paths", () => {
  it("a destination built in a program resolves against the current folder", () => {
    expect(new il.CSVDestination({ basePath: "out/csv" }).location).toBe(resolve(process.cwd(), "out/csv"));
    expect(new il.FileDestination({ basePath: "" }).location).toBe(process.cwd());
    expect(new il.SQLiteDestination({ path: "w.db" }).location).toBe(resolve("w.db"));
    expect(new il.SQLiteDestination({ path: ":memory:" }).location).toBe(":memory:");
    expect(new il.LocalObjectStoreDestination({ basePath: "/abs/lake", prefix: "raw/x" }).location).toBe(join("/abs/lake", "raw", "x"));
    expect(new il.MemoryDestination().location).toBe("memory of this process");
  });

  it("resolvePathsFrom sets the base before first use; later calls, or calls after a use, change nothing", () => {
    const csv = new il.CSVDestination({ basePath: "./data" });
    csv.resolvePathsFrom("/srv/project");
    csv.resolvePathsFrom("/elsewhere");
    expect(csv.location).toBe("/srv/project/data");
    const used = new il.SQLiteDestination({ path: "w.db" });
    expect(used.file).toBe(resolve("w.db"));
    used.resolvePathsFrom("/srv/project");
    expect(used.file).toBe(resolve("w.db"));
    // An absolute path stays what it is.
    const absolute = new il.CSVDestination({ basePath: "/data/csv" });
    absolute.resolvePathsFrom("/srv/project");
    expect(absolute.location).toBe("/data/csv");
  });

  it("resolvePathsFrom(project, folder), the step loadProject takes with the config's folder, reaches every destination", () => {
    const csv = new il.CSVDestination({ basePath: "./data" });
    const db = new il.SQLiteDestination({ path: "warehouse.db" });
    const lake = new il.LocalObjectStoreDestination({ basePath: "lake", prefix: "raw" });
    const src = il.source({
      key: "paths",
      assets: [il.asset({ key: "a", run: () => [{ n: 1 }] }), il.asset({ key: "b", destinations: { lake, db }, run: () => [{ n: 1 }] })],
    })({ destinations: csv });
    const project = projectOf(il.defineConfig({ sources: [src] }), join(FOLDER, "interloper.config.ts"));
    resolvePathsFrom(project, FOLDER);
    expect(project.dag.assets.map((a) => a.destinations.map((d) => d.location))).toEqual([
      [join(FOLDER, "data")],
      [join(FOLDER, "lake", "raw"), join(FOLDER, "warehouse.db")],
    ]);
  });

  it("projectOf (a project built in code) leaves paths to the current folder", () => {
    const csv = new il.CSVDestination({ basePath: "data" });
    const src = il.source({ key: "code", assets: [il.asset({ key: "a", run: () => [{ n: 1 }] })] })({ destinations: csv });
    projectOf(il.defineConfig({ sources: [src] }), "/some/where/interloper.config.ts");
    expect(csv.location).toBe(resolve("data"));
  });
});
