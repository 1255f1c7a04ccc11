import type { AssetDescription } from "../../api/session/index.js";
import type { Asset } from "../../asset/asset.js";
import type { GlobalOptions } from "../main.js";
import { printableLines, terminalJson } from "../printable.js";
import type { ExcludeFlags } from "./selection.js";
import { openCommandSession } from "../command-session.js";

/** `interloper list [selectors...]`: the selected assets (all by default) and how each is set up; returns the exit code. */
export async function listCommand(selectors: readonly string[], flags: GlobalOptions & ExcludeFlags & { json?: boolean }): Promise<number> {
  const session = await openCommandSession(flags);
  const { project } = session;
  const assets = session.describe({ select: selectors, exclude: flags.exclude ?? [] });
  if (flags.json) {
    process.stdout.write(`${terminalJson(JSON.stringify(assets))}\n`);
    return 0;
  }
  const lines = assets.flatMap((asset) => {
    const described = describeLines(asset);
    return flags.verbose ? [...described, ...locationLines(project.dag.find(asset.key)!)] : described;
  });
  process.stdout.write(`${printableLines(lines)}\n`);
  return 0;
}

/** A partitioning definition in words: `day on "date" from 2026-01-01`, `list on "region": eu, us`. */
function partitioningText(p: Readonly<Record<string, unknown>>): string {
  if (p["kind"] === "time")
    return `${String(p["granularity"])} on "${String(p["column"])}"${p["start"] ? ` from ${String(p["start"])}` : ""}`;
  if (p["kind"] === "list") return `list on "${String(p["column"])}": ${(p["values"] as string[]).join(", ")}`;
  if (p["kind"] === "multi") {
    const dimensions = p["dimensions"] as Array<{ name: string; definition: Readonly<Record<string, unknown>> }>;
    return `keys ${dimensions.map((d) => d.name).join("|")}: ${dimensions.map((d) => `${d.name} = ${partitioningText(d.definition)}`).join("; ")}`;
  }
  return `${String(p["kind"])} on "${String(p["column"])}"`;
}

function describeLines(asset: AssetDescription): string[] {
  const p = asset.partitioning;
  const partitioning = !p ? "unpartitioned" : `${partitioningText(p)}${p["allowWindow"] ? ", windows allowed" : ""}`;
  const lines = [`${asset.key}${asset.materializable ? "" : "  (not materializable)"}`, `  partitioning  ${partitioning}`];
  lines.push(
    `  stored as     ${asset.dataset ? `${asset.dataset}.` : ""}${asset.table} in ${asset.destinations.map((d) => `${d.key} (${d.type})${d.default && asset.destinations.length > 1 ? " *" : ""}`).join(", ") || "no destination"}`,
  );
  if (asset.tags.length) lines.push(`  tags          ${asset.tags.join(", ")}`);
  if (asset.dependencies.length)
    lines.push(
      `  depends on    ${asset.dependencies.map((d) => `${d.name}=${d.asset ?? "(absent)"}${d.optional ? "?" : ""}${d.mapping ? ` (${d.mapping})` : ""}`).join(", ")}`,
    );
  for (const problem of asset.problems) lines.push(`  problem       ${problem}`);
  if (asset.schema) lines.push(`  schema        ${asset.schema.map((f) => `${f.name}: ${f.type}${f.nullable ? "?" : ""}`).join(", ")}`);
  if (asset.checks.length) lines.push(`  checks        ${asset.checks.join(", ")}`);
  if (asset.codeVersion !== null) lines.push(`  code version  ${asset.codeVersion}`);
  if (asset.description) lines.push(`  ${asset.description}`);
  return lines;
}

/** Where each destination keeps the asset: absolute paths, URLs without passwords. */
function locationLines(asset: Asset): string[] {
  return asset.destinations.map(
    (d, i) => `  ${i === 0 ? "location" : "        "}      ${asset.destinationKeys[i]}: ${d.location ?? "(not said by this destination)"}`,
  );
}
