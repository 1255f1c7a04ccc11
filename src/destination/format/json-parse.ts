// JSON.parse rounds every integer past 2^53, and Node 20 has no reviver access to the source
// text, so a line that holds a long digit run is parsed here instead: an integer field of the
// row that a number cannot hold exactly becomes a bigint. Values nested deeper (inside a json
// field) stay numbers, as JSON.parse gives them everywhere else in interloper.

const LONG_DIGITS = /\d{16}/;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Parses one JSON text; a top-level object's unsafe integers come back as bigints. */
export function parseJsonLine(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text) as unknown;
  const parser = new Parser(text);
  const value = parser.value(0);
  parser.end();
  return value;
}

class Parser {
  private at = 0;

  constructor(private readonly text: string) {}

  value(depth: number): unknown {
    this.space();
    const c = this.text[this.at];
    if (c === "{") return this.object(depth);
    if (c === "[") return this.array(depth);
    if (c === '"') return this.string();
    if (this.text.startsWith("true", this.at)) return this.word(4, true);
    if (this.text.startsWith("false", this.at)) return this.word(5, false);
    if (this.text.startsWith("null", this.at)) return this.word(4, null);
    return this.number(depth);
  }

  end(): void {
    this.space();
    if (this.at !== this.text.length) this.fail("end of text");
  }

  private object(depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.at++;
    this.space();
    if (this.text[this.at] === "}") return (this.at++, out);
    for (;;) {
      this.space();
      const key = this.string();
      this.space();
      this.expect(":");
      // defineProperty: a "__proto__" key must be a field, as JSON.parse makes it.
      Object.defineProperty(out, key, { value: this.value(depth + 1), enumerable: true, writable: true, configurable: true });
      this.space();
      if (this.text[this.at] === ",") this.at++;
      else return (this.expect("}"), out);
    }
  }

  private array(depth: number): unknown[] {
    const out: unknown[] = [];
    this.at++;
    this.space();
    if (this.text[this.at] === "]") return (this.at++, out);
    for (;;) {
      out.push(this.value(depth + 1));
      this.space();
      if (this.text[this.at] === ",") this.at++;
      else return (this.expect("]"), out);
    }
  }

  private string(): string {
    if (this.text[this.at] !== '"') this.fail("a string");
    // Find the closing quote, skipping escaped characters, and let JSON.parse unescape.
    let end = this.at + 1;
    while (end < this.text.length && this.text[end] !== '"') end += this.text[end] === "\\" ? 2 : 1;
    const value = JSON.parse(this.text.slice(this.at, end + 1)) as string;
    this.at = end + 1;
    return value;
  }

  private number(depth: number): number | bigint {
    NUMBER.lastIndex = this.at;
    const match = NUMBER.exec(this.text);
    if (!match) this.fail("a value");
    const token = match![0];
    this.at += token.length;
    const value = Number(token);
    const integer = !/[.eE]/.test(token);
    return depth === 1 && integer && !Number.isSafeInteger(value) ? BigInt(token) : value;
  }

  private word<T>(length: number, value: T): T {
    this.at += length;
    return value;
  }

  private space(): void {
    while (this.at < this.text.length && " \t\r\n".includes(this.text[this.at]!)) this.at++;
  }

  private expect(char: string): void {
    if (this.text[this.at] !== char) this.fail(`"${char}"`);
    this.at++;
  }

  private fail(expected: string): never {
    throw new SyntaxError(`invalid JSON at position ${this.at}: expected ${expected}`);
  }
}
