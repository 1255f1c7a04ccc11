import { describe } from "vitest";
import { destinationContract } from "../contract/destination.js";
import { isolatedMySQL, mysqlAvailable } from "./servers.js";

// Each test gets datasets (databases) under its own random prefix, dropped after it.
describe.skipIf(!(await mysqlAvailable()))("MariaDB server", () => {
  destinationContract("MySQLDestination", () => isolatedMySQL(), { optOut: { nonTabular: true } });
});
