import type { Coverage, PartitionInDestination } from "../../api/session/index.js";
import { ConfigError } from "../../errors.js";
import { loadTerminalViews } from "../ink-runtime.js";
import { withKnownSize } from "../terminal-size.js";
import { printable } from "../printable.js";
import { printableCoverage } from "../views/printable-coverage.js";
import type { ExplorerExit, ExplorerPlace } from "./explorer-state.js";

/** The flags `--interactive` cannot go with: outputs meant for files and other programs. */
export function refuseInteractive(
  flags: { readonly json?: boolean; readonly html?: string },
  terminal: { stdin: boolean; stdout: boolean },
): void {
  if (flags.json) throw new ConfigError("--interactive cannot be used with --json: the explorer is for a terminal; drop one of them");
  if (flags.html !== undefined)
    throw new ConfigError("--interactive cannot be used with --html: the explorer is for a terminal; drop one of them");
  if (!terminal.stdout)
    throw new ConfigError(
      "--interactive needs a terminal, but stdout is not a TTY; run it in a terminal, or drop -i for the static picture",
    );
  if (!terminal.stdin)
    throw new ConfigError(
      "--interactive reads keys from a terminal, but stdin is not a TTY; run it in a terminal, or drop -i for the static picture",
    );
}

/** What the explorer needs from the command around it. */
export interface ExplorerSession {
  /** What each destination holds of a partition, for the panel under the cursor. */
  readonly details: (asset: string, key: string) => Promise<PartitionInDestination[]>;
  /** Computes the selection's coverage afresh (after a materialization). */
  readonly compute: () => Promise<Coverage[]>;
  /**
   * Materializes one asset's window with the progress view; returns the exit code and the
   * arguments it ran (`shop.stock -w 2026-01-05|eu` for a combination of a multi asset).
   */
  readonly materialize: (asset: string, window: string) => Promise<{ readonly code: number; readonly ran: string }>;
}

/**
 * Runs the explorer until the user quits. `m` closes it, materializes with the progress view
 * (which owns the terminal meanwhile), then opens it again on fresh coverage, where it was.
 */
export async function runExplorer(session: ExplorerSession, first: readonly Coverage[]): Promise<void> {
  const [{ render }, React, { CoverageExplorer }] = await loadTerminalViews(() =>
    Promise.all([import("ink"), import("react"), import("./explorer.js")]),
  );
  // A terminal reporting a size of 0 is drawn on as 80 x 24.
  const stdout = withKnownSize(process.stdout);
  let results = first;
  let place: ExplorerPlace | undefined;
  let message: string | undefined;
  for (;;) {
    // The explorer shows printable names; its answers are mapped back to the real keys.
    const shown = results.map(printableCoverage);
    const realKey = new Map(shown.map((c, i) => [c.asset, results[i]!.asset]));
    let exit = { kind: "quit" } as ExplorerExit;
    const app = render(
      React.createElement(CoverageExplorer, {
        coverages: shown,
        width: Math.max(40, stdout.columns),
        height: Math.max(20, stdout.rows),
        color: !process.env["NO_COLOR"],
        ...(place ? { place } : {}),
        ...(message ? { message } : {}),
        details: (asset: string, key: string) => session.details(realKey.get(asset)!, key),
        onExit: (value: ExplorerExit) => {
          exit = value;
          app.unmount();
        },
      }),
      { stdout, patchConsole: false, exitOnCtrlC: false },
    );
    await app.waitUntilExit();
    if (exit.kind === "quit") return;
    const { code, ran } = await session.materialize(realKey.get(exit.asset)!, exit.window);
    message = `materialize ${printable(ran)}: ${code === 0 ? "done" : `exit code ${code}`}; coverage refreshed`;
    place = exit.place;
    results = await session.compute();
  }
}
