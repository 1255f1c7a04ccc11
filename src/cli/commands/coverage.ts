import { writeFile } from "node:fs/promises";
import { multiKeyOf, type Coverage, type Session } from "../../api/session/index.js";
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
import { combinationsText, isCombinations } from "../views/coverage-combinations.js";
import { printableCoverage } from "../views/printable-coverage.js";
import { valuesOf, type ExcludeFlags } from "./selection.js";

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
  /** `--values` texts (`region=eu,us`). */
  readonly values?: readonly string[];
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
  // Pictures draw a multi asset one combination of values at a time; --json gives it whole, with each partition's keys.
  const compute = () =>
    session.coverage(selection, {
      ...valuesOf(session, selectors, flags),
      ...(flags.json ? {} : { byCombination: true }),
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
        // A combination's partitions are keyed by their time part: its asset's keys hold the values too.
        details: (asset, key) => {
          const c = combinationNamed(results, asset);
          return c ? session.partitionDetails(c.combination.asset, multiKeyOf(c, key)) : session.partitionDetails(asset, key);
        },
        compute,
        materialize: async (asset, window) => {
          const c = combinationNamed(results, asset);
          const [key, keys] = c ? [c.combination.asset, multiKeyOf(c, window)] : [asset, window];
          return { code: await materializeFromExplorer(key, keys, flags), ran: `${key} -w ${keys}` };
        },
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
  else await show(results.map(printableCoverage), single, width());
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
      .map((p) => multiKeyOf(c, p.key));
    out[c.asset] = await session.lastWritten(c.combination?.asset ?? c.asset, stored);
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

/** The terminal's width (COLUMNS, else 100, when stdout is no terminal), at least 40. */
const width = (): number => Math.max(40, process.stdout.columns || Number(process.env["COLUMNS"]) || 100);

/** The coverage of a combination of a multi asset's values, by its name (`shop.stock[eu]`); null for any other. */
function combinationNamed(results: readonly Coverage[], asset: string) {
  const found = results.find((c) => c.asset === asset);
  return found?.combination ? (found as Coverage & Required<Pick<Coverage, "combination">>) : null;
}

async function show(results: readonly Coverage[], single: boolean, width: number): Promise<void> {
  // One multi asset of several combinations: a heatmap row for each.
  if (single && isCombinations(results)) {
    process.stdout.write(`${printableLines(combinationsText(results, width))}\n`);
    return;
  }
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
