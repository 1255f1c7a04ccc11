import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../package-root.js";

/** The version in interloper's package.json, for `--version`. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;
}
