import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "./package-root.js";

let version: string | undefined;

/** The version in interloper's package.json, for `--version` and each materialization record; read once. */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;
  return version;
}
