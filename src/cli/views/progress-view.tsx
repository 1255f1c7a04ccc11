import { Box, Static, Text } from "ink";
import { useEffect, useState } from "react";
import { printable } from "../printable.js";
import { formatCount, formatDuration, type FinishedUnit, type RunTracker } from "../reporters/tracker.js";

/** Notifies the view when the tracker changed. */
export interface ProgressFeed {
  readonly tracker: RunTracker;
  subscribe(listener: () => void): () => void;
}

const BAR_WIDTH = 30;
const MAX_RUNNING_SHOWN = 6;

/** A backfill or run in progress: finished units and warnings above, the bar and what is running below. */
export function ProgressView({ feed, title, color = true }: { feed: ProgressFeed; title: string; color?: boolean }) {
  const [, setVersion] = useState(0);
  useEffect(() => feed.subscribe(() => setVersion((v) => v + 1)), [feed]);
  const t = feed.tracker;
  const ratio = t.total > 0 ? Math.min(1, t.done / t.total) : 0;
  const filled = Math.round(ratio * BAR_WIDTH);
  const eta = t.etaMs;
  const running = [...t.running.entries()].slice(0, MAX_RUNNING_SHOWN);
  const now = Date.now();
  return (
    <Box flexDirection="column">
      <Static items={t.printed.map((line, index) => ({ line, index }))}>
        {({ line, index }) =>
          line.kind === "unit" ? (
            <FinishedLine key={index} unit={line.unit} color={color} />
          ) : (
            <Text key={index} color={color ? "yellow" : undefined}>
              {printable(line.text)}
            </Text>
          )
        }
      </Static>
      <Text bold={color}>{printable(title)}</Text>
      <Text>
        <Text color={color ? "green" : undefined}>{"█".repeat(filled)}</Text>
        <Text dimColor={color}>{"░".repeat(BAR_WIDTH - filled)}</Text>
        {` ${t.done}/${t.total}  ${Math.round(ratio * 100)}%  ${formatCount(t.rows)} rows  ${t.rate.toFixed(1)}/s`}
        {eta !== null && t.done < t.total ? `  ETA ${formatDuration(eta)}` : ""}
        {t.failed > 0 ? <Text color={color ? "red" : undefined}>{`  ${t.failed} failed`}</Text> : null}
      </Text>
      {running.map(([label, since]) => (
        <Text key={label} dimColor={color}>{`  running ${printable(label)}  ${formatDuration(now - since)}`}</Text>
      ))}
      {t.running.size > MAX_RUNNING_SHOWN ? <Text dimColor={color}>{`  and ${t.running.size - MAX_RUNNING_SHOWN} more`}</Text> : null}
    </Box>
  );
}

function FinishedLine({ unit, color }: { unit: FinishedUnit; color: boolean }) {
  return unit.ok ? (
    <Text>
      <Text color={color ? "green" : undefined}>{"✓ "}</Text>
      {`${printable(unit.label)}  ${formatCount(unit.rows)} rows  ${formatDuration(unit.durationMs)}`}
    </Text>
  ) : (
    <Text>
      <Text color={color ? "red" : undefined}>{"✗ "}</Text>
      {printable(`${unit.label}  ${unit.failures.join("; ")}`)}
    </Text>
  );
}
