// The parent's side of count-writer.mjs: a real child process, through the built package, that
// writes one partition each time it is asked. The ledger and row-count race tests start several.
import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

const WRITER = fileURLToPath(new URL("./count-writer.mjs", import.meta.url));

/** A writer process; `write` resolves once its partition is written, and rejects with the child's error or stderr. */
export interface CountWriter {
  write(key: string): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a writer of `kind` (csv, file or jsonl) under `base`, whose every write holds `rows`; resolves once it is ready. */
export async function startCountWriter(kind: string, base: string, rows: readonly object[], durable: boolean): Promise<CountWriter> {
  const child: ChildProcess = fork(WRITER, [kind, base, JSON.stringify(rows), String(durable)], {
    stdio: ["ignore", "ignore", "pipe", "ipc"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = once(child, "exit");
  const next = () =>
    Promise.race([
      once(child, "message").then(([message]) => message as { ready?: true; key?: string; error?: string }),
      exited.then(() => Promise.reject(new Error(`writer exited: ${stderr}`))),
    ]);
  await next();
  return {
    async write(key) {
      const reply = next();
      child.send({ key });
      const message = await reply;
      if (message.error) throw new Error(message.error);
    },
    async stop() {
      child.kill();
      await exited;
    },
  };
}

/** The key of day `i` counted from 2020-01-01, the writers' first partition. */
export function day(i: number): string {
  return new Date(Date.UTC(2020, 0, 1 + i)).toISOString().slice(0, 10);
}
