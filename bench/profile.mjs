#!/usr/bin/env node
// Summarises a V8 .cpuprofile (from `node --cpu-prof`): the top functions by self time and, for
// interloper's own code (dist/), by inclusive time.
// Usage: node bench/profile.mjs <file.cpuprofile> [top=25]
// Profile a workload:  node --cpu-prof --cpu-prof-dir=/tmp/prof bench/child.mjs backfillCsv '{"dir":"/tmp/p","days":30}'
import { readFileSync } from "node:fs";

const [file, topArg = "25"] = process.argv.slice(2);
const top = Number(topArg);
const profile = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Sample weights: time deltas per sample.
const self = new Map();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  total += dt;
  self.set(id, (self.get(id) ?? 0) + dt);
});

const where = (cf) => {
  const url = cf.url.replace(/^file:\/\//, "");
  // dist/ is bundled (scripts/build.mjs): the function name finds the code in src/.
  const short = url.includes("node_modules/")
    ? `${url.slice(url.lastIndexOf("node_modules/") + 13)}:${cf.lineNumber + 1}`
    : url.includes("/dist/")
      ? `dist/${url.split("/dist/")[1]}:${cf.lineNumber + 1}`
      : url
        ? `${url}:${cf.lineNumber + 1}`
        : "(native)";
  return `${cf.functionName || "(anonymous)"} ${short}`;
};

const selfBy = new Map();
const inclBy = new Map();
for (const [id, t] of self) {
  const node = byId.get(id);
  const key = where(node.callFrame);
  selfBy.set(key, (selfBy.get(key) ?? 0) + t);
  // inclusive: every distinct frame on the stack once
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const k = where(byId.get(cur).callFrame);
    if (seen.has(k)) continue;
    seen.add(k);
    inclBy.set(k, (inclBy.get(k) ?? 0) + t);
  }
}
const pct = (t) => `${((100 * t) / total).toFixed(1).padStart(5)}%`;
console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled`);
console.log(`\nself time, top ${top}:`);
for (const [k, t] of [...selfBy].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(t)}  ${k}`);
console.log(`\ninclusive time, interloper code (dist/), top ${top}:`);
for (const [k, t] of [...inclBy]
  .filter(([k]) => k.includes(" dist/"))
  .sort((a, b) => b[1] - a[1])
  .slice(0, top))
  console.log(`  ${pct(t)}  ${k}`);
