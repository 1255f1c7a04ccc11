import { Box, Static, Text } from "ink";
import { Fragment, useEffect, useRef, useState } from "react";
import { count } from "../../text/english.js";
import { printable } from "../printable.js";
import { formatDuration, type FinishedUnit, type PrintedLine as PrintedLineOf, type RunTracker } from "../reporters/tracker.js";
import { STATUS_WORDS, type UnitStatus } from "../reporters/unit-status.js";
import { colorProp } from "./color-prop.js";

/** Notifies the view when the tracker changed. */
export interface ProgressFeed {
  readonly tracker: RunTracker;
  subscribe(listener: () => void): () => void;
}

const BAR_WIDTH = 30;
const MAX_RUNNING_SHOWN = 6;

/** The mark and colour of a finished unit's line. */
const MARKS: Readonly<Record<UnitStatus, { mark: string; color: string }>> = {
  completed: { mark: "✓", color: "green" },
  failed: { mark: "✗", color: "red" },
  abandoned: { mark: "⊘", color: "yellow" },
  canceled: { mark: "⊘", color: "yellow" },
  skipped: { mark: "↷", color: "yellow" },
  waiting: { mark: "↷", color: "yellow" },
  notRun: { mark: " ", color: "gray" },
};

export interface ProgressViewProps {
  readonly feed: ProgressFeed;
  readonly title: string;
  readonly color?: boolean;
  /**
   * The lines that replace the bar once the run is over (the timing table and the summary):
   * the last frame, left on the screen. Finished units above it stay printed.
   */
  readonly closing?: readonly string[] | null;
}

/**
 * A backfill or run in progress: finished units and log lines printed above (each once, as
 * ink's Static writes them), the bar, the counts and what is running below. At the end the bar
 * gives way to the closing lines.
 */
export function ProgressView({ feed, title, color = true, closing = null }: ProgressViewProps) {
  const [, setVersion] = useState(0);
  useEffect(() => feed.subscribe(() => setVersion((v) => v + 1)), [feed]);
  const t = feed.tracker;
  // The lines printed since the last frame go out as one batch: one text for ink to lay out and
  // write, not one per line (a long run of quick partitions prints thousands).
  const batches = useRef<Array<{ readonly from: number; readonly to: number }>>([]);
  const printedSoFar = batches.current.at(-1)?.to ?? 0;
  if (t.printed.length > printedSoFar) batches.current.push({ from: printedSoFar, to: t.printed.length });
  return (
    <Box flexDirection="column">
      <Static items={[...batches.current]}>
        {({ from, to }) => (
          <Text key={from}>
            {t.printed.slice(from, to).map((line, i) => (
              <Fragment key={i}>
                {i > 0 ? "\n" : ""}
                <PrintedLine line={line} color={color} />
              </Fragment>
            ))}
          </Text>
        )}
      </Static>
      {closing ? (
        // An empty Text takes no line: a blank line is a space.
        closing.map((line, index) => <Text key={index}>{printable(line) || " "}</Text>)
      ) : (
        <Live tracker={t} title={title} color={color} />
      )}
    </Box>
  );
}

/** One printed line, inside the batch's text: a finished unit, a notice of the command, or an asset's log line. */
function PrintedLine({ line, color }: { line: PrintedLineOf; color: boolean }) {
  if (line.kind === "unit") return <FinishedLine unit={line.unit} color={color} />;
  if (line.kind === "notice") return <Text bold={color}>{printable(line.text)}</Text>;
  return (
    <Text
      {...colorProp(color ? (line.level === "error" ? "red" : line.level === "warn" ? "yellow" : undefined) : undefined)}
      dimColor={color && (line.level === "info" || line.level === "debug")}
    >
      {printable(line.text)}
    </Text>
  );
}

/** The part redrawn while the run goes: title, bar and counts, what is running. */
function Live({ tracker: t, title, color }: { tracker: RunTracker; title: string; color: boolean }) {
  const running = [...t.running.entries()].slice(0, MAX_RUNNING_SHOWN);
  const now = Date.now();
  return (
    <>
      <Text bold={color}>{printable(title)}</Text>
      {t.total === 0 ? <Text dimColor={color}>starting…</Text> : <Bar tracker={t} color={color} />}
      {running.map(([label, since]) => (
        <Text key={label} dimColor={color}>{`  running ${printable(label)}  ${formatDuration(now - since)}`}</Text>
      ))}
      {t.running.size > MAX_RUNNING_SHOWN ? <Text dimColor={color}>{`  and ${t.running.size - MAX_RUNNING_SHOWN} more`}</Text> : null}
    </>
  );
}

/** `█████░░░ 12/60  20%  340 rows  2.1/s  ETA 20s  1 failed  2 canceled`. */
function Bar({ tracker: t, color }: { tracker: RunTracker; color: boolean }) {
  const ratio = Math.min(1, t.done / t.total);
  const filled = Math.round(ratio * BAR_WIDTH);
  const eta = t.etaMs;
  const troubles = (["failed", "abandoned", "canceled", "skipped", "waiting"] as const).filter((s) => t.counts[s] > 0);
  return (
    <Text>
      <Text {...colorProp(color ? "green" : undefined)}>{"█".repeat(filled)}</Text>
      <Text dimColor={color}>{"░".repeat(BAR_WIDTH - filled)}</Text>
      {` ${t.done}/${t.total}  ${Math.round(ratio * 100)}%  ${count(t.rows, "row")}  ${t.rate.toFixed(1)}/s`}
      {eta !== null && t.done < t.total ? `  ETA ${formatDuration(eta)}` : ""}
      {troubles.map((s) => (
        <Text key={s} {...colorProp(color ? MARKS[s].color : undefined)}>{`  ${t.counts[s]} ${STATUS_WORDS[s]}`}</Text>
      ))}
    </Text>
  );
}

function FinishedLine({ unit, color }: { unit: FinishedUnit; color: boolean }) {
  const { mark, color: tint } = MARKS[unit.status];
  const detail =
    unit.status === "completed"
      ? `${count(unit.rows, "row")}  ${formatDuration(unit.durationMs)}`
      : `${unit.status === "failed" ? "" : `${STATUS_WORDS[unit.status]}: `}${unit.failures.join("; ")}`;
  return (
    <Text>
      <Text {...colorProp(color ? tint : undefined)}>{`${mark} `}</Text>
      {printable(`${unit.label}  ${detail}`)}
    </Text>
  );
}
