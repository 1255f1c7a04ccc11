import type { Coverage, PartitionCoverage } from "../../api/session/index.js";
import { count, formatCount } from "../../text/english.js";
import { drawnAsList, isPartial, isStale, isWarned, layoutCoverage, type Cell } from "../views/coverage-layout.js";
import { factLines } from "../views/coverage-text.js";

const CELL = 12;
const GAP = 2;
const LABEL = 84;
const FILLS: Record<string, string> = {
  missing: "#f8d7da",
  partial: "#f3d1f4",
  empty: "#fff3cd",
  unreadable: "#cf222e",
  "in-progress": "#ddf4ff",
  // Stored but out of date: orange, apart from the greens of rows and the red of missing.
  stale: "#fb8f44",
  // Written with failed warn checks: violet, apart from the orange of stale.
  warned: "#c297ff",
  none: "none",
};
const STALE_STROKE = "#bc4c00";
const LEVELS = ["#ebedf0", "#9be9a8", "#40c463", "#30a14e", "#216e39"];

const escape = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function fill(cell: Cell): string {
  if (cell.partial) return FILLS["partial"]!;
  if (cell.stale) return FILLS["stale"]!;
  if (cell.warned) return FILLS["warned"]!;
  return cell.status === "materialized" ? LEVELS[cell.level]! : (FILLS[cell.status] ?? "none");
}

function rect(x: number, y: number, cell: Cell, held: readonly string[], width = CELL): string {
  const p = cell.partition!;
  const tip = `${p.key}: ${tipOf(p, held)}`;
  // Which destinations lack a missing partition, for an asset with several.
  const lacking = p.missingIn ? ` data-missing-in="${escape(p.missingIn.join(","))}"` : p.file ? ` data-file="${escape(p.file)}"` : "";
  const why = cell.stale ? ` data-stale-reasons="${escape((p.staleReasons ?? []).join("\n"))}"` : "";
  const stroke = cell.stale
    ? ` stroke="${STALE_STROKE}" stroke-width="1"`
    : cell.partial
      ? ` stroke="#a040a0" stroke-width="1"`
      : cell.status === "missing"
        ? ` stroke="#d9534f" stroke-width="1"`
        : cell.status === "empty"
          ? ` stroke="#d4a017" stroke-width="1"`
          : cell.status === "in-progress"
            ? ` stroke="#0969da" stroke-width="1" stroke-dasharray="2 2"`
            : "";
  return `<rect class="partition ${p.status}${cell.partial ? " partial" : ""}${cell.stale ? " stale" : ""}${cell.warned ? " warned" : ""}" data-key="${escape(p.key)}" data-rows="${p.rows ?? ""}"${lacking}${why} x="${x}" y="${y}" width="${width}" height="${CELL}" rx="2" fill="${fill(cell)}"${stroke}><title>${escape(tip)}</title></rect>`;
}

/** A cell's tooltip; `held` names every destination of the asset, in order. A stale one's reasons follow its state. */
function tipOf(p: PartitionCoverage, held: readonly string[]): string {
  const state = stateOf(p, held);
  const warned = isWarned(p) ? `; written with failed warn checks: ${(p.warningChecks ?? []).join(", ")}` : "";
  return isStale(p) ? `${state}${warned}; stale: ${(p.staleReasons ?? []).join("; ")}` : `${state}${warned}`;
}

function stateOf(p: PartitionCoverage, held: readonly string[]): string {
  if (p.status === "missing" && p.missingIn && p.missingIn.length < held.length) {
    const holding = held.filter((d) => !p.missingIn!.includes(d));
    return `missing in ${p.missingIn.join(", ")} (held by ${holding.join(", ")})`;
  }
  if (p.status === "missing") return p.missingIn ? `missing in every destination (${p.missingIn.join(", ")})` : "missing";
  if (p.status === "unreadable") return `unreadable: ${p.file}: ${p.error}`;
  if (p.status === "in-progress") return `in progress, ${p.rows === null ? "nothing stored so far" : `${count(p.rows, "row")} so far`}`;
  return `${count(p.rows ?? 0, "row")}${p.status === "empty" ? " (empty)" : ""}`;
}

