// SIGKILL at random moments during backfills into parquet and sqlite (see crash.ts).
import { beforeAll, describe, it } from "vitest";
import { crashLoop, KILLS } from "./crash.js";
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
