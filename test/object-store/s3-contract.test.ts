import { afterAll, beforeAll, describe } from "vitest";
import { S3Destination } from "../../src/destination/index.js";
import { destinationContract } from "../contract/destination.js";
import { type Moto, motoAvailable, startMoto, TEST_CONNECTION } from "./moto.js";

const available = motoAvailable();

describe.skipIf(!available)("S3Destination on a moto server", () => {
  let moto: Moto;
  const bucket = "contract";
  let run = 0;

  beforeAll(async () => {
    moto = await startMoto();
    await moto.createBucket(bucket);
  }, 60_000);
  afterAll(async () => {
    await moto?.stop();
  });

  // Every test gets a prefix of its own, which is an empty store.
  for (const format of ["parquet", "jsonl", "csv"] as const) {
    destinationContract(
      `S3Destination (${format})`,
      () => ({
        destination: new S3Destination({ bucket, prefix: `run-${++run}`, format, connection: { ...TEST_CONNECTION, endpoint: moto.endpoint } }),
      }),
      { optOut: { nonTabular: true } },
    );
  }
});
