import { ConfigError } from "../../errors.js";
import {
  backfillProgress,
  cancelBackfill,
  listBackfills,
  QueueConnection,
  retryFailed,
  type BackfillProgress,
  type SlotProgress,
} from "../../queue/index.js";
import { count } from "../../text/english.js";
import type { GlobalOptions } from "../main.js";
import { printable, terminalJson } from "../printable.js";
import { requireQueueUrl, type QueueFlags } from "./queue-flags.js";

/** Flags of `interloper backfills`. */
export interface BackfillsFlags extends GlobalOptions, QueueFlags {
  readonly json?: boolean;
  readonly retryFailed?: boolean;
  readonly cancel?: boolean;
}

const out = (line: string) => process.stdout.write(`${printable(line)}\n`);
const err = (line: string) => process.stderr.write(`${printable(line)}\n`);

/** `interloper backfills [ID]`: progress of the queue's backfills, or acts on one; returns the exit code. */
export async function backfillsCommand(id: string | undefined, flags: BackfillsFlags): Promise<number> {
  const url = requireQueueUrl(flags, "interloper backfills");
  if ((flags.retryFailed || flags.cancel) && !id)
    throw new ConfigError(`${flags.cancel ? "--cancel" : "--retry-failed"} needs a backfill id`);
  if (flags.retryFailed && flags.cancel) throw new ConfigError("--retry-failed and --cancel cannot be combined");
  const connection = await QueueConnection.open({ url });
  try {
    if (!id) {
      const all = await listBackfills(connection);
      if (flags.json) out(terminalJson(JSON.stringify(all.map(({ slots: _slots, ...rest }) => rest))));
      else if (all.length === 0) err(`No backfill on the queue at ${connection.server}.`);
      else for (const backfill of all) out(summaryLine(backfill));
      return 0;
    }
    if (flags.cancel) {
      const canceled = await cancelBackfill(connection, id);
      err(`Canceled backfill ${id}: ${count(canceled, "job")} will not run (running ones finish)`);
    }
    if (flags.retryFailed) {
      const retried = await retryFailed(connection, id);
      err(retried > 0 ? `Sent ${count(retried, "failed job")} of backfill ${id} back to the queue` : `No failed job in backfill ${id}`);
    }
    const progress = await backfillProgress(connection, id);
    if (flags.json) out(terminalJson(JSON.stringify(progress)));
    else for (const line of detailLines(progress)) out(line);
    return 0;
  } finally {
    await connection.close();
  }
}

/** "6f1c… 2026-01-01..2026-12-31 active: 120/365 completed, 4 running, 2 failed, …" */
function summaryLine(b: BackfillProgress): string {
  return `${b.id}  ${b.window ?? "-"}  ${b.state}: ${countsText(b)}  (created ${b.createdAt})`;
}

function countsText(b: BackfillProgress): string {
  const c = b.counts;
  const parts = [`${c.completed}/${b.total} completed`];
  for (const state of ["running", "queued", "waiting", "failed", "blocked", "canceled"] as const)
    if (c[state] > 0) parts.push(`${c[state]} ${state}`);
  return parts.join(", ");
}

/** The terminal view of one backfill: its counts, then what runs where, what failed and why, what is blocked. */
function detailLines(b: BackfillProgress): string[] {
  const lines = [`Backfill ${b.id} (${b.window ?? "no window"}, ${b.project}): ${b.state}`, `  ${countsText(b)}`];
  const name = (s: SlotProgress) => `${s.partition ?? "(unpartitioned)"} ${s.assets.join(", ")}`;
  const running = b.slots.filter((s) => s.state === "running");
  if (running.length) lines.push("Running:", ...running.map((s) => `  ${name(s)} on ${s.worker ?? "?"} since ${s.startedAt ?? "?"}`));
  const failed = b.slots.filter((s) => s.state === "failed");
  if (failed.length)
    lines.push(
      "Failed:",
      ...failed.map((s) => `  ${name(s)} after ${count(s.attempts, "attempt")}: ${s.error?.message ?? "no error recorded"}`),
    );
  const retrying = b.slots.filter((s) => s.state === "queued" && s.error);
  if (retrying.length) lines.push("Retrying:", ...retrying.map((s) => `  ${name(s)}: ${s.error!.message}`));
  const blocked = b.slots.filter((s) => s.state === "blocked");
  if (blocked.length) lines.push(`Blocked by a failure: ${blocked.map(name).join("; ")}`);
  if (failed.length && b.state === "active") lines.push(`Fix the cause, then: interloper backfills ${b.id} --retry-failed`);
  return lines;
}
