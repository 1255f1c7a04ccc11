import { describe } from "vitest";
import { S3Destination } from "../../src/destination/index.js";
import { bucketContract } from "./helpers.js";
import { motoAvailable, motoWithBucket, TEST_CONNECTION } from "./moto.js";

describe.skipIf(!motoAvailable())("S3Destination on a moto server", () => {
  const bucket = "contract";
  const moto = motoWithBucket(bucket);
  bucketContract(
    "S3Destination",
    (prefix, format) => new S3Destination({ bucket, prefix, format, connection: { ...TEST_CONNECTION, endpoint: moto().endpoint } }),
  );
});
