import { SQLiteDestination } from "../../src/destination/database/index.js";
import { destinationContract } from "../contract/destination.js";

// A fresh in-memory database per test: nothing to clean but the connection. SQLite stores
// tables only, so it opts out of non-tabular data and the contract checks it refuses it.
destinationContract(
  "SQLiteDestination",
  () => {
    const destination = new SQLiteDestination({ path: ":memory:" });
    return { destination, cleanup: () => destination.close() };
  },
  { optOut: { nonTabular: true } },
);
