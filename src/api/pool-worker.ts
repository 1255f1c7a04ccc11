// The process entry of a pool worker (dist/api/pool-worker.js), started by the runner's
// WorkerPool with the config file to load as its one argument. It loads the project once and
// serves partitions until its parent is done with it: no command line is involved.
import { serveTasks } from "../runner/pool/worker.js";
import { closeProject, loadProject } from "./project.js";
import { resolveScope } from "./scope.js";

const configPath = process.argv[2];
if (!configPath || typeof process.send !== "function") {
  process.stderr.write("interloper pool worker: expected to be started by a process pool, with the config file as its argument\n");
  process.exit(2);
}
await serveTasks(async () => {
  const project = await loadProject({ configPath });
  return {
    dag: project.dag,
    windowOf: (partition, assets) =>
      resolveScope(
        assets.map((key) => project.dag.find(key)!),
        { partition },
      )!,
    close: () => closeProject(project),
  };
});
