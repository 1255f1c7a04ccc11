import { readdirSync } from "node:fs";
import { join } from "node:path";

/** Every TypeScript source under `dir` (`.ts` and `.tsx`, declaration files left out), at any depth. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}
