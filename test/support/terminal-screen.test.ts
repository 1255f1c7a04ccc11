// The terminal-screen model the pseudo-terminal tests read: a pseudo-terminal hands bytes over in
// chunks of any size, so the screen must not depend on where a chunk ends, even in the middle
// of an escape sequence (a cursor-up or an erase read as text put a stray "K" before a line).
import { describe, expect, it } from "vitest";
import { TerminalScreen } from "./terminal-screen.js";

// As a pseudo-terminal passes it on: every line feed after a carriage return.
const FRAME = "\u001b[1mBackfilling\u001b[22m\r\n██░░ 1/2  50%\r\n";
const ERASE_FRAME = "\u001b[2K\u001b[1A\u001b[2K\u001b[1A\u001b[2K\u001b[G";
const TEXT = `${FRAME}${ERASE_FRAME}✓ 2025-01-01  2 rows\r\n${FRAME}${ERASE_FRAME}✓ 2025-01-02  2 rows\r\n\u001b]0;title\u0007Done\r\n`;

describe("TerminalScreen", () => {
  it("draws the same screen whether the bytes come at once or cut anywhere, escape sequences included", () => {
    const whole = TerminalScreen.of(TEXT, 40, 10).lines;
    expect(whole).toEqual(["✓ 2025-01-01  2 rows", "✓ 2025-01-02  2 rows", "Done"]);
    for (let cut = 1; cut < TEXT.length; cut++) {
      const screen = new TerminalScreen(40, 10);
      screen.write(TEXT.slice(0, cut));
      screen.write(TEXT.slice(cut));
      expect(screen.lines, `cut at ${cut}`).toEqual(whole);
    }
    const byCharacter = new TerminalScreen(40, 10);
    for (const c of TEXT) byCharacter.write(c);
    expect(byCharacter.lines).toEqual(whole);
  });
});
