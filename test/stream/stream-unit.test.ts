// Unit tests of the stream plumbing: what counts as a stream, how a stream becomes batches,
// and the bounded channel that feeds per-partition writers.
import { describe, expect, it } from "vitest";
import { Channel } from "../../src/destination/stream/channel.js";
import { batchesOf, collectRows, isRowStream, type Row } from "../../src/representation/index.js";

/** Drains an async iterable into an array. */
async function drain<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Lets every pending microtask and one macrotask run, so awaiting code makes whatever progress it can. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

const rowsOf = (n: number, from = 0): Row[] => Array.from({ length: n }, (_, i) => ({ id: from + i }));

describe("isRowStream", () => {
  it("does not take values for streams: arrays, Maps, Sets, strings, typed arrays, plain objects, primitives", () => {
    const values: unknown[] = [
      [],
      [{ id: 1 }],
      new Map([["a", 1]]),
      new Set([{ id: 1 }]),
      "a string",
      new String("boxed"),
      new Uint8Array(3),
      new Float64Array(2),
      { id: 1 },
      { columns: { id: [1, 2] } },
      null,
      undefined,
      42,
      true,
      Symbol("s"),
      () => [{ id: 1 }],
      new Date(Date.UTC(2025, 0, 1)),
    ];
    for (const value of values)
      expect(isRowStream(value), String(typeof value === "symbol" ? "symbol" : Object.prototype.toString.call(value))).toBe(false);
  });

  it("takes sync generators, async generators and async iterables for streams", () => {
    function* sync() {
      yield { id: 1 };
    }
    async function* asyncGen() {
      yield [{ id: 1 }];
    }
    const asyncIterable: AsyncIterable<Row> = {
      [Symbol.asyncIterator]() {
        let done = false;
        return {
          next: async () => {
            if (done) return { done: true, value: undefined };
            done = true;
            return { done: false, value: { id: 1 } };
          },
        };
      },
    };
    expect(isRowStream(sync())).toBe(true);
    expect(isRowStream(asyncGen())).toBe(true);
    expect(isRowStream(asyncIterable)).toBe(true);
    // An iterator of an array (not the array itself) is a stream of its items.
    expect(isRowStream([{ id: 1 }][Symbol.iterator]())).toBe(true);
  });

  it("does not consume the stream it looks at", async () => {
    function* sync() {
      yield { id: 1 };
      yield { id: 2 };
    }
    const stream = sync();
    expect(isRowStream(stream)).toBe(true);
    expect(await drain(batchesOf(stream))).toEqual([[{ id: 1 }, { id: 2 }]]);
  });
});

describe("batchesOf", () => {
  it("groups single rows into batches of the given size, the last one shorter", async () => {
    function* rows() {
      yield* rowsOf(7);
    }
    const batches = await drain(batchesOf(rows(), 3));
    expect(batches.map((b) => b.length)).toEqual([3, 3, 1]);
    expect(batches.flat()).toEqual(rowsOf(7));
  });

  it("groups single rows into batches of 5,000 by default", async () => {
    async function* rows() {
      for (let i = 0; i < 12_001; i++) yield { id: i };
    }
    const batches = await drain(batchesOf(rows()));
    expect(batches.map((b) => b.length)).toEqual([5_000, 5_000, 2_001]);
    expect(batches.flat().map((r) => r["id"])).toEqual(Array.from({ length: 12_001 }, (_, i) => i));
  });

  it("passes batches through as they are (the same arrays, any size)", async () => {
    const a = rowsOf(10_000);
    const b = rowsOf(2, 10_000);
    async function* batches() {
      yield a;
      yield b;
    }
    const out = await drain(batchesOf(batches(), 3));
    expect(out).toHaveLength(2);
    expect(out[0]).toBe(a);
    expect(out[1]).toBe(b);
  });

  it("keeps order when single rows and batches are interleaved, flushing pending rows before a batch", async () => {
    function* mixed(): Generator<Row | Row[]> {
      yield { id: 0 };
      yield { id: 1 };
      yield [{ id: 2 }, { id: 3 }];
      yield { id: 4 };
      yield [];
      yield [{ id: 5 }];
      yield { id: 6 };
    }
    const out = await drain(batchesOf(mixed(), 10));
    expect(out).toEqual([[{ id: 0 }, { id: 1 }], [{ id: 2 }, { id: 3 }], [{ id: 4 }], [{ id: 5 }], [{ id: 6 }]]);
  });

  it("yields nothing for an empty stream, or a stream of empty batches", async () => {
    function* none(): Generator<Row> {}
    async function* empties(): AsyncGenerator<Row[]> {
      yield [];
      yield [];
    }
    expect(await drain(batchesOf(none()))).toEqual([]);
    expect(await drain(batchesOf(empties()))).toEqual([]);
  });

  it("passes an error of the stream through to the consumer", async () => {
    async function* failing(): AsyncGenerator<Row> {
      yield { id: 1 };
      throw new Error("source went away");
    }
    await expect(drain(batchesOf(failing()))).rejects.toThrow("source went away");
  });

  it("pulls from the source lazily, one batch ahead at most", async () => {
    let pulled = 0;
    function* rows() {
      for (let i = 0; i < 100; i++) {
        pulled++;
        yield { id: i };
      }
    }
    const it = batchesOf(rows(), 10)[Symbol.asyncIterator]();
    const first = await it.next();
    expect(first.value).toHaveLength(10);
    expect(pulled).toBe(10);
    await it.return?.(undefined);
  });
});

