// Runs ONE benchmark task in this (fresh) process and prints its result as the last stdout line:
//   @@BENCH {"ms":..., "maxRSSKB":..., "extra":{...}}
// Usage: node --expose-gc bench/child.mjs <task> '<json options>'
import * as taskModule from "./lib/tasks.mjs";
import * as stalenessTasks from "./lib/staleness.mjs";
import * as multiTasks from "./lib/multi.mjs";
import * as upstreamTasks from "./lib/upstream.mjs";

const tasks = { ...taskModule, ...stalenessTasks, ...multiTasks, ...upstreamTasks };

const [task, json = "{}"] = process.argv.slice(2);
const fn = tasks[task];
if (typeof fn !== "function") {
  console.error(`unknown task ${task}; known: ${Object.keys(tasks).join(", ")}`);
  process.exit(2);
}
try {
  const result = await fn(JSON.parse(json));
  const maxRSSKB = process.resourceUsage().maxRSS;
  process.stdout.write(`\n@@BENCH ${JSON.stringify({ ms: result.ms, maxRSSKB, extra: result.extra ?? {} })}\n`);
  process.exit(0);
} catch (error) {
  process.stdout.write(`\n@@BENCH ${JSON.stringify({ error: String(error?.stack ?? error) })}\n`);
  process.exit(1);
}
