import type { Reporter, TestModule } from "vitest/node";
import { allFiles, longOnly } from "../../vitest.config.js";

/** How many of the slowest files the summary names: where CI's minutes go, in every log. */
const SLOWEST = 12;

/**
 * Ends the run with one plain "N passed, N failed, N skipped" line that any CI log reader
 * understands, after the slowest test files (with their project, since the time-zoned suites run
 * three times): the figures to read before a long variant grows.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") counts.passed++;
        else if (state === "failed") counts.failed++;
        else counts.skipped++;
      }
      if (module.state() === "failed" && [...module.children.allTests()].length === 0) counts.failed++;
    }
    const slowest = [...testModules].sort((a, b) => b.diagnostic().duration - a.diagnostic().duration).slice(0, SLOWEST);
    if (slowest.length > 0) {
      process.stdout.write(`\nslowest test files:\n`);
      for (const module of slowest) {
        const seconds = (module.diagnostic().duration / 1000).toFixed(1).padStart(7);
        process.stdout.write(`${seconds} s  ${module.relativeModuleId} [${module.project.name}]\n`);
      }
    }
    process.stdout.write(`\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
    if (!allFiles)
      process.stdout.write(
        `a short run: ${longOnly.length} slow fault-injection files and the SQL destinations' files in UTC and America/Los_Angeles were left out; INTERLOPER_RELIABILITY_LONG=1 npm test runs every file, as .ci/run does (docs/reliability.md)\n`,
      );
  }
}