describe("collectRows", () => {
  it("flattens batches into one array, in order", async () => {
    async function* batches() {
      yield rowsOf(2);
      yield [];
      yield rowsOf(3, 2);
    }
    expect(await collectRows(batches())).toEqual(rowsOf(5));
  });

  it("collects an empty stream to an empty array", async () => {
    async function* none(): AsyncGenerator<Row[]> {}
    expect(await collectRows(none())).toEqual([]);
  });
});

describe("Channel", () => {
  it("delivers pushed items in order and ends iteration on close()", async () => {
    const channel = new Channel<number>(2);
    const consumed = drain(channel);
    for (let i = 0; i < 10; i++) await channel.push(i);
    channel.close();
    expect(await consumed).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("delivers what was pushed before close() even when the consumer starts afterwards", async () => {
    const channel = new Channel<string>(4);
    await channel.push("a");
    await channel.push("b");
    channel.close();
    expect(await drain(channel)).toEqual(["a", "b"]);
  });

  it("ends at once when closed with nothing pushed", async () => {
    const channel = new Channel<number>();
    channel.close();
    expect(await drain(channel)).toEqual([]);
  });

  it("is bounded: a producer awaits push() while the channel is full, until the consumer takes an item", async () => {
    const channel = new Channel<number>(2);
    await channel.push(1);
    await channel.push(2);
    let third = false;
    const pushing = channel.push(3).then(() => (third = true));
    await settle();
    await settle();
    expect(third).toBe(false);

    const consumer = channel[Symbol.asyncIterator]();
    expect(await consumer.next()).toEqual({ done: false, value: 1 });
    await pushing;
    expect(third).toBe(true);
    channel.close();
    expect(await consumer.next()).toEqual({ done: false, value: 2 });
    expect(await consumer.next()).toEqual({ done: false, value: 3 });
    expect((await consumer.next()).done).toBe(true);
  });

  it("never holds more than its capacity however fast the producer is", async () => {
    const capacity = 3;
    const channel = new Channel<number>(capacity);
    let pushed = 0;
    let consumed = 0;
    let maxAhead = 0;
    const producer = (async () => {
      for (let i = 0; i < 200; i++) {
        await channel.push(i);
        pushed++;
        maxAhead = Math.max(maxAhead, pushed - consumed);
      }
      channel.close();
    })();
    const seen: number[] = [];
    for await (const item of channel) {
      consumed++;
      seen.push(item);
      if (item % 7 === 0) await settle();
    }
    await producer;
    expect(seen).toEqual(Array.from({ length: 200 }, (_, i) => i));
    // Pushed but not yet taken: the items in the queue plus at most the one being handed over.
    expect(maxAhead).toBeLessThanOrEqual(capacity + 1);
  });

  it("fail() ends a waiting consumer with the error", async () => {
    const channel = new Channel<number>();
    const consumed = drain(channel);
    await channel.push(1);
    await settle();
    const error = new Error("routing failed");
    channel.fail(error);
    await expect(consumed).rejects.toBe(error);
  });

  it("fail() ends the consumer with the error even when items are still queued", async () => {
    const channel = new Channel<number>(4);
    await channel.push(1);
    await channel.push(2);
    const error = new Error("stop");
    channel.fail(error);
    await expect(drain(channel)).rejects.toBe(error);
  });

  it("fail() releases a producer waiting on a full channel with the error, and later pushes fail too", async () => {
    const channel = new Channel<number>(1);
    await channel.push(1);
    const waiting = channel.push(2);
    await settle();
    const error = new Error("writer gone");
    channel.fail(error);
    await expect(waiting).rejects.toBe(error);
    await expect(channel.push(3)).rejects.toBe(error);
  });

  it("keeps the first error when failed twice", async () => {
    const channel = new Channel<number>();
    const first = new Error("first");
    channel.fail(first);
    channel.fail(new Error("second"));
    await expect(drain(channel)).rejects.toBe(first);
  });
});