/** An SVG with one rect per expected partition (and one for the period in progress). */
function svgOf(c: Coverage): string {
  const parts: string[] = [];
  const held = c.destinations.map((d) => d.key);
  let y = 0;
  if (drawnAsList(c)) {
    const expected = c.partitions.filter((p) => p.status !== "unexpected");
    const max = c.maxRows ?? 0;
    for (const p of expected) {
      const width = p.status === "materialized" && max ? Math.max(CELL, Math.round((p.rows! / max) * 400)) : CELL;
      parts.push(`<text x="0" y="${y + CELL - 2}" class="label">${escape(p.key)}</text>`);
      const partial = isPartial(p, held.length);
      parts.push(
        rect(
          LABEL,
          y,
          {
            status: p.status,
            level: p.status === "materialized" ? 4 : 0,
            partition: p,
            ...(partial ? { partial } : {}),
            ...(isStale(p) ? { stale: true as const } : isWarned(p) ? { warned: true as const } : {}),
          },
          held,
          width,
        ),
      );
      parts.push(
        `<text x="${LABEL + width + 6}" y="${y + CELL - 2}" class="label">${p.status === "missing" ? (partial ? `missing in ${escape(p.missingIn!.join(", "))}` : "missing") : `${formatCount(p.rows ?? 0)}${isStale(p) ? " (stale)" : ""}`}</text>`,
      );
      y += CELL + GAP * 2;
    }
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${LABEL + 520}" height="${y}">${parts.join("")}</svg>`;
  }
  let width = 0;
  for (const block of layoutCoverage(c, 200, { allHours: true })) {
    parts.push(`<text x="0" y="${y + CELL}" class="title">${escape(block.title)}</text>`);
    y += CELL + GAP * 3;
    if (block.header) {
      // Each label sits over its own column, as in the terminal.
      for (const label of block.header.matchAll(/\S+/g)) {
        parts.push(
          `<text x="${LABEL + (label.index! / block.cellWidth) * (CELL + GAP)}" y="${y + CELL - 2}" class="header">${escape(label[0])}</text>`,
        );
      }
      y += CELL + GAP;
    }
    for (const row of block.rows) {
      parts.push(`<text x="0" y="${y + CELL - 2}" class="label">${escape(row.label)}</text>`);
      row.cells.forEach((cell, i) => {
        if (cell.partition) parts.push(rect(LABEL + i * (CELL + GAP), y, cell, held));
      });
      width = Math.max(width, LABEL + row.cells.length * (CELL + GAP));
      y += CELL + GAP;
    }
    y += CELL;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y}">${parts.join("")}</svg>`;
}

/** The colours of the cells, those of partly missing and stale partitions only when some cell shows them. */
function legendOf(coverages: readonly Coverage[]): string {
  const partial = coverages.some((c) => c.partitions.some((p) => isPartial(p, c.destinations.length)));
  const stale = coverages.some((c) => c.stale > 0);
  const warned = coverages.some((c) => c.warnings > 0);
  const swatch = (color: string, outline: string) => `<span style="background:${color}${outline ? `;outline:${outline}` : ""}"></span>`;
  return `<p class="legend">rows:${swatch(LEVELS[1]!, "")}fewest${swatch(LEVELS[4]!, "")}most${swatch(FILLS["empty"]!, "")}empty (0 rows)${swatch(FILLS["missing"]!, "1px solid #d9534f")}missing${swatch(FILLS["in-progress"]!, "1px dashed #0969da")}in progress (not expected yet)${partial ? `${swatch(FILLS["partial"]!, "1px solid #a040a0")}missing in some destinations` : ""}${stale ? `<span class="stale-swatch" style="background:${FILLS["stale"]};outline:1px solid ${STALE_STROKE}"></span>stale (stored, out of date)` : ""}${warned ? `${swatch(FILLS["warned"]!, "")}written with failed warn checks` : ""}</p>`;
}

/** What the report says of the project around the coverage. */
export interface ReportContext {
  /** The project's name (see projectName). */
  readonly name: string;
  /** The config file, or null for a project built in code. */
  readonly configPath: string | null;
  /** When each asset (by key) was last written, where its destinations record it. */
  readonly lastWritten?: Readonly<Record<string, Date | null>>;
}

