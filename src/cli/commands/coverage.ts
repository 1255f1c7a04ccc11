import { writeFile } from "node:fs/promises";
import { coverage, type Coverage } from "../../api/coverage/index.js";
import { loadProject } from "../../api/project.js";
import { singleAsset } from "../../api/select.js";
import { ConfigError } from "../../errors.js";
import { commandNow } from "../now.js";
import type { GlobalOptions } from "../main.js";
import { printable, printableLines, terminalJson } from "../printable.js";
import { coverageHtml } from "../report/coverage-html.js";
import { coverageText, summaryLines } from "../views/coverage-text.js";
import { printableCoverage } from "../views/printable-coverage.js";
import type { ExcludeFlags } from "./selection.js";

/** Flags of `interloper coverage`. */
export interface CoverageFlags extends GlobalOptions, ExcludeFlags {
  readonly window?: string;
  readonly json?: boolean;
  readonly html?: string;
  readonly failOnMissing?: boolean;
  readonly until?: string;
  readonly includeCurrent?: boolean;
}

/**
/**
 * `interloper coverage [selectors...]`: one asset named by key in detail, else one line per
 * selected partitioned asset; returns the exit code (1 with --fail-on-missing when any expected
 * partition is missing; the period in progress is never missing).
 */
export async function coverageCommand(selectors: readonly string[], flags: CoverageFlags): Promise<number> {
  const project = await loadProject({ ...(flags.config ? { configPath: flags.config } : {}) });
  const selection = { select: selectors, exclude: flags.exclude ?? [] };
  const results = await coverage(project, selection, {
    now: commandNow(),
    ...(flags.window !== undefined ? { window: flags.window } : {}),
    ...(flags.until !== undefined ? { until: flags.until } : {}),
    ...(flags.includeCurrent ? { includeCurrent: true } : {}),
  });
  const single = singleAsset(project.dag, selection) !== null;
  if (flags.html) {
    try {
      await writeFile(flags.html, coverageHtml(results));
    } catch (error) {
      throw new ConfigError(`--html ${flags.html}: cannot write the report there (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); expected a file path in an existing folder`, { cause: error });
    }
  }
  if (flags.json) process.stdout.write(`${terminalJson(JSON.stringify(single ? results[0] : results))}\n`);
  else await show(results.map(printableCoverage), single);
  if (flags.html && !flags.json) process.stderr.write(`${printable(`coverage report written to ${flags.html}`)}\n`);
  return flags.failOnMissing && results.some((c) => c.missing > 0) ? 1 : 0;
}

async function show(results: readonly Coverage[], single: boolean): Promise<void> {
  const width = Math.max(40, process.stdout.columns || Number(process.env["COLUMNS"]) || 100);
  if (single && process.stdout.isTTY && !process.env["CI"]) {
    const [{ render }, { CoverageReport }, React] = await Promise.all([import("ink"), import("../views/coverage-view.js"), import("react")]);
    const app = render(React.createElement(CoverageReport, { coverage: results[0]!, width, color: !process.env["NO_COLOR"] }), { patchConsole: false });
    app.unmount();
    await app.waitUntilExit();
    return;
  }
  if (single) {
    process.stdout.write(`${printableLines(coverageText(results[0]!, width))}\n`);
    return;
  }
  if (results.length === 0) {
    process.stdout.write("no partitioned assets\n");
    return;
  }
  process.stdout.write(`${printableLines(summaryLines(results, width))}\n`);
}

