// The whole destination contract for GCSDestination, through the real client
// (@google-cloud/storage) against the JSON API server of test/support/gcs-server.ts.
import { afterAll, beforeAll, describe } from "vitest";
import { GCSDestination } from "../../src/destination/index.js";
import { type GcsServer, startGcsServer } from "../support/gcs-server.js";
import { bucketContract } from "./helpers.js";

describe("GCSDestination on the test JSON API server", () => {
  let server: GcsServer;
  const bucket = "contract";

  beforeAll(async () => {
    server = await startGcsServer();
    server.createBucket(bucket);
  });
  afterAll(async () => {
    await server?.stop();
  });

  bucketContract(
    "GCSDestination",
    (prefix, format) => new GCSDestination({ bucket, prefix, format, connection: { projectId: "test", apiEndpoint: server.endpoint } }),
  );
});
