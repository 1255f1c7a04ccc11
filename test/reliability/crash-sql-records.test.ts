// Issue 34, rule 1 on the SQL destinations: a writer process (provenance-writer.mjs, through the
// built package) killed with SIGKILL at random moments, mid-write or between writes, leaves each
// stored partition with the record of the data that committed, and no record without its data
// nor data without its record: the record is written in the data's transaction. On SQLite,
// PostgreSQL and MariaDB (skipped, with the reason printed, when a server is absent).
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { MYSQL_CONNECTION, PG_CONNECTION } from "../database/servers.js";
import { cleanUp, contextOf, daily, days, ENGINES, places, sql } from "../database/provenance-places.js";
import { ensureBuilt } from "./helpers.js";

/** The writer process killed at random moments, and how many times per engine. */
const WRITER = fileURLToPath(new URL("./provenance-writer.mjs", import.meta.url));
const KILLS = 6;

afterEach(cleanUp);

describe.each(ENGINES)("$name: a writer process killed with SIGKILL at random moments", (engine) => {
  beforeAll(ensureBuilt, 180_000);

  it("leaves every stored partition with the record of its data, or none", async (t) => {
    if (!(await engine.available())) return t.skip(`${engine.name} is not available`);
    const place = await engine.place();
    places.push(place);
    const destination = place.destination();
    const asset = { key: "shop.orders", table: "orders", dataset: place.dataset, partitioning: daily };
    const where =
      engine.name === "SQLite"
        ? sql(destination).location
        : JSON.stringify(engine.name === "PostgreSQL" ? PG_CONNECTION : MYSQL_CONNECTION);
    const kind = { SQLite: "sqlite", PostgreSQL: "postgres", MariaDB: "mariadb" }[engine.name]!;
    for (let kill = 0; kill < KILLS; kill++) {
      const child = fork(WRITER, [kind, where, place.dataset], { stdio: ["ignore", "ignore", "pipe", "ipc"] });
      let stderr = "";
      child.stderr!.on("data", (chunk) => (stderr += String(chunk)));
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
      const ready = new Promise((resolve) => child.on("message", resolve));
      await Promise.race([ready, exited]);
      expect(stderr).toBe("");
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 300));
      child.kill("SIGKILL");
      expect(await exited).toBe("SIGKILL");
      // A server rolls back the killed client's transaction once it sees the connection gone.
      const records = await destination.materializations(contextOf(asset, null));
      const counts = await destination.partitionRowCounts(contextOf(asset, null));
      expect(Object.keys(records).sort()).toEqual(Object.keys(counts).sort());
      for (const [day, record] of Object.entries(records)) {
        const stored = (await destination.read(contextOf(asset, days(day), "reader", [], null))) as { writer: string }[];
        expect(new Set(stored.map((row) => row.writer))).toEqual(new Set([record.runId]));
        expect(stored).toHaveLength(record.rows!);
      }
    }
  }, 120_000);
});
