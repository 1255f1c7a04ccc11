// Issue 17 item 6: S3Destination drops every object of an asset (its metadata goes with each
// object), with one listing and DeleteObjects, on a moto server; a sibling whose name the
// asset's is a prefix of, and another asset's objects under its prefix, stay.
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { IOContext, S3Destination, type AssetRef } from "../../src/destination/index.js";
import { DataNotFoundError } from "../../src/errors.js";
import { days, orders } from "./helpers.js";
import { motoAvailable, motoWithBucket, TEST_CONNECTION } from "./moto.js";

const available = motoAvailable();
const ordersDaily: AssetRef = { ...orders, key: "shop.orders_daily", table: "orders_daily" };
// No dataset: its prefix `p/shop/` holds the dataset shop's tables too.
const shopAsset: AssetRef = { key: "shop", table: "shop", dataset: null, partitioning: null };
const ctx = (asset: AssetRef, window: ReturnType<typeof days> | null = null) =>
  new IOContext({ asset, window, schema: null, metadata: { runId: "t" } });
const rows = (window: ReturnType<typeof days>) => window.partitions.map((p, i) => ({ date: p.key, n: i }));

describe.skipIf(!available)("S3Destination drops an asset", () => {
  const bucket = "drops";
  const moto = motoWithBucket(bucket);

  it("every object under the asset's prefix, nothing of its siblings", async () => {
    const connection = { ...TEST_CONNECTION, endpoint: moto().endpoint };
    const dest = new S3Destination({ bucket, prefix: "p", format: "jsonl", connection });
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-03")), rows(days("2026-01-01", "2026-01-03")));
    await dest.write(ctx(ordersDaily, days("2026-01-01", "2026-01-02")), rows(days("2026-01-01", "2026-01-02")));
    await dest.write(ctx(shopAsset), [{ n: 1 }]);
    expect(dest.missingDropHook()).toBeNull();
    expect(await dest.describeDrop(ctx(orders))).toEqual({
      what: `objects under s3://${bucket}/p/shop/orders/`,
      partitions: 3,
      exists: true,
    });

    await dest.dropAsset!(ctx(orders));
    const client = new S3Client(connection);
    try {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
      const keys = (listed.Contents ?? []).map((o) => o.Key!).sort();
      // The records and history of the asset went with it; its siblings' stay.
      expect(keys.filter((key) => key.includes("/.materializations/orders/"))).toEqual([]);
      expect(keys.filter((key) => key.includes("/.materializations/orders_daily/"))).toHaveLength(2);
      expect(keys.filter((key) => !key.includes("/.materializations/"))).toEqual([
        "p/shop/data.jsonl",
        "p/shop/orders_daily/date=2026-01-01/data.jsonl",
        "p/shop/orders_daily/date=2026-01-02/data.jsonl",
      ]);
    } finally {
      client.destroy();
    }
    expect(await dest.partitionRowCounts(ctx(orders))).toEqual({});
    await expect(dest.read(ctx(orders, days("2026-01-01", "2026-01-01")))).rejects.toThrow(DataNotFoundError);
    expect(await dest.describeDrop(ctx(orders))).toMatchObject({ partitions: 0, exists: false });
    expect(await dest.partitionRowCounts(ctx(ordersDaily))).toEqual({ "2026-01-01": 1, "2026-01-02": 1 });

    await dest.dropAsset!(ctx(shopAsset));
    await expect(dest.read(ctx(shopAsset))).rejects.toThrow(DataNotFoundError);
    expect(await dest.partitionRowCounts(ctx(ordersDaily))).toEqual({ "2026-01-01": 1, "2026-01-02": 1 });
  });
});
