// Text that reaches the terminal from data, configuration or errors (partition values, cells,
// column names, messages) may hold characters a terminal acts on instead of showing: C0
// controls and ESC sequences (clear the screen, set the window title, move the cursor), DEL,
// the C1 controls (U+009B is CSI on an 8-bit terminal), and the bidirectional controls that
// reorder what is shown (Trojan Source). The CLI prints such text only through these helpers.

/** The characters shown as escapes: C0, DEL, C1, line and paragraph separators, bidi controls. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** What JSON.stringify leaves raw of those: everything but C0, which it escapes itself. */
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

const hex = (char: string, digits: number) => char.charCodeAt(0).toString(16).padStart(digits, "0");

/**
 * One line of text as the terminal should show it: every control character visible as an
 * escape (`\x1b`, `\n`, `\u009b`, `\u202e`: a JavaScript string's escapes, which a shell's
 * `$'...'` reads too), the rest unchanged. A line break the CLI means goes between
 * the lines it prints, never through here.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (char) => NAMED[char] ?? (char < "\u0080" ? `\\x${hex(char, 2)}` : `\\u${hex(char, 4)}`));
}

/** Lines joined by line breaks, each made {@link printable}: a break inside a line shows as `\n`. */
export function printableLines(lines: readonly string[]): string {
  return lines.map(printable).join("\n");
}

/**
 * JSON text (from JSON.stringify) with the control characters it leaves raw written as four-digit
 * `\u` escapes: still the same JSON, and safe to print on a terminal. Such characters can only
 * stand inside strings, where the escape means the same character.
 */
export function terminalJson(json: string): string {
  return json.replace(RAW_IN_JSON, (char) => `\\u${hex(char, 4)}`);
}
