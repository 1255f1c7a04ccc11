// Model-based testing of the destinations behind a server: S3 (moto) and GCS (the JSON API server
// of test/support/gcs-server.ts), parquet, jsonl or csv per sequence, PostgreSQL and
// MySQL/MariaDB, each sequence in a dataset or prefix of its own. The
// commands, the model and the data are those of model.test.ts (see there). Without a server the
// tests print why and pass, but with INTERLOPER_REQUIRE_SERVICES=1 (CI) fail.
import { modelSuite } from "./model-suite.js";
import { serverTargets } from "./model-targets.js";

modelSuite("the destinations behind a server", serverTargets());
