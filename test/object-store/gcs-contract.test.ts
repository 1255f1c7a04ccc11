// The whole destination contract for GCSDestination, through the real client
// (@google-cloud/storage) against the JSON API server of test/support/gcs-server.ts.
import { afterAll, beforeAll, describe } from "vitest";
import { GCSDestination } from "../../src/destination/index.js";
import { type GcsServer, startGcsServer } from "../support/gcs-server.js";
import { destinationContract } from "../contract/destination.js";

describe("GCSDestination on the test JSON API server", () => {
  let server: GcsServer;
  const bucket = "contract";
  let run = 0;

  beforeAll(async () => {
    server = await startGcsServer();
    server.createBucket(bucket);
  });
  afterAll(async () => {
    await server?.stop();
  });

  // Every test gets a prefix of its own, which is an empty store.
  for (const format of ["parquet", "jsonl", "csv"] as const) {
    destinationContract(
      `GCSDestination (${format})`,
      () => ({
        destination: new GCSDestination({ bucket, prefix: `run-${++run}`, format, connection: { projectId: "test", apiEndpoint: server.endpoint } }),
      }),
      { optOut: { nonTabular: true } },
    );
  }
});
