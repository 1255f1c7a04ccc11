// The fault-injecting TCP proxy of the reliability suite, against a real echo server.
import { once } from "node:events";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy.js";

let echo: Server;
let echoPort: number;

beforeAll(async () => {
  echo = createServer((socket) => {
    socket.on("error", () => undefined);
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
  echoPort = (echo.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((resolve) => echo.close(resolve));
});

/** A client connected through the proxy, collecting what it receives and how it ended. */
async function connect(proxy: TcpProxy): Promise<{ socket: Socket; received: () => string; ended: Promise<string> }> {
  const socket = createConnection({ host: "127.0.0.1", port: proxy.port });
  let text = "";
  socket.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
  const ended = new Promise<string>((resolve) => {
    socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    socket.on("close", () => resolve("closed"));
  });
  await once(socket, "connect");
  return { socket, received: () => text, ended };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await sleep(5);
}

describe("tcp proxy", () => {
  it("forwards both ways, and kill() resets every connection but keeps accepting", async () => {
    const proxy = await startTcpProxy({ host: "127.0.0.1", port: echoPort });
    try {
      const a = await connect(proxy);
      const b = await connect(proxy);
      a.socket.write("hello");
      await until(() => a.received() === "hello");
      await until(() => proxy.open === 2);
      proxy.kill();
      expect(await a.ended).toBe("ECONNRESET");
      expect(await b.ended).toBe("ECONNRESET");
      const c = await connect(proxy);
      c.socket.write("again");
      await until(() => c.received() === "again");
      c.socket.destroy();
      expect(proxy.accepted).toBe(3);
    } finally {
      await proxy.close();
    }
  });

  it("stop() refuses connections until start() listens again on the same port", async () => {
    const proxy = await startTcpProxy({ host: "127.0.0.1", port: echoPort });
    try {
      const a = await connect(proxy);
      await proxy.stop();
      expect(await a.ended).toBe("ECONNRESET");
      const refused = createConnection({ host: "127.0.0.1", port: proxy.port });
      const [error] = (await once(refused, "error")) as [NodeJS.ErrnoException];
      expect(error.code).toBe("ECONNREFUSED");
      await proxy.start();
      const b = await connect(proxy);
      b.socket.write("back");
      await until(() => b.received() === "back");
      b.socket.destroy();
    } finally {
      await proxy.close();
    }
  });

  it("pause() holds every byte, resume() delivers them", async () => {
    const proxy = await startTcpProxy({ host: "127.0.0.1", port: echoPort });
    try {
      const a = await connect(proxy);
      proxy.pause();
      const b = await connect(proxy);
      a.socket.write("held-a");
      b.socket.write("held-b");
      // Nothing can arrive while paused; waiting longer would only make this surer.
      await sleep(100);
      expect([a.received(), b.received()]).toEqual(["", ""]);
      proxy.resume();
      await until(() => a.received() === "held-a" && b.received() === "held-b");
      a.socket.destroy();
      b.socket.destroy();
    } finally {
      await proxy.close();
    }
  });

  it("a target that refuses resets the client's connection", async () => {
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, "127.0.0.1", resolve));
    const port = (dead.address() as { port: number }).port;
    await new Promise((resolve) => dead.close(resolve));
    const proxy = await startTcpProxy({ host: "127.0.0.1", port });
    try {
      const a = await connect(proxy);
      expect(["ECONNRESET", "closed"]).toContain(await a.ended);
    } finally {
      await proxy.close();
    }
  });
});
