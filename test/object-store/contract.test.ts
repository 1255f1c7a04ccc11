import { LocalObjectStoreDestination } from "../../src/destination/index.js";
import { destinationContract, inTempDir } from "../contract/destination.js";

// Object stores hold tables only: the contract checks that anything else is refused.
for (const format of ["parquet", "jsonl", "csv"] as const) {
  destinationContract(
    `LocalObjectStoreDestination (${format})`,
    inTempDir((basePath) => new LocalObjectStoreDestination({ basePath, format })),
    { optOut: { nonTabular: true } },
  );
}
