import { describe, expect, it } from "vitest";
import { applyColorChoice, colorChoice } from "../../src/cli/color.js";

describe("colour: flag > FORCE_COLOR > NO_COLOR > the terminal", () => {
  it("decides in that order", () => {
    expect(colorChoice(true, { NO_COLOR: "1", FORCE_COLOR: "0" })).toBe(true);
    expect(colorChoice(false, { FORCE_COLOR: "1" })).toBe(false);
    expect(colorChoice(undefined, { NO_COLOR: "1", FORCE_COLOR: "1" })).toBe(true);
    expect(colorChoice(undefined, { FORCE_COLOR: "0" })).toBe(false);
    expect(colorChoice(undefined, { FORCE_COLOR: "false" })).toBe(false);
    expect(colorChoice(undefined, { NO_COLOR: "1" })).toBe(false);
    expect(colorChoice(undefined, { NO_COLOR: "" })).toBeNull();
    expect(colorChoice(undefined, {})).toBeNull();
  });

  it("writes the decision back so that NO_COLOR and FORCE_COLOR agree with it", () => {
    const on: Record<string, string | undefined> = { NO_COLOR: "1" };
    applyColorChoice(true, on);
    expect(on).toEqual({ FORCE_COLOR: "1" });
    const level: Record<string, string | undefined> = { FORCE_COLOR: "3" };
    applyColorChoice(true, level);
    expect(level).toEqual({ FORCE_COLOR: "3" });
    const off: Record<string, string | undefined> = { FORCE_COLOR: "1" };
    applyColorChoice(false, off);
    expect(off).toEqual({ NO_COLOR: "1", FORCE_COLOR: "0" });
    const untouched: Record<string, string | undefined> = { TERM: "xterm" };
    applyColorChoice(null, untouched);
    expect(untouched).toEqual({ TERM: "xterm" });
  });
});
