import { createHash } from "node:crypto";
import { basename, isAbsolute, relative, sep } from "node:path";
import type { Project } from "../api/project.js";
import type { Asset } from "../asset/asset.js";
import { projectFolderOf } from "../config/find-config.js";

// What a backfill's id and every job carry so that a worker runs only the jobs of its own
// project: the config file's name and a hash of each asset's key and where its data goes (the
// kind of each destination, its location and the asset's dataset and table). Enqueued with a
// prod dataset, a backfill is refused by a worker loaded with a staging one. Locations are
// taken without user and password: no secret reaches the hash, and a worker that logs in as
// another user of the same database is the same project.

const identities = new WeakMap<Project, string>();

/** The identity of a project as workers check it: `interloper.config.ts#3f2a9c0e1b7d`. */
export function projectIdentity(project: Project): string {
  let identity = identities.get(project);
  if (identity === undefined) {
    const folder = project.filepath ? projectFolderOf(project.filepath) : null;
    const lines = project.dag.assets.map((asset) => targetOf(asset, folder)).sort();
    const hash = createHash("sha256").update(lines.join("\n")).digest("hex").slice(0, 12);
    identity = `${project.filepath ? basename(project.filepath) : "(in code)"}#${hash}`;
    identities.set(project, identity);
  }
  return identity;
}

/** One asset's line: its key, then per destination its kind and location, then its dataset and table. */
function targetOf(asset: Asset, folder: string | null): string {
  const destinations = asset.destinations.map((d) => `${d.displayName} ${placeOf(d.location, folder)}`);
  return JSON.stringify([asset.qualifiedKey, destinations, asset.dataset, asset.table]);
}

/** A location without user or password; a path under the project's folder relative to it (machines check it out in different places). */
function placeOf(location: string | null, folder: string | null): string {
  if (location === null) return "";
  if (isAbsolute(location)) {
    const inside = folder ? relative(folder, location) : null;
    return inside !== null && !inside.startsWith("..") && !isAbsolute(inside) ? `./${inside.split(sep).join("/")}` : location;
  }
  return location
    .replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, "$1")
    .replace(/([?&])(password|passwd|pwd)=[^&#]*&?/gi, "$1")
    .replace(/[?&]$/, "");
}
