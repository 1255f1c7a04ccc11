// Shared fixtures of the engine tests: a recording destination, temp folders, day helpers.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as il from "../../src/index.js";

/** One call a RecordingDestination received. */
export interface Recorded {
  readonly op: "write" | "read" | "count";
  readonly context: il.IOContext;
  readonly partition: il.Partition | null;
  readonly data?: unknown;
}

/**
 * A real destination that keeps what it is given in its own map and records every context it
 * receives, so tests can look at IOContext.schema, metadata, table and dataset.
 */
export class RecordingDestination extends il.Destination {
  readonly calls: Recorded[] = [];
  readonly stored = new Map<string, unknown>();

  private keyOf(context: il.IOContext, partition: il.Partition | null): string {
    return `${context.asset.dataset ?? ""}/${context.asset.table}/${partition?.key ?? "*"}`;
  }

  writePartition(context: il.IOContext, partition: il.Partition | null, data: unknown): void {
    this.calls.push({ op: "write", context, partition, data });
    this.stored.set(this.keyOf(context, partition), structuredClone(data));
  }

  readPartition(context: il.IOContext, partition: il.Partition | null): unknown {
    this.calls.push({ op: "read", context, partition });
    const key = this.keyOf(context, partition);
    if (!this.stored.has(key)) throw new il.DataNotFoundError(`nothing stored at ${key}`);
    return structuredClone(this.stored.get(key));
  }

  partitionRowCounts(context: il.IOContext): Record<string, number> {
    this.calls.push({ op: "count", context, partition: null });
    const prefix = `${context.asset.dataset ?? ""}/${context.asset.table}/`;
    const out: Record<string, number> = {};
    for (const [key, value] of this.stored) {
      if (key.startsWith(prefix)) out[key.slice(prefix.length)] = Array.isArray(value) ? value.length : 1;
    }
    return out;
  }

  writes(): Recorded[] {
    return this.calls.filter((c) => c.op === "write");
  }
}

/** A fresh temp folder and its removal. */
export async function tempDir(): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), "interloper-engine-"));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

export const day = (key: string) => new il.TimePartition(key);
export const days = (start: string, end: string) => new il.TimePartitionWindow(start, end);

/** Collects events of a run. */
export function collector(): { events: il.InterloperEvent[]; onEvent: (e: il.InterloperEvent) => void } {
  const events: il.InterloperEvent[] = [];
  return { events, onEvent: (e) => events.push(e) };
}

/** Resolves after a short timer, so concurrent work really overlaps. */
export const tick = (ms = 5) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Records how many calls are in flight at once. */
export function gauge(): { enter: () => void; leave: () => void; readonly max: number; readonly now: number } {
  let now = 0;
  let max = 0;
  return {
    enter() {
      now++;
      max = Math.max(max, now);
    },
    leave() {
      now--;
    },
    get max() {
      return max;
    },
    get now() {
      return now;
    },
  };
}

/** Runs a function and returns the error it throws (fails the test when it does not throw). */
export async function caught(fn: () => unknown): Promise<Error> {
  try {
    await fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected an error, none was thrown");
}
