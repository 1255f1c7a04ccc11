import { readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { projectFolderOf } from "../../config/find-config.js";

/**
 * A project's name for reports: the `name` of the package.json in its folder, else the folder's
 * name; "interloper project" for one built in code. A config has no name of its own, and the
 * package is what a team already calls the project.
 */
export async function projectName(configPath: string | null): Promise<string> {
  if (configPath === null) return "interloper project";
  const folder = projectFolderOf(configPath);
  try {
    const name = (JSON.parse(await readFile(join(folder, "package.json"), "utf8")) as { name?: unknown }).name;
    if (typeof name === "string" && name.trim() !== "") return name.trim();
  } catch {
    // No package.json there, or not JSON: the folder names the project.
  }
  return basename(folder);
}
