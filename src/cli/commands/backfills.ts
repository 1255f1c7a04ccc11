import { ConfigError } from "../../errors.js";
import {
  backfillProgress,
  cancelBackfill,
  checkBackfillId,
  listBackfills,
  QueueConnection,
  retryFailed,
  type BackfillProgress,
  type SlotProgress,
} from "../../queue/index.js";
import { count } from "../../text/english.js";
import type { GlobalOptions } from "../main.js";
import { printable, terminalJson } from "../printable.js";
import { queueArgument, requireQueueUrl, type QueueFlags } from "./queue-flags.js";

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
  // Input is checked before the queue is touched; a queue that does not exist is not created.
  if (id) checkBackfillId(id);
  const connection = await QueueConnection.open({ url }, { existing: true });
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
      err(`Canceled backfill ${id}: ${count(canceled, "job")} will not run (running ones finish); enqueuing it again starts it over`);
    }
    if (flags.retryFailed) {
      const retried = await retryFailed(connection, id);
      err(retried > 0 ? `Sent ${count(retried, "failed job")} of backfill ${id} back to the queue` : `No failed job in backfill ${id}`);
    }
    const progress = await backfillProgress(connection, id);
    if (flags.json) out(terminalJson(JSON.stringify(progress)));
    else for (const line of detailLines(progress, queueArgument(url))) out(line);
    return 0;
  } finally {
    await connection.close();
  }
}

/** "6f1c… 2026-01-01..2026-12-31 running: 120/365 completed, 4 running, 2 failed, …" */
function summaryLine(b: BackfillProgress): string {
  return `${b.id}  ${b.window ?? "-"}  ${statusText(b)}  (created ${b.createdAt})`;
}

/** "completed: 177/177", "running: 120/365 completed, 4 running", "stopped by 1 failed job: 27/29 completed, 1 failed, 1 blocked". */
function statusText(b: BackfillProgress): string {
  const c = b.counts;
  const parts = [`${c.completed}/${b.total} completed`];
  for (const state of ["running", "queued", "waiting", "failed", "blocked", "canceled"] as const)
    if (c[state] > 0) parts.push(`${c[state]} ${state}`);
  if (b.status === "completed") return `completed: ${c.completed}/${b.total}`;
  if (b.status === "stopped") return `stopped by ${count(c.failed, "failed job")}: ${parts.join(", ")}`;
  return `${b.status}: ${parts.join(", ")}`;
}

/** The terminal view of one backfill: its status, then what runs where, what failed and why, what is blocked by what, and what to do. */
function detailLines(b: BackfillProgress, queue: { argument: string; note: string }): string[] {
  const lines = [`Backfill ${b.id} (${b.window ?? "no window"}, ${b.project})`, `  ${statusText(b)}`];
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
  if (blocked.length)
    lines.push("Blocked (each waits on jobs that cannot complete):", ...blocked.map((s) => `  ${blockedLine(b, s, name)}`));
  const command = (flags: string) => `interloper backfills ${b.id}${flags} ${queue.argument}${queue.note}`;
  if (failed.length && b.state === "active") lines.push(`Fix the cause, then run: ${command(" --retry-failed")}`);
  else if (b.status === "running" && b.counts.queued > 0 && running.length === 0)
    lines.push(`Nothing of it is running: start workers with: interloper worker ${queue.argument}${queue.note}`);
  return lines;
}

/** "2026-02 shop.monthly: waits on 2026-02-14 shop.orders (failed)" */
function blockedLine(b: BackfillProgress, slot: SlotProgress, name: (s: SlotProgress) => string): string {
  const parents = (slot.blockedBy ?? []).flatMap((id) => b.slots.filter((s) => s.slot === id));
  const shown = parents.slice(0, 3).map((p) => `${name(p)} (${p.state})`);
  const more = parents.length > 3 ? ` and ${parents.length - 3} more` : "";
  return `${name(slot)}: waits on ${shown.join(", ")}${more}`;
}
