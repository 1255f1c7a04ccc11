// closeProject (src/api/loaded.ts) releases every destination of a project through the base
// Destination's close(), and one that fails, even at once, does not keep the others open.
import { expect, it } from "vitest";
import * as il from "../../src/index.js";
import { projectOf } from "../../src/api/project.js";
import { closeProject } from "../../src/api/loaded.js";

it("closes every destination, even when one close() throws before it returns a promise", async () => {
  const closed: string[] = [];
  class Throwing extends il.MemoryDestination {
    override close(): Promise<void> {
      throw new Error("refused at once");
    }
  }
  class Recording extends il.MemoryDestination {
    override async close(): Promise<void> {
      closed.push("recording");
    }
  }
  const project = projectOf(
    il.defineConfig({
      assets: [
        il.asset({ key: "a", destinations: new Throwing(), run: () => [{ n: 1 }] }),
        il.asset({ key: "b", destinations: new Recording(), run: () => [{ n: 1 }] }),
      ],
    }),
  );
  await expect(closeProject(project)).resolves.toBeUndefined();
  expect(closed).toEqual(["recording"]);
});
