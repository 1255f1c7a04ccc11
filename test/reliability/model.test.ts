// Model-based testing of the destinations that need no server: CSV, File, Memory, the local
// object store in parquet, jsonl and csv, and SQLite. fast-check generates sequences of commands
// (write a partition or a window, rewrite, empty, read a partition or a window, count, two writers
// at once in one or two instances, a read during a write) over five assets (daily, a daily one
// whose name differs only in case, list, monthly, hourly) with rows of every field type and list
// values made to collide (case, accents, spaces, ".tmp-", "+", "%", line ends); every command
// runs through the public asset API and is checked against an in-memory model, and the row
// counts of every asset after every step (model-commands.ts, model-suite.ts). The servers are in
// model-servers.test.ts. INTERLOPER_RELIABILITY_LONG=1: up to 200 sequences per destination (40 s each).
import { afterAll } from "vitest";
import { MemoryDestination } from "../../src/destination/index.js";
import { modelSuite } from "./model-suite.js";
import { localTargets } from "./model-targets.js";

afterAll(() => MemoryDestination.clear());

modelSuite("the destinations without a server", localTargets());