/** An element id for an asset's section: its key, with anything but letters, digits, "-" and "_" as "-". */
const sectionId = (asset: string) => `asset-${asset.replace(/[^A-Za-z0-9_-]/g, "-")}`;

/** The table every report opens with: one row per asset, linked to its section. */
function overviewTable(coverages: readonly Coverage[], lastWritten: Readonly<Record<string, Date | null>>): string {
  const number = (n: number, kind: string) => `<td class="num ${kind}">${formatCount(n)}</td>`;
  const rows = coverages.map((c) => {
    const written = Object.hasOwn(lastWritten, c.asset) ? lastWritten[c.asset] : undefined;
    const stored = c.materialized + c.empty + c.unexpected > 0;
    const when = written
      ? `<time datetime="${written.toISOString()}">${escape(written.toISOString().replace("T", " ").slice(0, 19))} UTC</time>`
      : !stored
        ? "never"
        : written === null
          ? "not recorded"
          : "";
    const marks = [...(c.missing > 0 ? ["has-missing"] : []), ...(c.stale > 0 ? ["has-stale"] : [])];
    return `<tr data-asset="${escape(c.asset)}"${marks.length ? ` class="${marks.join(" ")}"` : ""}><th scope="row"><a href="#${escape(sectionId(c.asset))}">${escape(c.asset)}</a></th>${number(c.expected, "expected")}${number(c.materialized, "materialized")}${number(c.empty, "empty")}${number(c.missing, "missing")}${number(c.stale, "stale")}${number(c.rows, "rows")}<td class="written">${when}</td></tr>`;
  });
  return `<table class="overview">
<thead><tr><th scope="col">asset</th><th scope="col">expected</th><th scope="col">materialized</th><th scope="col">empty</th><th scope="col">missing</th><th scope="col">stale</th><th scope="col">rows</th><th scope="col">last written</th></tr></thead>
<tbody>${rows.join("\n")}</tbody>
</table>`;
}

/**
 * A self-contained HTML report of coverage, no network: the project's name and config, an
 * overview table of every asset, then each asset's inline SVG heatmap, totals and ranges.
 */
export function coverageHtml(coverages: readonly Coverage[], generatedAt: Date = new Date(), context?: ReportContext): string {
  const sections = coverages.map(
    (c) => `<section id="${escape(sectionId(c.asset))}" data-asset="${escape(c.asset)}">
<h2>${escape(c.asset)}</h2>
${svgOf(c)}
<ul class="facts">${factLines(c)
      .slice(1)
      .map((line) => `<li>${escape(line)}</li>`)
      .join("")}</ul>
</section>`,
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${context ? `${escape(context.name)}: coverage` : "interloper coverage"}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#24292f}
h1{font-size:20px}h2{font-size:16px;margin-top:32px}
svg text{font:11px ui-monospace,monospace;fill:#57606a}svg text.title{font-weight:bold;fill:#24292f}
.legend span{display:inline-block;width:12px;height:12px;border-radius:2px;margin:0 4px 0 12px;vertical-align:middle}
.facts{font-family:ui-monospace,monospace;font-size:12px;padding-left:18px}
.project{color:#57606a}.overview{border-collapse:collapse;font-size:13px}
.overview th,.overview td{padding:4px 10px;border-bottom:1px solid #d0d7de;text-align:left}
.overview td.num{text-align:right;font-variant-numeric:tabular-nums}.overview tr.has-missing td.missing{color:#cf222e;font-weight:bold}.overview tr.has-stale td.stale{color:${STALE_STROKE};font-weight:bold}
</style></head><body>
<h1>${context ? `${escape(context.name)}: coverage` : "Coverage"}</h1>
${context ? `<p class="project">config <code>${context.configPath === null ? "built in code" : escape(context.configPath)}</code></p>\n` : ""}${coverages.length ? overviewTable(coverages, context?.lastWritten ?? {}) : "<p>No partitioned assets.</p>"}
${legendOf(coverages)}
${sections.join("\n")}
<p><small>Generated by interloper at ${escape(generatedAt.toISOString())}.</small></p>
</body></html>
`;
}
