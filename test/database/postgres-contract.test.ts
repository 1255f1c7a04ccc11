import { describe } from "vitest";
import { destinationContract } from "../contract/destination.js";
import { isolatedPostgres, postgresAvailable } from "./servers.js";

// Each test gets datasets (schemas) under its own random prefix, dropped after it.
describe.skipIf(!(await postgresAvailable()))("PostgreSQL server", () => {
  destinationContract("PostgresDestination", () => isolatedPostgres(), { optOut: { nonTabular: true } });
});
