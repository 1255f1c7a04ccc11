// Model-based testing of every destination: fast-check generates sequences of commands (write a
// partition or a window, rewrite, empty, read a partition or a window, count, two writers at once,
// a read during a write) over five assets (daily, a daily one whose name differs only in case,
// list, monthly, hourly) with rows of every field type and list values made to collide (case,
// accents, spaces, ".tmp-", "+", "%", line ends). Each command runs through the public asset API
// and is checked against an in-memory model, and the row counts of every asset after every step
// (model-commands.ts). A failure prints the shrunk sequence, each step as it resolved, and the
// seed: INTERLOPER_RELIABILITY_SEED replays it. INTERLOPER_RELIABILITY_LONG=1 runs 200 sequences
// per destination.
import fc from "fast-check";
import { afterAll, beforeAll, describe, it } from "vitest";
import { MemoryDestination } from "../../src/destination/index.js";
import { LONG, seedFor } from "./helpers.js";
import { COMMANDS, emptyModel, System } from "./model-commands.js";
import { LIST_VALUES } from "./model-data.js";
import { modelTargets } from "./model-targets.js";

const SEQUENCES = LONG ? 200 : 6;
const MAX_COMMANDS = LONG ? 20 : 12;
const SEED = seedFor("model-based destinations");
const TARGETS = modelTargets();

const available = new Map<string, boolean>();
beforeAll(async () => {
  for (const target of TARGETS) {
    const up = await target.available();
    available.set(target.name, up);
    if (up) await target.start?.();
  }
}, 60_000);
afterAll(async () => {
  for (const target of TARGETS) await target.stop?.();
  MemoryDestination.clear();
});

describe("model-based testing of every destination", () => {
  for (const [t, target] of TARGETS.entries()) {
    it(`${target.name}: ${SEQUENCES} command sequences of up to ${MAX_COMMANDS} steps agree with the model after every step`, async () => {
      if (!available.get(target.name)) return;
      const seed = (SEED + t * 1009) >>> 0;
      const started = Date.now();
      let steps = 0;
      const property = fc.asyncProperty(fc.record({ listValues: LIST_VALUES, variant: fc.nat(2) }), fc.commands(COMMANDS, { maxCommands: MAX_COMMANDS, size: "max" }), async (scenario, commands) => {
        const storage = await target.open(scenario.variant);
        const system = new System(scenario.listValues, storage.dataset, storage.destination, storage.twin);
        try {
          await fc.asyncModelRun(() => ({ model: emptyModel(), real: system }), commands);
        } finally {
          steps += system.steps.length;
          await storage.cleanup();
        }
      });
      try {
        await fc.assert(property, { seed, numRuns: SEQUENCES });
      } catch (error) {
        throw new Error(`${target.name} disagrees with the model (reproduce with INTERLOPER_RELIABILITY_SEED=${SEED}):\n${(error as Error).message}`, { cause: error });
      }
      console.log(`model-based ${target.name}: ${SEQUENCES} sequences, ${steps} steps in ${Date.now() - started} ms (seed ${SEED})`);
    }, LONG ? 1_800_000 : 120_000);
  }
});
