import { writeFile } from "node:fs/promises";
import type { Coverage, Session } from "../../api/session/index.js";
import { ConfigError } from "../../errors.js";
import { openCommandSession } from "../command-session.js";
import { commandNow } from "../now.js";
import type { GlobalOptions } from "../main.js";
import { printable, printableLines, terminalJson } from "../printable.js";
import { refuseInteractive, runExplorer } from "../explorer/run-explorer.js";
import { coverageHtml } from "../report/coverage-html.js";
import { projectName } from "../report/project-name.js";
import { coverageText } from "../views/coverage-text.js";
import { summaryLines } from "../views/coverage-summary.js";
import { printableCoverage } from "../views/printable-coverage.js";
import type { ExcludeFlags } from "./selection.js";

/** Flags of `interloper coverage`. */
export interface CoverageFlags extends GlobalOptions, ExcludeFlags {
  readonly partition?: string;
  readonly window?: string;
  readonly lookback?: number;
  readonly offset?: number;
  readonly tz?: string;
  /** Not a flag of coverage: refused with the command that runs what is missing. */
  readonly missing?: boolean;
  readonly json?: boolean;
  readonly html?: string;
  readonly failOnMissing?: boolean;
  readonly failOnStale?: boolean;
  readonly until?: string;
  readonly includeCurrent?: boolean;
  readonly interactive?: boolean;
}

/**
 * `interloper coverage [selectors...]`: one asset named by key in detail, else one line per
 * selected partitioned asset; returns the exit code (1 with --fail-on-missing when any expected
 * partition is missing or unreadable, the period in progress never missing; 1 with
 * --fail-on-stale when any expected partition is stale).
 */
export async function coverageCommand(selectors: readonly string[], flags: CoverageFlags): Promise<number> {
  if (flags.interactive) refuseInteractive(flags, { stdin: Boolean(process.stdin.isTTY), stdout: Boolean(process.stdout.isTTY) });
  if (flags.missing)
    throw new ConfigError(
      `coverage has no --missing: it shows what is missing; to run it, use \`interloper materialize${selectors.map((s) => ` ${s}`).join("")} --missing\``,
    );
  const session = await openCommandSession(flags);
  const selection = { select: selectors, exclude: flags.exclude ?? [] };
  const compute = () =>
    session.coverage(selection, {
      now: commandNow(),
      ...(flags.window !== undefined ? { window: flags.window } : {}),
      ...(flags.partition !== undefined ? { partition: flags.partition } : {}),
      ...(flags.lookback !== undefined ? { lookback: flags.lookback } : {}),
      ...(flags.offset !== undefined ? { offset: flags.offset } : {}),
      ...(flags.tz !== undefined ? { tz: flags.tz } : {}),
      ...(flags.until !== undefined ? { until: flags.until } : {}),
      ...(flags.includeCurrent ? { includeCurrent: true } : {}),
    });
  const results = await compute();
  if (flags.interactive) {
    await runExplorer(
      {
        details: (asset, key) => session.partitionDetails(asset, key),
        compute,
        materialize: (asset, window) => materializeFromExplorer(asset, window, flags),
      },
      results,
    );
    return 0;
  }
  const single = session.namedAsset(selection) !== null;
  if (flags.html) {
    const context = {
      name: await projectName(session.project.filepath),
      configPath: session.project.filepath,
      lastWritten: await lastWrittenOf(session, results),
    };
    try {
      await writeFile(flags.html, coverageHtml(results, new Date(), context));
    } catch (error) {
      throw new ConfigError(
        `--html ${flags.html}: cannot write the report there (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); expected a file path in an existing folder`,
        { cause: error },
      );
    }
  }
  if (flags.json) process.stdout.write(`${terminalJson(JSON.stringify(single ? results[0] : results))}\n`);
  else await show(results.map(printableCoverage), single);
  if (flags.html && !flags.json) process.stderr.write(`${printable(`coverage report written to ${flags.html}`)}\n`);
  const incomplete = flags.failOnMissing && results.some((c) => c.missing > 0 || c.unreadable > 0 || c.neverMaterialized);
  const outOfDate = flags.failOnStale && results.some((c) => c.stale > 0);
  return incomplete || outOfDate ? 1 : 0;
}

/** When each asset of the report was last written (see lastWritten). */
async function lastWrittenOf(session: Session, results: readonly Coverage[]): Promise<Record<string, Date | null>> {
  const out: Record<string, Date | null> = {};
  for (const c of results) {
    const stored = c.partitions
      .filter((p) => p.status === "materialized" || p.status === "empty" || p.status === "unexpected")
      .map((p) => p.key);
    out[c.asset] = await session.lastWritten(c.asset, stored);
  }
  return out;
}

/** `interloper materialize ASSET -w WINDOW` as the explorer's `m` runs it: the same command, its progress view. */
async function materializeFromExplorer(asset: string, window: string, flags: CoverageFlags): Promise<number> {
  const { materializeCommand } = await import("./materialize.js");
  return materializeCommand([asset], {
    window,
    ...(flags.config !== undefined ? { config: flags.config } : {}),
    ...(flags.verbose !== undefined ? { verbose: flags.verbose } : {}),
    ...(flags.color !== undefined ? { color: flags.color } : {}),
  });
}

async function show(results: readonly Coverage[], single: boolean): Promise<void> {
  const width = Math.max(40, process.stdout.columns || Number(process.env["COLUMNS"]) || 100);
  if (single && process.stdout.isTTY && !process.env["CI"]) {
    const [{ render }, { CoverageReport }, React] = await Promise.all([
      import("ink"),
      import("../views/coverage-view.js"),
      import("react"),
    ]);
    const app = render(React.createElement(CoverageReport, { coverage: results[0]!, width, color: !process.env["NO_COLOR"] }), {
      patchConsole: false,
    });
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
