// A real S3 API server for the tests: moto's standalone server on a free local port, started
// by a test file's beforeAll and stopped in its afterAll.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { S3Client, CreateBucketCommand } from "@aws-sdk/client-s3";
import { afterAll, beforeAll } from "vitest";
import { serviceAvailable } from "../support/services.js";

/** Whether moto's server can run here; prints the one skip line when it cannot. */
export function motoAvailable(): boolean {
  const probe = spawnSync("python3", ["-c", "import moto.server"], { stdio: "ignore" });
  return serviceAvailable("S3 (moto server)", probe.status === 0, "install Python 3 and `pip install 'moto[server]'`");
}

/** A running moto server. */
export interface Moto {
  readonly endpoint: string;
  /** A new empty bucket. */
  createBucket(name: string): Promise<void>;
  stop(): Promise<void>;
}

export const TEST_CONNECTION = {
  region: "us-east-1",
  forcePathStyle: true,
  credentials: { accessKeyId: "test", secretAccessKey: "test" },
} as const;

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolvePort(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Starts moto and waits until it answers HTTP. */
export async function startMoto(): Promise<Moto> {
  const port = await freePort();
  const child: ChildProcess = spawn("python3", ["-m", "moto.server", "-H", "127.0.0.1", "-p", String(port)], { stdio: "ignore" });
  const endpoint = `http://127.0.0.1:${port}`;
  let exited = false;
  child.once("exit", () => (exited = true));
  for (let attempt = 0; ; attempt++) {
    if (exited) throw new Error(`moto server exited before answering on ${endpoint}`);
    const ok = await fetch(endpoint).then(
      () => true,
      () => false,
    );
    if (ok) break;
    if (attempt > 300) {
      child.kill();
      throw new Error(`moto server did not answer on ${endpoint}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const client = new S3Client({ ...TEST_CONNECTION, endpoint });
  return {
    endpoint,
    createBucket: async (name) => {
      await client.send(new CreateBucketCommand({ Bucket: name }));
    },
    stop: async () => {
      client.destroy();
      if (exited) return;
      const gone = new Promise((r) => child.once("exit", r));
      child.kill();
      await gone;
    },
  };
}

/**
 * A moto server holding `bucket`, started before the enclosing describe block's tests and
 * stopped after them; call the returned function from a test for the running server.
 */
export function motoWithBucket(bucket: string): () => Moto {
  let moto: Moto | undefined;
  beforeAll(async () => {
    moto = await startMoto();
    await moto.createBucket(bucket);
  }, 60_000);
  afterAll(async () => {
    await moto?.stop();
  });
  return () => moto!;
}
