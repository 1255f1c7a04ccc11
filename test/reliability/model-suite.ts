// The runner of the model-based tests (model.test.ts, model-servers.test.ts; two files, so that
// the long variant's two halves run in parallel workers): per destination, fast-check command
// sequences (model-commands.ts) on empty storage of their own, each checked against the model
// after every step. A failure prints the shrunk sequence, each step as it resolved, and the seed:
// INTERLOPER_RELIABILITY_SEED replays it.
import fc from "fast-check";
import { afterAll, beforeAll, describe, it } from "vitest";
import { LONG, seedFor } from "./helpers.js";
import { COMMANDS, emptyModel, System } from "./model-commands.js";
import { LIST_VALUES } from "./model-data.js";
import type { ModelTarget } from "./model-targets.js";

/** Sequences per destination: up to 200 in the long variant, within its search time limit. */
export const SEQUENCES = LONG ? 200 : 10;

// Bounds that turn a hang into a failure with its seed and sequence, instead of the test
// runner's timeout with neither: one sequence (each of its steps takes well under a second, 60
// s on a loaded machine), and the whole search, shrinking included (a failure shrinks through
// hundreds of replays; on a slow failure that would outlast any CI job). Reaching the second
// with no failure ends the test early, passing, and says how many sequences ran. The long
// variant searches 40 s a destination: the eleven destinations took 8 minutes of CI's Node 20
// run at 60 s (over 10 at 100 s), the longest part of a run held to 40 minutes; each CI run
// draws a new seed, so the sequences tried add up from run to run.
const SEQUENCE_LIMIT_MS = 120_000;
const SEARCH_LIMIT_MS = LONG ? 40_000 : 90_000;

/** Runs the model-based test against each target, one test each. */
export function modelSuite(what: string, targets: readonly ModelTarget[]): void {
  const seed = seedFor(`model-based ${what}`);
  const available = new Map<string, boolean>();
  beforeAll(async () => {
    for (const target of targets) {
      const up = await target.available();
      available.set(target.name, up);
      if (up) await target.start?.();
    }
    // Starting moto and the GCS server took over a minute on a machine loaded well past its cores.
  }, 180_000);
  afterAll(async () => {
    for (const target of targets) await target.stop?.();
  });

  describe(`model-based testing of ${what}`, () => {
    for (const [t, target] of targets.entries()) {
      const steps = LONG ? target.longSteps : 12;
      it(
        `${target.name}: ${SEQUENCES} command sequences of up to ${steps} steps agree with the model after every step`,
        async () => {
          if (!available.get(target.name)) return;
          const started = Date.now();
          let ran = 0;
          let sequences = 0;
          const property = fc.asyncProperty(
            fc.record({ listValues: LIST_VALUES, variant: fc.nat(2) }),
            fc.commands(COMMANDS, { maxCommands: steps, size: "max" }),
            async (scenario, commands) => {
              sequences++;
              const storage = await target.open(scenario.variant);
              const system = new System(scenario.listValues, storage.dataset, storage.destination, storage.twin, target.caseBlindTables);
              try {
                await fc.asyncModelRun(() => ({ model: emptyModel(), real: system }), commands);
              } finally {
                ran += system.steps.length;
                await storage.cleanup();
              }
            },
          );
          try {
            await fc.assert(property, {
              seed: (seed + t * 1009) >>> 0,
              numRuns: SEQUENCES,
              timeout: SEQUENCE_LIMIT_MS,
              interruptAfterTimeLimit: SEARCH_LIMIT_MS,
            });
          } catch (error) {
            throw new Error(
              `${target.name} disagrees with the model (reproduce with INTERLOPER_RELIABILITY_SEED=${seed}):\n${(error as Error).message}`,
              { cause: error },
            );
          }
          console.log(
            `model-based ${target.name}: ${sequences} of ${SEQUENCES} sequences, ${ran} steps in ${Date.now() - started} ms (seed ${seed})`,
          );
        },
        SEARCH_LIMIT_MS + SEQUENCE_LIMIT_MS + 60_000,
      );
    }
  });
}
