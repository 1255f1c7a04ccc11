// A small model of a terminal's screen, to read what a program left on it from the bytes it
// wrote: printable characters (with the wrap a terminal does at its last column), carriage
// return, line feed, backspace, and the CSI sequences progress views use (cursor up, down and
// to a column, erase in line, erase below, clear screen). Colours and modes are read and
// ignored. The screen keeps its scrollback: `lines` is everything written, top to bottom.

const ESC = "\u001b";

export class TerminalScreen {
  private readonly rows: string[][] = [[]];
  private row = 0;
  private col = 0;
  /** Set after a character lands in the last column: the next printable one wraps first. */
  private pendingWrap = false;
  /**
   * An escape sequence cut off at the end of the last write: a pseudo-terminal hands bytes over
   * in chunks of any size, so a sequence can arrive in two reads (and under load often does).
   */
  private unfinished = "";

  constructor(
    readonly columns: number,
    readonly height: number,
  ) {}

  /** The screen after these bytes (decoded as UTF-8 text). */
  static of(text: string, columns: number, height: number): TerminalScreen {
    const screen = new TerminalScreen(columns, height);
    screen.write(text);
    return screen;
  }

  write(text: string): void {
    const chars = [...(this.unfinished + text)];
    this.unfinished = "";
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (c === ESC) {
        const end = this.escape(chars, i);
        if (end === undefined) {
          this.unfinished = chars.slice(i).join("");
          return;
        }
        i = end;
        continue;
      }
      if (c === "\r") {
        this.col = 0;
        this.pendingWrap = false;
      } else if (c === "\n") {
        this.lineFeed();
      } else if (c === "\b") {
        this.col = Math.max(0, this.col - 1);
        this.pendingWrap = false;
      } else if (c === "\t") {
        this.col = Math.min(this.columns - 1, (Math.floor(this.col / 8) + 1) * 8);
      } else if (c >= " " && c !== "\u007f") {
        this.put(c);
      }
    }
  }

  /** Every line, scrollback included, without trailing blanks, and without the blank lines at the end. */
  get lines(): string[] {
    const lines = this.rows.map((cells) =>
      cells
        .map((c) => c ?? " ")
        .join("")
        .trimEnd(),
    );
    while (lines.length > 0 && lines.at(-1) === "") lines.pop();
    return lines;
  }

  /** The lines as one text. */
  get text(): string {
    return this.lines.join("\n");
  }

  /** The first row of the visible screen (the ones above it have scrolled away). */
  private get top(): number {
    return Math.max(0, this.rows.length - this.height);
  }

  private put(c: string): void {
    if (this.pendingWrap) {
      this.lineFeed();
      this.col = 0;
      this.pendingWrap = false;
    }
    const cells = this.rows[this.row]!;
    while (cells.length < this.col) cells.push(" ");
    cells[this.col] = c;
    if (this.col === this.columns - 1) this.pendingWrap = true;
    else this.col++;
  }

  private lineFeed(): void {
    this.pendingWrap = false;
    this.row++;
    if (this.row === this.rows.length) this.rows.push([]);
  }

  /**
   * Reads the escape sequence at `start`; returns the index of its last character, or undefined
   * when the text ends before the sequence does (the rest comes with the next write).
   */
  private escape(chars: readonly string[], start: number): number | undefined {
    const kind = chars[start + 1];
    if (kind === undefined) return undefined;
    if (kind === "[") {
      let end = start + 2;
      while (end < chars.length && !/[@-~]/.test(chars[end]!)) end++;
      if (end === chars.length) return undefined;
      this.csi(chars.slice(start + 2, end).join(""), chars[end]!);
      return end;
    }
    if (kind === "]") {
      // An operating system command (a title, a link): up to BEL or ST.
      let end = start + 2;
      while (end < chars.length && chars[end] !== "\u0007" && !(chars[end] === ESC && chars[end + 1] === "\\")) end++;
      if (end === chars.length) return undefined;
      return chars[end] === ESC ? end + 1 : end;
    }
    // Two-character sequences (ESC 7, ESC 8, ESC =, ...): nothing a progress view needs.
    return start + 1;
  }

  private csi(params: string, final: string): void {
    if (params.startsWith("?")) return; // private modes: cursor shown or hidden, synchronized output
    const numbers = params.split(";").map((p) => (p === "" ? NaN : Number(p)));
    const n = Number.isNaN(numbers[0]!) ? 1 : numbers[0]!;
    switch (final) {
      case "A":
        this.row = Math.max(this.top, this.row - n);
        this.pendingWrap = false;
        break;
      case "B":
        this.row = Math.min(this.rows.length - 1, this.row + n);
        this.pendingWrap = false;
        break;
      case "C":
        this.col = Math.min(this.columns - 1, this.col + n);
        break;
      case "D":
        this.col = Math.max(0, this.col - n);
        this.pendingWrap = false;
        break;
      case "G":
        this.col = Math.min(this.columns - 1, n - 1);
        this.pendingWrap = false;
        break;
      case "H": {
        const row = Number.isNaN(numbers[0]!) ? 1 : numbers[0]!;
        const col = Number.isNaN(numbers[1] ?? NaN) ? 1 : numbers[1]!;
        while (this.rows.length < this.top + this.height) this.rows.push([]);
        this.row = this.top + row - 1;
        this.col = col - 1;
        this.pendingWrap = false;
        break;
      }
      case "K": {
        const mode = Number.isNaN(numbers[0]!) ? 0 : numbers[0]!;
        const cells = this.rows[this.row]!;
        if (mode === 2) cells.length = 0;
        else if (mode === 0) cells.length = Math.min(cells.length, this.col);
        else for (let i = 0; i <= this.col && i < cells.length; i++) cells[i] = " ";
        break;
      }
      case "J": {
        const mode = Number.isNaN(numbers[0]!) ? 0 : numbers[0]!;
        if (mode === 0) {
          this.rows[this.row]!.length = Math.min(this.rows[this.row]!.length, this.col);
          for (let r = this.row + 1; r < this.rows.length; r++) this.rows[r] = [];
        } else if (mode === 2) {
          for (let r = this.top; r < this.rows.length; r++) this.rows[r] = [];
        } else if (mode === 3) {
          // The scrollback goes too: what scrolled away is no longer there.
          const gone = this.top;
          this.rows.splice(0, gone);
          this.row -= gone;
        }
        break;
      }
      default:
        break; // colours (m) and the rest: no effect on the text
    }
  }
}
