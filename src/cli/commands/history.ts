import type { Materialization } from "../../api/session/index.js";
import type { CheckResult } from "../../destination/index.js";
import { openCommandSession } from "../command-session.js";
import type { GlobalOptions } from "../main.js";
import { printableLines, terminalJson } from "../printable.js";
import { columnLines } from "../columns.js";
import { count, formatCount } from "../../text/english.js";

/** Flags of `interloper history`. */
export interface HistoryFlags extends GlobalOptions {
  readonly partition?: string;
  readonly limit?: number;
  readonly json?: boolean;
}

/** `interloper history ASSET`: the records of the asset's writes, newest first; returns the exit code. */
export async function historyCommand(key: string, flags: HistoryFlags): Promise<number> {
  const session = await openCommandSession(flags);
  const records = await session.history(key, flags.partition ?? null, { limit: flags.limit ?? 10 });
  if (flags.json) {
    process.stdout.write(`${terminalJson(JSON.stringify(records))}\n`);
    return 0;
  }
  const asset = session.project.dag.find(key)!;
  if (records.length === 0) {
    const keeps = asset.primaryDestination?.materializationHistory !== undefined;
    const what = flags.partition !== undefined ? `partition ${flags.partition} of ${asset.qualifiedKey}` : asset.qualifiedKey;
    process.stdout.write(
      `${printableLines([
        keeps
          ? `no write of ${what} is on record (written before records were kept, or never)`
          : `${asset.destinationKeys[0]} (${asset.primaryDestination!.displayName}) keeps no records of writes: the provenance of ${asset.qualifiedKey} is unknown`,
      ])}\n`,
    );
    return 0;
  }
  process.stdout.write(`${printableLines(historyTable(records))}\n`);
  return 0;
}

/** One line per write, in columns, and under each the upstream partitions it read and its checks' verdicts. */
export function historyTable(records: readonly Materialization[]): string[] {
  const rows = records.map((r) => [
    r.partition ?? "(whole)",
    shortTime(r.endedAt),
    seconds(r),
    r.rows === null ? "-" : formatCount(r.rows),
    r.codeVersion ?? "-",
    r.backfillId ? `backfill ${short(r.backfillId)}` : `run ${short(r.runId)}`,
    short(r.id),
  ]);
  const [header, ...lines] = columnLines(["partition", "written (UTC)", "took", "rows", "code", "by", "id"], rows, new Set([3]));
  // Under each write, what it read and how its checks judged it.
  return [
    header!,
    ...records.flatMap((record, i) => [
      lines[i]!,
      ...(record.upstream.length > 0 ? [`    read ${upstreamText(record)}`] : []),
      ...(record.checks && record.checks.length > 0 ? [`    checks ${checksText(record.checks)}`] : []),
    ]),
  ];
}

/**
 * The verdicts a write was judged by: each failed check with its severity and message (only a
 * warn check can fail on a write that was kept), then how many passed: `range(amount, min 0)
 * failed (warn): 1 row of 3 with amount outside min 0; 2 passed`, or `3 passed`.
 */
function checksText(checks: readonly CheckResult[]): string {
  const failed = checks.filter((c) => !c.passed).map((c) => `${c.name} failed (${c.severity}): ${c.message}`);
  const passed = checks.length - failed.length;
  return [...failed, ...(passed > 0 ? [`${formatCount(passed)} passed`] : [])].join("; ");
}

/** The upstream partitions a write read, grouped by asset: `shop.orders 2026-01-15 (3f2a9c1e)`, a long list cut short. */
function upstreamText(record: Materialization): string {
  const shown = record.upstream.slice(0, 4).map((u) => {
    const id = u.materialization ? short(u.materialization) : "unknown";
    return `${u.asset}${u.partition !== null ? ` ${u.partition}` : ""} (${id})`;
  });
  const rest = record.upstream.length - shown.length;
  return `${shown.join(", ")}${rest > 0 ? `, and ${count(rest, "more partition")}` : ""}`;
}

const short = (id: string) => id.slice(0, 8);
const shortTime = (iso: string) =>
  iso
    .replace("T", " ")
    .replace(/\.\d+Z$/, "")
    .replace(/Z$/, "");

function seconds(record: Materialization): string {
  const ms = Date.parse(record.endedAt) - Date.parse(record.startedAt);
  return ms < 1000 ? `${Math.max(0, ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
