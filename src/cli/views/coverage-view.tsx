import { Box, Static, Text } from "ink";
import type { Coverage } from "../../api/session/index.js";
import { cellChar, cellText, drawnAsList, layoutCoverage, type Cell, type CellRow } from "./coverage-layout.js";
import {
  DESTINATION_LINE,
  factLines,
  cutToWidth,
  legendOf,
  LIST_STALE,
  LIST_WARNED,
  listBars,
  neverLine,
  STALE_LABEL,
  WARNINGS_LABEL,
} from "./coverage-text.js";
import { colorProp } from "./color-prop.js";

// Greens from pale to deep for row counts; missing and empty stand apart in red and yellow,
// and keep their own marks so the picture still reads without colour.
// Named colours, not hex: a 16-colour terminal maps a deep hex green to black, which vanishes on
// a dark background. The marks ░▒▓█ carry the shade.
const LEVEL_COLORS = ["", "green", "green", "greenBright", "greenBright"];
// Stale partitions are stored but out of date: blue, apart from the greens of rows, the red of
// missing, the yellow of empty, the magenta of partly missing and the cyan of in progress.
const STALE_COLOR = "blueBright";

// Written with failed warn checks: bright yellow, its ◆ mark telling it from the ○ of empty.
const WARN_COLOR = "yellowBright";

function colorOf(cell: Cell): string | undefined {
  if (cell.stale) return STALE_COLOR;
  if (cell.warned) return WARN_COLOR;
  // Missing from some destinations only: its own colour beside the red of missing everywhere.
  if (cell.status === "missing") return cell.partial ? "magenta" : "red";
  if (cell.status === "empty") return "yellow";
  if (cell.status === "unreadable") return "red";
  if (cell.status === "in-progress") return "cyan";
  if (cell.status === "materialized") return LEVEL_COLORS[cell.level];
  return undefined;
}

/**
 * Cells of one colour run as one <Text>, so a year of days is a few dozen nodes, not 365. The
 * cell of `selected` (a partition key), when given, stands apart in inverse video.
 */
export function CellRun({
  row,
  labelWidth,
  color,
  cellWidth,
  selected,
}: {
  row: CellRow;
  labelWidth: number;
  color: boolean;
  cellWidth: number;
  selected?: string | undefined;
}) {
  const runs: Array<{ color: string | undefined; text: string; inverse?: boolean }> = [];
  for (const cell of row.cells) {
    const c = color ? colorOf(cell) : undefined;
    const text = cellText(cellChar(cell), cellWidth);
    const last = runs[runs.length - 1];
    if (selected !== undefined && cell.partition?.key === selected) {
      // The gap stays outside the highlight, so the cursor is the cell's own width.
      const mark = text.trimEnd() || text;
      runs.push({ color: c, text: mark, inverse: true }, { color: c, text: text.slice(mark.length) });
    } else if (last && !last.inverse && last.color === c) last.text += text;
    else runs.push({ color: c, text });
  }
  return (
    <Text>
      {row.label.padEnd(labelWidth)}
      {labelWidth ? " " : ""}
      {runs.map((run, i) => (
        <Text key={i} {...colorProp(run.color)} inverse={run.inverse ?? false}>
          {run.text}
        </Text>
      ))}
    </Text>
  );
}

/** The color of a list asset's bar line: by the state it shows. */
function listLineColor(line: string): string {
  if (line.endsWith(LIST_STALE)) return STALE_COLOR;
  if (line.endsWith(LIST_WARNED)) return WARN_COLOR;
  if (line.includes("· missing")) return "red";
  if (line.includes("◐ missing")) return "magenta";
  if (line.includes("○ empty")) return "yellow";
  return "green";
}

/** The color of a fact line under the picture: what needs attention stands out. */
function factLineColor(line: string): string | undefined {
  if (line.startsWith("missing") || line.startsWith("unreadable") || (line.startsWith(DESTINATION_LINE) && line.includes("; missing")))
    return "red";
  if (line.startsWith("suspicious")) return "yellow";
  if (line.startsWith(STALE_LABEL)) return STALE_COLOR;
  if (line.startsWith(WARNINGS_LABEL)) return WARN_COLOR;
  if (line.startsWith("in progress")) return "cyan";
  return undefined;
}

/** One asset's coverage: the calendar (or bars), a legend, then totals and ranges. */
export function CoverageView({ coverage, width, color = true }: { coverage: Coverage; width: number; color?: boolean }) {
  const blocks = drawnAsList(coverage) ? [] : layoutCoverage(coverage, width);
  return (
    <Box flexDirection="column">
      {coverage.neverMaterialized ? (
        <Box marginBottom={1}>
          <Text {...colorProp(color ? "red" : undefined)}>{neverLine(coverage, width)}</Text>
        </Box>
      ) : null}
      {drawnAsList(coverage)
        ? listBars(coverage, width).map((line, i) => (
            <Text key={i} {...colorProp(color ? listLineColor(line) : undefined)}>
              {cutToWidth(line, width)}
            </Text>
          ))
        : blocks.map((block, b) => {
            const labelWidth = Math.max(0, ...block.rows.map((r) => r.label.length));
            return (
              <Box key={b} flexDirection="column" marginBottom={1}>
                <Text bold={color}>{block.title}</Text>
                {block.header ? <Text dimColor={color}>{" ".repeat(labelWidth ? labelWidth + 1 : 0) + block.header}</Text> : null}
                {block.rows.map((row, r) => (
                  <CellRun key={r} row={row} labelWidth={labelWidth} color={color} cellWidth={block.cellWidth} />
                ))}
                {block.note ? <Text dimColor={color}>{`(${block.note})`}</Text> : null}
              </Box>
            );
          })}
      {coverage.expected > 0 ? <Text dimColor={color}>{legendOf(coverage, width)}</Text> : null}
      <Box flexDirection="column" marginTop={1}>
        {factLines(coverage, width).map((line, i) => (
          <Text key={i} bold={color && i === 0} {...colorProp(color ? factLineColor(line) : undefined)}>
            {line}
          </Text>
        ))}
      </Box>
    </Box>
  );
}

/**
 * The view written once, as a report: inside <Static> ink prints it and never redraws it, so a
 * picture taller than the terminal neither clears the screen nor repeats.
 */
export function CoverageReport(props: { coverage: Coverage; width: number; color?: boolean }) {
  return <Static items={[props]}>{(item) => <CoverageView key="report" {...item} />}</Static>;
}
