// A long-lived program (a server, a notebook, a test runner) that loads a project, works and
// closes it, again and again, must not keep every project it ever loaded: closeProject forgets
// the project as well as releasing its destinations.
import { describe, expect, it } from "vitest";
import { closeProject, projectOf } from "../../src/api/project.js";
import { openProjectCount, rememberProject } from "../../src/api/loaded.js";
import * as il from "../../src/index.js";

describe("closeProject", () => {
  it("forgets the project: remembering and closing 1,000 projects leaves none remembered", async () => {
    const before = openProjectCount();
    for (let i = 0; i < 1000; i++) {
      const asset = il.asset({ key: "orders", destinations: [new il.MemoryDestination()], run: () => [{ n: i }] });
      const project = projectOf(il.defineConfig({ assets: [asset] }));
      rememberProject(project);
      expect(openProjectCount()).toBe(before + 1);
      await closeProject(project);
    }
    expect(openProjectCount()).toBe(before);
  });
});
