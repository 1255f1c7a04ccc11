// Runs a command under a real pseudo-terminal with util-linux `script`, as a person would in a
// terminal of a given size: stdin, stdout and stderr are the terminal, so programs draw their
// interactive views. Everything written is captured and replayed on a TerminalScreen, so a test
// reads the final screen, not the stream of frames. Ctrl-C is typed into the terminal (the
// terminal's line discipline turns it into SIGINT for the program, as for a person).
import { spawnSync } from "node:child_process";
import { execa } from "execa";
import { TerminalScreen } from "./terminal-screen.js";

/** Whether util-linux `script` is installed (the pseudo-terminal tests need it). */
export const HAS_SCRIPT = spawnSync("script", ["--version"], { encoding: "utf8" }).stdout?.includes("util-linux") ?? false;

export interface TerminalRun {
  readonly exitCode: number;
  /** Every byte written to the terminal, as text. */
  readonly output: string;
  /** The screen at the end. */
  readonly screen: TerminalScreen;
  /** Milliseconds from the start of the terminal to the program's exit. */
  readonly wallMs: number;
}

export interface TerminalOptions {
  readonly cwd: string;
  readonly env: Record<string, string | undefined>;
  readonly columns?: number;
  readonly rows?: number;
  /**
   * The size the terminal reports to the program, when not `columns` x `rows` (a terminal that
   * reports 0 x 0); the screen the test reads stays `columns` x `rows`.
   */
  readonly reported?: { readonly columns: number; readonly rows: number };
  /** Types Ctrl-C once when the screen so far satisfies this (then again, if `twice`, when it satisfies it again). */
  readonly interruptWhen?: (screen: TerminalScreen) => boolean;
  readonly timeoutMs?: number;
}

/** A word as sh reads it back. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Runs `argv` in a pseudo-terminal of `columns` x `rows`; resolves when it exits. */
export async function runInTerminal(argv: readonly string[], options: TerminalOptions): Promise<TerminalRun> {
  const columns = options.columns ?? 100;
  const rows = options.rows ?? 40;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries({
    ...process.env,
    CI: undefined,
    NO_COLOR: undefined,
    FORCE_COLOR: undefined,
    DEBUG: undefined,
    TERM: "xterm-256color",
    ...options.env,
  })) {
    if (value !== undefined) env[name] = value;
  }
  // The size is set on the terminal itself, before the program starts and reads it.
  const reported = options.reported ?? { columns, rows };
  const command = `stty cols ${reported.columns} rows ${reported.rows}; exec ${argv.map(shellWord).join(" ")}`;
  const started = performance.now();
  const child = execa("script", ["-qfec", command, "/dev/null"], {
    cwd: options.cwd,
    env,
    extendEnv: false,
    reject: false,
    stdin: "pipe",
    stripFinalNewline: false,
    timeout: options.timeoutMs ?? 60_000,
    encoding: "utf8",
  });
  const screen = new TerminalScreen(columns, rows);
  let output = "";
  let interrupted = false;
  const decoder = new TextDecoder();
  child.stdout!.on("data", (chunk: Buffer) => {
    const text = decoder.decode(chunk, { stream: true });
    output += text;
    screen.write(text);
    if (!interrupted && options.interruptWhen?.(screen)) {
      interrupted = true;
      child.stdin!.write("\u0003");
    }
  });
  const result = await child;
  const wallMs = performance.now() - started;
  child.stdin!.destroy();
  return { exitCode: result.exitCode ?? -1, output, screen, wallMs };
}
