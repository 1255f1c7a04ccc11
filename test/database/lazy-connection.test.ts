// The "connect lazily, close once" rules every SQL backend shares (LazyConnection).
import { describe, expect, it } from "vitest";
import { LazyConnection } from "../../src/destination/database/lazy-connection.js";

function counted() {
  const log: string[] = [];
  let n = 0;
  const lazy = new LazyConnection<string>(
    async () => {
      n += 1;
      log.push(`open ${n}`);
      return `c${n}`;
    },
    (connection) => {
      log.push(`end ${connection}`);
    },
  );
  return { lazy, log };
}

describe("LazyConnection", () => {
  it("opens nothing until used, and closing an unused one ends nothing", async () => {
    const { lazy, log } = counted();
    await lazy.close();
    expect(log).toEqual([]);
  });

  it("opens once for concurrent uses, and shares that connection", async () => {
    const { lazy, log } = counted();
    expect(await Promise.all([lazy.get(), lazy.get(), lazy.get()])).toEqual(["c1", "c1", "c1"]);
    expect(log).toEqual(["open 1"]);
  });

  it("ends the connection once, however many closes come, and opens anew on the next use", async () => {
    const { lazy, log } = counted();
    await lazy.get();
    await Promise.all([lazy.close(), lazy.close()]);
    expect(log).toEqual(["open 1", "end c1"]);
    expect(await lazy.get()).toBe("c2");
    await lazy.close();
    expect(log).toEqual(["open 1", "end c1", "open 2", "end c2"]);
  });

  it("keeps a failed opening's error for every use until closed", async () => {
    let attempts = 0;
    const lazy = new LazyConnection<string>(
      () => Promise.reject(new Error(`refused ${++attempts}`)),
      () => undefined,
    );
    await expect(lazy.get()).rejects.toThrow("refused 1");
    await expect(lazy.get()).rejects.toThrow("refused 1");
    await expect(lazy.close()).rejects.toThrow("refused 1");
    await expect(lazy.get()).rejects.toThrow("refused 2");
  });
});
