// Secrets: a PostgreSQL URL password, a MySQL password, S3 credentials and a GCS service account key set in the fixture
// config (REL_DEST=secrets: servers that refuse, so errors happen) and in the environment never
// appear in anything list, plan, materialize --json, show or coverage print, errors included.
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, runCli, useTempDirs } from "./helpers.js";

const tempDir = useTempDirs();
beforeAll(ensureBuilt, 180_000);

const SECRETS = [
  "s3cr3t-pg-XYZ",
  "s3cr3t-my-XYZ",
  "AKIA-SECRET-XYZ",
  "secret-key-XYZ",
  "env-pg-s3cr3t",
  "env-my-s3cr3t",
  "env-aws-s3cr3t",
  "gcs-s3cr3t-key-XYZ",
];
const ENV = {
  REL_DEST: "secrets",
  DATABASE_URL: "postgres://postgres:env-pg-s3cr3t@127.0.0.1:1/test",
  PGPASSWORD: "env-pg-s3cr3t",
  MYSQL_PASSWORD: "env-my-s3cr3t",
  AWS_ACCESS_KEY_ID: "AKIA-SECRET-XYZ",
  AWS_SECRET_ACCESS_KEY: "env-aws-s3cr3t",
};

const COMMANDS: string[][] = [
  ["list"],
  ["list", "--json"],
  ["plan", "events", "-p", "2024-01-02"],
  ["plan", "events", "-w", "2024-01-01..2024-01-02", "--json"],
  ["materialize", "events", "-p", "2024-01-02", "--json"],
  ["materialize", "settings", "--json", "--verbose"],
  ["materialize", "events", "-w", "2024-01-01..2024-01-02", "--dry-run"],
  ["show", "events", "-p", "2024-01-02"],
  ["show", "events", "-p", "2024-01-02", "--verbose"],
  ["coverage", "events", "-w", "2024-01-01..2024-01-05", "--json"],
  ["coverage"],
];

describe("secrets never appear in output", () => {
  it("list, plan, materialize --json, show and coverage against unreachable servers print no secret", async () => {
    const data = await tempDir();
    const transcripts: string[] = [];
    const results = await Promise.all(COMMANDS.map((args) => runCli(args, data, { ...ENV, DEBUG: "interloper" })));
    for (const [i, result] of results.entries()) {
      const text = `$ interloper ${COMMANDS[i]!.join(" ")} (exit ${result.code})\n${result.stdout}\n${result.stderr}`;
      transcripts.push(text);
      for (const secret of SECRETS) {
        expect(text.includes(secret), `${secret} printed by: ${text.slice(0, 2000)}`).toBe(false);
        expect(text.includes(encodeURIComponent(secret))).toBe(false);
      }
    }
    // Errors did happen (so their messages were scanned): the materialize runs failed.
    expect(results[4]!.code).toBe(1);
    expect(results[4]!.stdout).toMatch(/"type":"asset:failed"/);
  }, 120_000);
});
