import { csvLine } from "../../destination/format/csv-text.js";
import { toText } from "../../schema/index.js";
import { openCommandSession } from "../command-session.js";
import { valuesOf } from "./selection.js";
import type { GlobalOptions } from "../main.js";
import { printable, printableLines, terminalJson } from "../printable.js";
import { count, formatCount } from "../../text/english.js";

/** Flags of `interloper show`. */
export interface ShowFlags extends GlobalOptions {
  readonly partition?: string;
  readonly window?: string;
  readonly limit?: number;
  readonly format?: "table" | "json" | "csv";
  readonly destination?: string;
  /** `--values` texts (`region=eu,us`). */
  readonly values?: readonly string[];
}

/** `interloper show`: prints an asset's stored data; returns the exit code. */
export async function showCommand(key: string, flags: ShowFlags): Promise<number> {
  const session = await openCommandSession(flags);
  const result = await session.read(key, null, {
    ...valuesOf(session, [key], flags),
    ...(flags.partition !== undefined ? { partition: flags.partition } : {}),
    ...(flags.window !== undefined ? { window: flags.window } : {}),
    limit: flags.limit ?? 20,
    ...(flags.destination !== undefined ? { destination: flags.destination } : {}),
  });
  const write = (text: string) => process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  // CSV is the data itself, exact; JSON escapes what a terminal would act on; a table or a
  // value shows it as escapes.
  if (!result.rows) {
    write(
      flags.format === "json" ? terminalJson(JSON.stringify(result.value, jsonValue)) : printableLines(String(result.value).split("\n")),
    );
    return 0;
  }
  if (flags.format === "json") write(terminalJson(JSON.stringify(result.rows, jsonValue)));
  else if (flags.format === "csv") write(csvText(result.columns, result.rows));
  else {
    write(renderTable(result.columns, result.rows, process.stdout.columns || 120));
    const shown =
      result.rows.length < result.total
        ? `${formatCount(result.rows.length)} of ${count(result.total, "row")} (--limit 0 shows all)`
        : count(result.total, "row");
    const from = flags.destination !== undefined ? ` from ${result.destination}` : "";
    write(printable(`${shown}${result.window ? ` in ${result.window}` : ""}${from}`));
  }
  return 0;
}

/** CSV as CSVDestination writes it: each value's text form, null an empty field, "" a quoted one. */
function csvText(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  let text = csvLine(columns);
  for (const row of rows)
    text += csvLine(columns.map((column) => (row[column] === null || row[column] === undefined ? null : toText(row[column]))));
  return text;
}

function jsonValue(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}

/**
 * A plain table that fits `width` columns: cells are cut with "…" when they must be. Names and
 * cells are shown printable (white space runs as one space, other controls as escapes). A
 * column whose values are all numbers (or numerals) is right-aligned, its name too, so digits
 * line up.
 */
export function renderTable(columns: readonly string[], rows: readonly Record<string, unknown>[], width: number): string {
  const cells = rows.map((row) =>
    columns.map((c) => (row[c] === null || row[c] === undefined ? "" : printable(toText(row[c]).replace(/\s+/g, " ")))),
  );
  const names = columns.map(printable);
  const widths = names.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  const budget = Math.max(columns.length * 4, width - (columns.length - 1) * 2);
  // Shrink the widest column until the table fits.
  while (widths.reduce((a, b) => a + b, 0) > budget) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest]! <= 4) break;
    widths[widest]!--;
  }
  const numeric = columns.map(
    (c) => rows.some((row) => isNumber(row[c])) && rows.every((row) => row[c] === null || row[c] === undefined || isNumber(row[c])),
  );
  const cutToWidth = (s: string, i: number) => {
    const w = widths[i]!;
    if (s.length > w) return `${s.slice(0, w - 1)}…`;
    return numeric[i] ? s.padStart(w) : s.padEnd(w);
  };
  const line = (values: readonly string[]) => values.map(cutToWidth).join("  ").trimEnd();
  return [line(names), line(widths.map((w) => "─".repeat(w))), ...cells.map(line)].join("\n");
}

/** A number, or text that reads as one (what a destination without a schema gives back). */
const isNumber = (value: unknown) =>
  typeof value === "number" || typeof value === "bigint" || (typeof value === "string" && NUMERAL.test(value));
const NUMERAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
