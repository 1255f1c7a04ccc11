// A TCP proxy on 127.0.0.1 in front of a real server, to make that server go away on demand
// (the reliability suite's "servers going away"): the shared servers must never be stopped, so
// a test points its destination at the proxy and breaks the proxy instead.
import { createConnection, createServer, type Server, type Socket } from "node:net";

/** A proxy listening on 127.0.0.1:`port`, forwarding to `target`. */
export interface TcpProxy {
  readonly port: number;
  /** Connections accepted so far (a test can wait until the client has connected). */
  readonly accepted: number;
  /** Connections open now. */
  readonly open: number;
  /** Bytes forwarded from clients to the target so far: how far a client's writes have gone. */
  readonly forwarded: number;
  /** Every connection reset at once, both sides (RST where the platform allows): a crash, a cut cable. Keeps accepting. */
  kill(): void;
  /** Stops accepting and resets every connection: the server is down. The port stays reserved for `start()`. */
  stop(): Promise<void>;
  /** Accepts again on the same port. */
  start(): Promise<void>;
  /** Keeps connections and accepts new ones, but forwards no byte either way: a hung server. */
  pause(): void;
  /** Forwards again, the bytes held meanwhile first. */
  resume(): void;
  /** Stops for good. */
  close(): Promise<void>;
}

interface Pair {
  readonly client: Socket;
  readonly server: Socket;
}

/** Starts a proxy to `target` on a free port (or `port`). */
export async function startTcpProxy(target: { host: string; port: number }, port = 0): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let paused = false;
  let accepted = 0;
  let forwarded = 0;
  let server: Server | null = null;

  const reset = (socket: Socket) => {
    // resetAndDestroy sends RST (ECONNRESET on the other side); a socket not yet connected has no handle to reset.
    if (socket.destroyed) return;
    if (typeof socket.resetAndDestroy === "function" && !socket.connecting) socket.resetAndDestroy();
    else socket.destroy();
  };
  const drop = (pair: Pair) => {
    pairs.delete(pair);
    reset(pair.client);
    reset(pair.server);
  };

  const onConnection = (client: Socket) => {
    accepted++;
    const upstream = createConnection({ host: target.host, port: target.port });
    const pair: Pair = { client, server: upstream };
    pairs.add(pair);
    if (paused) {
      client.pause();
      upstream.pause();
    }
    // Data is forwarded by hand rather than piped, so pause() holds it in the kernel buffers
    // and resume() lets it flow; an end on one side ends the other (half-close kept simple).
    const forward = (from: Socket, to: Socket, count: boolean) => {
      from.on("data", (chunk: Buffer) => {
        if (count) forwarded += chunk.length;
        if (!to.destroyed) to.write(chunk);
      });
      from.on("end", () => to.end());
    };
    forward(client, upstream, true);
    forward(upstream, client, false);
    // One side closing ends the other gracefully; one side failing resets the other, as a
    // real server's crash would be seen by the client.
    const link = (socket: Socket, other: Socket) => {
      socket.on("error", () => drop(pair));
      socket.on("close", () => {
        if (other.destroyed) pairs.delete(pair);
        else other.end();
      });
    };
    link(client, upstream);
    link(upstream, client);
  };

  const listen = (at: number) =>
    new Promise<Server>((resolve, reject) => {
      const s = createServer(onConnection);
      s.once("error", reject);
      s.listen(at, "127.0.0.1", () => resolve(s));
    });

  server = await listen(port);
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("tcp proxy: no address");
  const bound = address.port;

  const killAll = () => {
    for (const pair of [...pairs]) drop(pair);
  };
  const stopListening = async () => {
    const s = server;
    server = null;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };

  return {
    port: bound,
    get accepted() {
      return accepted;
    },
    get open() {
      return pairs.size;
    },
    get forwarded() {
      return forwarded;
    },
    kill: killAll,
    async stop() {
      const closing = stopListening();
      killAll();
      await closing;
    },
    async start() {
      if (server) return;
      server = await listen(bound);
    },
    pause() {
      paused = true;
      for (const { client, server: upstream } of pairs) {
        client.pause();
        upstream.pause();
      }
    },
    resume() {
      paused = false;
      for (const { client, server: upstream } of pairs) {
        client.resume();
        upstream.resume();
      }
    },
    async close() {
      const closing = stopListening();
      killAll();
      await closing;
    },
  };
}
