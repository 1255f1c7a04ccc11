// The explorer's keys as a pure state machine: each key press is applied to the state the one
// before it left. A burst of keys (held arrows, a paste, keys typed faster than a frame) arrives
// in one chunk, which ink hands over as several events in one batch, or as one event of several
// characters: each key is applied in turn, none is lost to a state not re-read between them.
import type { Coverage } from "../../api/session/index.js";
import { filtered, findKey, jump, steps, windowAround, type ExplorerExit, type ExplorerPlace } from "./explorer-state.js";

/** One key, as the explorer tells them apart. */
export type Press =
  | "up"
  | "down"
  | "left"
  | "right"
  | "pageUp"
  | "pageDown"
  | "home"
  | "end"
  | "return"
  | "escape"
  | "backspace"
  | "interrupt"
  | { readonly text: string };

/** The keys of ink's useInput the explorer reads. */
export interface InkKey {
  readonly upArrow: boolean;
  readonly downArrow: boolean;
  readonly leftArrow: boolean;
  readonly rightArrow: boolean;
  readonly pageUp: boolean;
  readonly pageDown: boolean;
  readonly home: boolean;
  readonly end: boolean;
  readonly return: boolean;
  readonly escape: boolean;
  readonly backspace: boolean;
  readonly delete: boolean;
  readonly ctrl: boolean;
  readonly meta: boolean;
}

const NAMED: ReadonlyArray<[keyof InkKey, Press]> = [
  ["upArrow", "up"],
  ["downArrow", "down"],
  ["leftArrow", "left"],
  ["rightArrow", "right"],
  ["pageUp", "pageUp"],
  ["pageDown", "pageDown"],
  ["home", "home"],
  ["end", "end"],
  ["return", "return"],
  ["escape", "escape"],
  ["backspace", "backspace"],
  ["delete", "backspace"],
];

/** The presses of one ink input event: a named key, or each character of the text (Enter, Backspace and Ctrl-C among them). */
export function pressesOf(input: string, key: InkKey): Press[] {
  if (key.ctrl && input === "c") return ["interrupt"];
  const named = NAMED.find(([flag]) => key[flag]);
  if (named && (input.length <= 1 || named[1] === "escape")) return [named[1]];
  // An escape sequence of a key the explorer does not use (F5, Alt-x): not text to type.
  if (key.meta) return [];
  const presses: Press[] = [];
  for (const char of input) {
    if (char === "\r" || char === "\n") presses.push("return");
    else if (char === "\u007f" || char === "\b") presses.push("backspace");
    else if (char === "\u0003") presses.push("interrupt");
    else if (char === "\u001b") presses.push("escape");
    else if (char >= " ") presses.push({ text: char });
  }
  return presses;
}

/** Where the explorer stands and what it shows. */
export interface ExplorerState {
  readonly filter: string;
  /** Text being typed: a filter after `/`, a key to go to after `g`. */
  readonly typing: "filter" | "goto" | null;
  readonly goto: string;
  readonly asset: string | null;
  /** The cursor's partition; null: the asset's last period. */
  readonly key: string | null;
  /** The partition whose details are open. */
  readonly opened: string | null;
  /** A line answering the last key (a key `g` did not find). */
  readonly notice: string | null;
  /** Set once: what the caller is asked to do. */
  readonly exit: ExplorerExit | null;
}

/** The state the explorer opens in. */
export function initialState(coverages: readonly Coverage[], place?: ExplorerPlace): ExplorerState {
  return {
    filter: place?.filter ?? "",
    typing: null,
    goto: "",
    asset: place?.asset ?? coverages[0]?.asset ?? null,
    key: place?.key ?? null,
    opened: null,
    notice: null,
    exit: null,
  };
}

/** The asset shown, the cursor's path through its partitions and the cursor's place on it. */
export function cursorOf(state: ExplorerState, coverages: readonly Coverage[]) {
  const shown = filtered(coverages, state.filter);
  const current = shown.find((c) => c.asset === state.asset) ?? shown[0] ?? null;
  const path = current ? steps(current) : [];
  const found = state.key === null ? -1 : path.findIndex((p) => p.key === state.key);
  const at = found >= 0 ? found : Math.max(0, path.length - 1);
  return { shown, current, path, at, selected: path[at] ?? null };
}

/** The state after `press`. */
export function applyPress(state: ExplorerState, press: Press, coverages: readonly Coverage[]): ExplorerState {
  if (state.exit) return state;
  if (state.typing) return typed(state, press, coverages);
  const { shown, current, path, at, selected } = cursorOf(state, coverages);
  const base = { ...state, notice: null };
  const moveTo = (index: number): ExplorerState => {
    const next = path[Math.min(path.length - 1, Math.max(0, index))];
    return next ? { ...base, key: next.key, opened: null } : base;
  };
  const moveAsset = (by: number): ExplorerState => {
    if (!current) return base;
    const next = shown[Math.min(shown.length - 1, Math.max(0, shown.indexOf(current) + by))]!;
    return { ...base, asset: next.asset, key: null, opened: null };
  };
  if (typeof press === "object") {
    if (press.text === "q") return { ...base, exit: { kind: "quit" } };
    if (press.text === "/") return { ...base, typing: "filter", opened: null };
    if (press.text === "g" && current) return { ...base, typing: "goto", goto: "" };
    if (press.text === "m" && current && selected) {
      const place = { asset: current.asset, key: selected.key, filter: state.filter };
      return { ...base, exit: { kind: "materialize", asset: current.asset, window: windowAround(current, selected.key), place } };
    }
    return base;
  }
  switch (press) {
    case "interrupt":
      return { ...base, exit: { kind: "quit" } };
    case "up":
      return moveAsset(-1);
    case "down":
      return moveAsset(1);
    case "left":
      return moveTo(at - 1);
    case "right":
      return moveTo(at + 1);
    case "pageUp":
      return current ? moveTo(jump(current, path, at, -1)) : base;
    case "pageDown":
      return current ? moveTo(jump(current, path, at, 1)) : base;
    case "home":
      return moveTo(0);
    case "end":
      return moveTo(path.length - 1);
    case "escape":
      return { ...base, opened: null };
    case "return":
      return selected ? { ...base, key: selected.key, opened: state.opened === selected.key ? null : selected.key } : base;
    default:
      return base;
  }
}

/** A press while a filter or a key is typed. */
function typed(state: ExplorerState, press: Press, coverages: readonly Coverage[]): ExplorerState {
  const field = state.typing === "filter" ? "filter" : "goto";
  if (press === "interrupt") return { ...state, typing: null, exit: { kind: "quit" } };
  if (press === "escape") return { ...state, typing: null, goto: "", ...(field === "filter" ? { filter: "" } : {}), opened: null };
  if (press === "backspace") return { ...state, [field]: state[field].slice(0, -1), opened: null };
  if (typeof press === "object") return { ...state, [field]: state[field] + press.text, opened: null };
  if (press !== "return") return state;
  if (field === "filter") return { ...state, typing: null };
  const { current, path } = cursorOf(state, coverages);
  const found = findKey(path, state.goto);
  if (found === null || !current)
    return { ...state, typing: null, goto: "", notice: `no partition of ${current?.asset ?? "this asset"} matches "${state.goto}"` };
  return { ...state, typing: null, goto: "", key: path[found]!.key, opened: null, notice: null };
}
