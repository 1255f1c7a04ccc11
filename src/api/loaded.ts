import type { Project } from "./project.js";

// Projects loaded from config files and not closed yet: a program (a session, the pool worker)
// closes what it loads, and this count shows that nothing is kept. It imports nothing at run time.
const loaded = new Set<Project>();

/** Records a loaded project. */
export function rememberProject(project: Project): void {
  loaded.add(project);
}

/**
 * Releases what a project's destinations hold open (database pools, clients), so that a
 * program exits as soon as its work is done.
 */
export async function closeProject(project: Project): Promise<void> {
  // Forgotten first: a long-lived program that loads and closes projects must not keep them all.
  loaded.delete(project);
  const destinations = new Set(project.dag.assets.flatMap((asset) => asset.destinations));
  // async, so that a close() that throws at once is settled like one that rejects
  await Promise.allSettled([...destinations].map(async (d) => d.close()));
}

/** How many loaded projects are not closed yet. */
export function openProjectCount(): number {
  return loaded.size;
}
