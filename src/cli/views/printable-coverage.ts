import type { Coverage, PartitionCoverage } from "../../api/session/index.js";
import { printable } from "../printable.js";

/**
 * Coverage with every name and key printable (list values and stored keys are anyone's text),
 * made before the layout so that widths count what the terminal shows.
 */
export function printableCoverage(c: Coverage): Coverage {
  const partition = (p: PartitionCoverage): PartitionCoverage => ({
    ...p,
    key: printable(p.key),
    ...(p.missingIn ? { missingIn: p.missingIn.map(printable) } : {}),
    // Reasons name upstream keys and destinations: anyone's text too.
    ...(p.staleReasons ? { staleReasons: p.staleReasons.map(printable) } : {}),
    // A custom check is named by the config's author.
    ...(p.warningChecks ? { warningChecks: p.warningChecks.map(printable) } : {}),
  });
  return {
    ...c,
    asset: printable(c.asset),
    column: printable(c.column),
    first: c.first === null ? null : printable(c.first),
    last: c.last === null ? null : printable(c.last),
    partitions: c.partitions.map(partition),
    suspicious: c.suspicious.map(partition),
    missingRanges: c.missingRanges.map(printable),
    emptyRanges: c.emptyRanges.map(printable),
    staleRanges: c.staleRanges.map(printable),
    inProgress: c.inProgress === null ? null : partition(c.inProgress),
    destinations: c.destinations.map((d) => ({
      ...d,
      key: printable(d.key),
      type: printable(d.type),
      missingRanges: d.missingRanges.map(printable),
      emptyRanges: d.emptyRanges.map(printable),
    })),
  };
}
