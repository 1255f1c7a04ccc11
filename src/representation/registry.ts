import { ConfigError } from "../errors.js";
import { describeValue } from "../text/describe-value.js";
import type { TableData } from "./table-data.js";

/**
 * A table shape: how to recognise its native value, wrap it, and build it from any other table.
 * `N` is the native value, the one `TableData.data` holds and `table.to(kind)` returns.
 */
export interface Representation<N = unknown> {
  /** The name `table.kind` reports and `table.to(kind)` asks for: "rows", "columns", ... */
  readonly kind: string;
  /**
   * Whether `data` is meant as a table of this shape. A cheap structural check: `wrap` may still
   * refuse a value that looks like this shape but is malformed (it throws a TypeError).
   */
  detect(data: unknown): boolean;
  /** Wraps a native value that `detect` accepted. */
  wrap(data: N): TableData<N>;
  /** Builds this shape from a table of another kind, row for row, columns in the same order. */
  fromTable(table: TableData): TableData<N>;
}

// Newest first: `detect` runs in this order, so a later registration can claim values that an
// earlier, broader one would also accept (a user's shape wins over the built-ins).
const registry: Representation[] = [];

/**
 * Registers a table shape. Later registrations are detected first; registering a kind that is
 * already known replaces it (and moves it to the front).
 */
export function registerRepresentation<N>(representation: Representation<N>): void {
  const { kind } = representation ?? {};
  if (typeof kind !== "string" || kind.length === 0) {
    throw new TypeError(`a representation needs a non-empty string kind, got ${String(kind)}`);
  }
  for (const hook of ["detect", "wrap", "fromTable"] as const) {
    if (typeof representation[hook] !== "function") {
      throw new TypeError(`representation "${kind}" is missing its ${hook}() function`);
    }
  }
  unregisterRepresentation(kind);
  registry.unshift(representation as Representation);
}

/** Removes a registered shape; returns whether one was registered under that kind. */
export function unregisterRepresentation(kind: string): boolean {
  const at = registry.findIndex((entry) => entry.kind === kind);
  if (at < 0) return false;
  registry.splice(at, 1);
  return true;
}

/** The registered kinds, in detection order (newest first). */
export function representationKinds(): string[] {
  return registry.map((entry) => entry.kind);
}

/** The shape registered under `kind`; a ConfigError naming the kind given and the known ones otherwise. */
export function representation(kind: string): Representation {
  for (const entry of registry) {
    if (entry.kind === kind) return entry;
  }
  const known = registry.map((entry) => `"${entry.kind}"`).join(", ");
  // An empty registry means the built-ins were never loaded: table-data.ts was imported on its
  // own instead of through the barrel, whose imports register rows and columns.
  const hint = known ? `expected one of ${known}` : "no representation is registered (import from representation/index.js)";
  throw new ConfigError(`unknown table representation ${describeValue(kind)}: ${hint}`);
}

/** The first shape, in detection order, that claims `data`; null when none does. */
export function detectRepresentation(data: unknown): Representation | null {
  if (registry.length === 0) {
    throw new TypeError("no table representation is registered: import from representation/index.js, which registers rows and columns");
  }
  for (const entry of registry) {
    if (entry.detect(data)) return entry;
  }
  return null;
}
