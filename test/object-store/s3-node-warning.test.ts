// The AWS SDK warns, on every Node below 22, that its releases after January 2027 will need
// Node 22 (issue 41.12): a Node process warning printed by every command that touches S3.
// interloper turns that one warning off through the SDK's own switch, and no other: the test
// makes a client in a fresh Node process (the SDK warns once per process) and reads its stderr.
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, expect, it } from "vitest";
import { ensureBuilt, ROOT } from "../e2e/helpers.js";

const INTERLOPER = pathToFileURL(join(ROOT, "dist", "index.js")).href;
// Makes the client through a read of an object from a server that is not there (the SDK warns
// when the client is made), then a warning of another kind.
const SCRIPT = `
import * as il from ${JSON.stringify(INTERLOPER)};
const credentials = { accessKeyId: "key", secretAccessKey: "secret" };
const s3 = new il.S3Destination({ bucket: "b", connection: { region: "us-east-1", endpoint: "http://127.0.0.1:1", credentials } });
await s3.getObject("x").catch(() => undefined);
await s3.close();
process.emitWarning("another warning", { type: "OtherWarning" });
`;

beforeAll(() => ensureBuilt(), 180_000);

const run = (env: Record<string, string | undefined>) =>
  execa(process.execPath, ["--input-type=module", "-e", SCRIPT], {
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: undefined, ...env },
    extendEnv: false,
    reject: false,
  });

it("an S3 client prints no Node version warning of the SDK; other warnings still print", async () => {
  const result = await run({});
  expect(result.exitCode, result.stderr).toBe(0);
  expect(result.stderr).not.toContain("NodeVersionSupportWarning");
  expect(result.stderr).toContain("OtherWarning: another warning");
});

it("a user who sets the SDK's switch to something else than true keeps its warning", async () => {
  const major = Number(process.versions.node.split(".")[0]);
  const result = await run({ AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "false" });
  expect(result.exitCode, result.stderr).toBe(0);
  // Node 22 and later are supported: the SDK has nothing to say there.
  if (major < 22) expect(result.stderr).toContain("NodeVersionSupportWarning");
  else expect(result.stderr).not.toContain("NodeVersionSupportWarning");
});
