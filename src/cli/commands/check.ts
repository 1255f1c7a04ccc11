import type { Asset } from "../../asset/asset.js";
import type { Destination } from "../../destination/destination.js";
import { count } from "../../text/english.js";
import type { GlobalOptions } from "../main.js";
import { printable } from "../printable.js";
import { openCommandSession } from "../command-session.js";
import { driverProblems } from "./drivers.js";
import { reasonOf } from "../../destination/unreadable.js";

/**
 * `interloper check`: loads the config and validates every asset, edge and destination
 * (loading each one's optional packages: drivers, SDKs, its format's libraries) without running, reading or connecting to anything. Every problem is one line on stderr
 * (exit 2); none is a one-line summary on stdout (exit 0). A config that does not load is its
 * one-line error, exit 2, as for every command.
 */
export async function checkCommand(flags: GlobalOptions): Promise<number> {
  const { project } = await openCommandSession(flags);
  const assets = project.dag.assets;
  const problems = assets.flatMap((asset) =>
    assetProblems(project.dag.problems(asset), asset).map((problem) => `${asset.qualifiedKey}: ${problem}`),
  );
  problems.push(...(await driverProblems(assets)));
  if (problems.length > 0) {
    for (const line of problems) process.stderr.write(`${printable(line)}\n`);
    process.stderr.write(`${printable(`${project.filepath}: ${count(problems.length, "problem")} found`)}\n`);
    return 2;
  }
  const sources = new Set(assets.map((a) => a.source?.key ?? null).filter((key) => key !== null));
  const destinations = new Set<Destination>(assets.flatMap((a) => a.destinations));
  const types = [...new Set([...destinations].map((d) => d.displayName))].join(", ");
  process.stdout.write(
    `${printable(`OK: ${project.filepath}: ${count(assets.length, "asset")}, ${count(sources.size, "source")}, ${count(destinations.size, "destination")}${types ? ` (${types})` : ""}`)}\n`,
  );
  return 0;
}

/** What is wrong with one asset: its invalid edges, a missing destination, a destination that cannot say where it keeps its data. */
function assetProblems(edgeProblems: readonly string[], asset: Asset): string[] {
  const problems = [...edgeProblems];
  if (asset.materializable && asset.destinations.length === 0) {
    problems.push("no destination to write to: set destinations on the asset or its source");
  }
  asset.destinations.forEach((destination, i) => {
    try {
      // Resolves the destination's paths or connection settings; nothing is opened.
      void destination.location;
    } catch (error) {
      problems.push(`destination "${asset.destinationKeys[i]}" (${destination.displayName}): ${reasonOf(error)}`);
    }
  });
  return problems;
}
