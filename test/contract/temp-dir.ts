import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

/** A fresh folder under the OS temp dir; `remove` deletes it and everything in it. */
export async function makeTempDir(prefix = "interloper-dest-"): Promise<{ readonly path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** Every file below `root`, as paths relative to it with "/" separators, sorted. */
export async function listFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      // A folder that was never created holds no files.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else out.push(relative(root, full).split("\\").join("/"));
    }
  };
  await walk(root);
  return out.sort();
}

/** Every file below `root` with its size and modification time: a change to any shows. */
export async function fileSnapshot(root: string): Promise<Array<[string, number, number]>> {
  const files = await listFiles(root);
  return Promise.all(
    files.map(async (file): Promise<[string, number, number]> => {
      const info = await stat(join(root, file));
      return [file, info.size, info.mtimeMs];
    }),
  );
}
