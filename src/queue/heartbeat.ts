import { extendExpiry } from "./boss-internals.js";
import type { QueueConnection } from "./queue-connection.js";

/**
 * Extends the expiry of the running jobs every third of the shortest one (at least every
 * 10 s), so that a partition that runs long is not taken for a dead worker's.
 */
export function startHeartbeat(
  connection: QueueConnection,
  jobs: () => Array<{ id: string; attempt: number; expire: number }>,
): { now(): void; stop(): void } {
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let beating = false;
  const beat = async () => {
    if (beating) return;
    beating = true;
    const current = jobs();
    await extendExpiry(connection, current).catch(() => undefined);
    beating = false;
    if (stopped) return;
    const shortest = Math.min(30, ...current.map((j) => j.expire));
    timer = setTimeout(() => void beat(), Math.max(500, (shortest * 1000) / 3));
  };
  timer = setTimeout(() => void beat(), 500);
  return {
    now() {
      if (timer) clearTimeout(timer);
      void beat();
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
