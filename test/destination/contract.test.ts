import { CSVDestination, FileDestination, MemoryDestination } from "../../src/destination/index.js";
import { destinationContract, inTempDir } from "../contract/destination.js";

// One line per destination. CSV holds tables only, so it opts out of non-tabular storage and
// the contract checks that it refuses such data instead.
destinationContract(
  "CSVDestination",
  inTempDir((basePath) => new CSVDestination({ basePath })),
  { optOut: { nonTabular: true } },
);
destinationContract(
  "FileDestination",
  inTempDir((basePath) => new FileDestination({ basePath })),
);
destinationContract("MemoryDestination", () => ({ destination: new MemoryDestination(), cleanup: () => MemoryDestination.clear() }));
