// SIGKILL at random moments during backfills into parquet and sqlite, and the sweep of killed
// writers' temporary files in the local object store (see crash.ts).
import { beforeAll, describe, it } from "vitest";
import { crashLoop, killedWritersSwept, KILLS } from "./crash.js";
import { ensureBuilt, useTempDirs } from "./helpers.js";

const tempDir = useTempDirs();
beforeAll(ensureBuilt, 180_000);

describe("a backfill killed with SIGKILL at random moments", () => {
  for (const kind of ["parquet", "sqlite"] as const) {
    it(`${kind}: after each of ${KILLS} kills every stored partition is complete and earlier ones intact; --missing completes the window`, async () => {
      await crashLoop(kind, await tempDir());
    }, 400_000);
  }
});

describe("writers killed mid-write", () => {
  for (const kind of ["parquet"] as const) {
    it(`${kind}: temporary files of writers killed mid-write are removed by the next run that writes their folder, and only those`, async () => {
      await killedWritersSwept(kind, await tempDir());
    }, 120_000);
  }
});
