// The process pool's options, checked before anything runs: `processes` is a positive integer
// and needs `childProcess` (the config file each child loads); a project built in code has no
// config file for children to load.
import { describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { projectOf } from "../../src/api/project.js";

function dag() {
  const daily = il.asset({
    key: "daily",
    partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
    run: () => [],
  });
  return il.source({ key: "s", assets: [daily] })({ destinations: new il.MemoryDestination() });
}

const window = () => il.TimePartitionWindow.parse("2026-01-01..2026-01-03");

describe("backfill options of the process pool", () => {
  it.each([0, -1, 1.5, Number.NaN])("processes: %s is a ConfigError", async (processes) => {
    const error = await il
      .backfill(new il.DAG(dag()), window(), { processes, childProcess: { configPath: "interloper.config.ts" } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(il.ConfigError);
    expect((error as Error).message).toContain("processes");
  });

  it("processes without childProcess is a ConfigError naming childProcess.configPath", async () => {
    const error = await il.backfill(new il.DAG(dag()), window(), { processes: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(il.ConfigError);
    expect((error as Error).message).toContain("configPath");
  });

  it("materialize with processes on a project built in code (no config file) is a ConfigError", async () => {
    const project = projectOf(il.defineConfig({ sources: [dag()] }));
    const error = await il.materialize(project, { window: "2026-01-01..2026-01-03", processes: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(il.ConfigError);
    expect((error as Error).message).toContain("config file");
  });
});
