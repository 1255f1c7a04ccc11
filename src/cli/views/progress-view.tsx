import { Box, Static, Text } from "ink";
import { useEffect, useState } from "react";
import { count } from "../../text/english.js";
import { printable } from "../printable.js";
import { formatDuration, type FinishedUnit, type RunTracker } from "../reporters/tracker.js";
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
  return (
    <Box flexDirection="column">
      <Static items={t.printed.map((line, index) => ({ line, index }))}>
        {({ line, index }) =>
          line.kind === "unit" ? (
            <FinishedLine key={index} unit={line.unit} color={color} />
          ) : line.kind === "notice" ? (
            <Text key={index} bold={color}>
              {printable(line.text)}
            </Text>
          ) : (
            <Text
              key={index}
              {...colorProp(color ? (line.level === "error" ? "red" : line.level === "warn" ? "yellow" : undefined) : undefined)}
              dimColor={color && (line.level === "info" || line.level === "debug")}
            >
              {printable(line.text)}
            </Text>
          )
        }
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
