import { Box, Text, useStdout } from "ink";
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { count } from "../../text/english.js";
import { printable } from "../printable.js";
import { formatDuration, type RunTracker } from "../reporters/tracker.js";
import { STATUS_WORDS } from "../reporters/unit-status.js";
import { MARKS, printedText } from "./printed-text.js";
import { colorProp } from "./color-prop.js";

/** Notifies the view when the tracker changed. */
export interface ProgressFeed {
  readonly tracker: RunTracker;
  subscribe(listener: () => void): () => void;
}

const BAR_WIDTH = 30;
const MAX_RUNNING_SHOWN = 6;

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
 * A backfill or run in progress: finished units and log lines printed above (each once), the bar,
 * the counts and what is running below. At the end the bar gives way to the closing lines.
 */
export function ProgressView({ feed, title, color = true, closing = null }: ProgressViewProps) {
  const [, setVersion] = useState(0);
  useEffect(() => feed.subscribe(() => setVersion((v) => v + 1)), [feed]);
  const t = feed.tracker;
  usePrintedLines(t, color);
  return (
    <Box flexDirection="column">
      {closing ? (
        // An empty Text takes no line: a blank line is a space.
        closing.map((line, index) => <Text key={index}>{printable(line) || " "}</Text>)
      ) : (
        <Live tracker={t} title={title} color={color} />
      )}
    </Box>
  );
}

/**
 * Writes the lines printed since the last frame, as one text, above the frame: ink clears the
 * frame, writes them and draws the frame again below. Not through ink's Static, which lays out
 * and measures every line: on a run of quick partitions that cost more than the run itself.
 * A layout effect: the lines go out with the frame that counts them, and the last ones before
 * the closing lines.
 */
function usePrintedLines(t: RunTracker, color: boolean): void {
  const { write } = useStdout();
  const written = useRef(0);
  useLayoutEffect(() => {
    if (t.printed.length <= written.current) return;
    const lines = t.printed.slice(written.current).map((line) => printedText(line, color));
    written.current = t.printed.length;
    write(`${lines.join("\n")}\n`);
  });
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
