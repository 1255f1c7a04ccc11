import { Box, Text, useInput, type Key } from "ink";
import { useCallback, useEffect, useRef, useState } from "react";
import type { Coverage, PartitionCoverage } from "../../api/coverage/index.js";
import { count, formatCount } from "../../text/english.js";
import { printable } from "../printable.js";
import { layoutCoverage } from "../views/coverage-layout.js";
import { cutToWidth, summaryColumns, summaryEntry } from "../views/coverage-text.js";
import { CellRun } from "../views/coverage-view.js";
import type { PartitionInDestination } from "../views/partition-details.js";
import { filtered, steps, windowAround, type ExplorerExit, type ExplorerPlace } from "./explorer-state.js";
import { colorProp } from "../views/color-prop.js";

export interface ExplorerProps {
  readonly coverages: readonly Coverage[];
  readonly width: number;
  /** Terminal rows: an hourly picture shows as many days as leave room for the rest. */
  readonly height: number;
  readonly color?: boolean;
  /** Where to open (after a materialization, where the user was). */
  readonly place?: ExplorerPlace;
  /** A line to show first, such as how the last materialization ended. */
  readonly message?: string;
  /** Row counts, write times and locations of one partition, per destination. */
  readonly details: (asset: string, key: string) => Promise<PartitionInDestination[]>;
  /** Called once, when the user quits or asks for a materialization. */
  readonly onExit: (exit: ExplorerExit) => void;
}

export const KEYS_HELP = "←→ period  ↑↓ asset  enter details  m materialize  / filter  q quit";

type Details =
  | { readonly key: string; readonly state: "loading" }
  | { readonly key: string; readonly state: "ready"; readonly rows: readonly PartitionInDestination[] }
  | { readonly key: string; readonly state: "failed"; readonly error: string };

/**
 * `coverage --interactive`: every selected asset as a summary line, the selected one's picture
 * with a cursor on one partition, and that partition's details on Enter.
 */
export function CoverageExplorer({ coverages, width, height, color = true, place, message, details, onExit }: ExplorerProps) {
  const [filter, setFilter] = useState(place?.filter ?? "");
  const [typing, setTyping] = useState(false);
  const [asset, setAsset] = useState<string | null>(place?.asset ?? coverages[0]?.asset ?? null);
  const [key, setKey] = useState<string | null>(place?.key ?? null);
  const [opened, setOpened] = useState<Details | null>(null);
  const [done, setDone] = useState(false);

  const shown = filtered(coverages, filter);
  const current = shown.find((c) => c.asset === asset) ?? shown[0] ?? null;
  // Room for the hours of an hourly asset: what the list, the facts and the keys leave.
  const hourDays = Math.max(3, height - shown.length - 14);
  const path = current ? steps(current, width, hourDays) : [];
  const at = Math.max(0, key === null ? path.length - 1 : path.findIndex((p) => p.key === key));
  const selected: PartitionCoverage | null = path[at] ?? null;

  // An opened partition's details load once; a stale answer (the cursor moved on) is dropped.
  useEffect(() => {
    if (!opened || opened.state !== "loading" || !current) return;
    let live = true;
    details(current.asset, opened.key).then(
      (rows) => live && setOpened({ key: opened.key, state: "ready", rows }),
      (error: unknown) =>
        live && setOpened({ key: opened.key, state: "failed", error: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      live = false;
    };
    // Only a newly opened partition loads: a re-render with the same one must not read again.
  }, [opened]);

  const exit = (value: ExplorerExit) => {
    if (done) return;
    setDone(true);
    onExit(value);
  };

  const moveAsset = (by: number) => {
    if (!current) return;
    const next = shown[Math.min(shown.length - 1, Math.max(0, shown.indexOf(current) + by))]!;
    setAsset(next.asset);
    setKey(null);
    setOpened(null);
  };
  const movePeriod = (by: number) => {
    const next = path[Math.min(path.length - 1, Math.max(0, at + by))];
    if (!next) return;
    setKey(next.key);
    setOpened(null);
  };

  const onKey = (input: string, k: Key) => {
    if (done) return;
    if (typing) {
      if (k.return) setTyping(false);
      else if (k.escape) {
        setTyping(false);
        setFilter("");
      } else if (k.backspace || k.delete) setFilter((f) => f.slice(0, -1));
      else if (input && !k.ctrl && !k.meta && !k.upArrow && !k.downArrow && !k.leftArrow && !k.rightArrow) setFilter((f) => f + input);
      setOpened(null);
      return;
    }
    if (input === "q" || (k.ctrl && input === "c")) exit({ kind: "quit" });
    else if (input === "/") setTyping(true);
    else if (k.upArrow) moveAsset(-1);
    else if (k.downArrow) moveAsset(1);
    else if (k.leftArrow) movePeriod(-1);
    else if (k.rightArrow) movePeriod(1);
    else if (k.escape) setOpened(null);
    else if (k.return && selected) setOpened(opened?.key === selected.key ? null : { key: selected.key, state: "loading" });
    else if (input === "m" && current && selected) {
      exit({
        kind: "materialize",
        asset: current.asset,
        window: windowAround(current, selected.key),
        place: { asset: current.asset, key: selected.key, filter },
      });
    }
  };
  // ink subscribes again whenever the handler changes; a key arriving between a render and the
  // new subscription would be lost. One stable handler reads the latest render's through a ref.
  const latest = useRef(onKey);
  latest.current = onKey;
  useInput(useCallback((input: string, k: Key) => latest.current(input, k), []));
  // The keys are offered once they are read: this effect runs after useInput's, which puts the
  // terminal in raw mode; a key typed before that would wait for Enter, or be lost.
  const [ready, setReady] = useState(false);
  useEffect(() => setReady(true), []);

  const columns = shown.length ? summaryColumns(shown, width - 2) : null;
  return (
    <Box flexDirection="column">
      <Text bold={color}>
        {cutToWidth(
          `coverage explorer: ${count(shown.length, "asset")}${filter || typing ? ` matching "${filter}"${typing ? "▏" : ""}` : ""}`,
          width,
        )}
      </Text>
      {message ? <Text {...colorProp(color ? "cyan" : undefined)}>{cutToWidth(message, width)}</Text> : null}
      {shown.length === 0 ? (
        <Text>{coverages.length ? "no asset matches the filter (/ then Esc clears it)" : "no partitioned assets"}</Text>
      ) : null}
      {shown.map((c) =>
        summaryEntry(c, columns!.key, columns!.bar, width - 2, columns!).map((line, i) => (
          <Text key={`${c.asset}:${i}`} inverse={color && c === current && i === 0} bold={!color && c === current}>
            {`${c === current && i === 0 ? "›" : " "} ${line}`}
          </Text>
        )),
      )}
      {current ? <Picture coverage={current} width={width} hourDays={hourDays} selected={selected?.key} color={color} /> : null}
      {current && selected ? (
        <Text>
          {cutToWidth(
            `${current.asset} ${selected.key}: ${statusOf(selected)}${selected.status === "missing" ? `; m materializes ${windowAround(current, selected.key)}` : ""}`,
            width,
          )}
        </Text>
      ) : null}
      {opened && opened.key === selected?.key ? <DetailsPanel details={opened} width={width} /> : null}
      {ready ? <Text dimColor={color}>{cutToWidth(typing ? "type to filter  enter keep  esc clear" : KEYS_HELP, width)}</Text> : null}
    </Box>
  );
}

/** A partition's state in words. */
function statusOf(p: PartitionCoverage): string {
  switch (p.status) {
    case "missing":
      return p.missingIn ? `missing in ${p.missingIn.join(", ")}` : "missing";
    case "empty":
      return "empty (0 rows)";
    case "unreadable":
      return `unreadable: ${p.file ?? "?"}: ${p.error ?? ""}`;
    case "in-progress":
      return `in progress, ${p.rows === null ? "nothing stored so far" : `${count(p.rows, "row")} so far`}`;
    default:
      return count(p.rows ?? 0, "row");
  }
}

/** The selected asset's calendar (or list of bars) with the cursor's cell in inverse video. */
function Picture({
  coverage,
  width,
  hourDays,
  selected,
  color,
}: {
  coverage: Coverage;
  width: number;
  hourDays: number;
  selected: string | undefined;
  color: boolean;
}) {
  if (coverage.kind === "list") {
    const expected = coverage.partitions.filter((p) => p.status !== "unexpected");
    const labelWidth = Math.max(...expected.map((p) => p.key.length));
    const rows = expected.map((p) => ({
      label: "",
      cells: [{ status: p.status, level: p.status === "materialized" ? 4 : 0, partition: p }],
    }));
    return (
      <Box flexDirection="column" marginTop={1}>
        {rows.map((row, i) => (
          <Box key={i}>
            <Text>{`${expected[i]!.key.padEnd(labelWidth)} `}</Text>
            <CellRun row={row} labelWidth={0} color={color} cellWidth={1} selected={selected} />
            <Text>{` ${statusOf(expected[i]!)}`}</Text>
          </Box>
        ))}
      </Box>
    );
  }
  return (
    <Box flexDirection="column" marginTop={1}>
      {layoutCoverage(coverage, width, { hourDays }).map((block, b) => {
        const labelWidth = Math.max(0, ...block.rows.map((r) => r.label.length));
        return (
          <Box key={b} flexDirection="column">
            <Text bold={color}>{block.title}</Text>
            {block.header ? <Text dimColor={color}>{" ".repeat(labelWidth ? labelWidth + 1 : 0) + block.header}</Text> : null}
            {block.rows.map((row, r) => (
              <CellRun key={r} row={row} labelWidth={labelWidth} color={color} cellWidth={block.cellWidth} selected={selected} />
            ))}
            {block.note ? <Text dimColor={color}>{`(${block.note})`}</Text> : null}
          </Box>
        );
      })}
    </Box>
  );
}

/** Row count, time written and location of the opened partition in each destination. */
function DetailsPanel({ details, width }: { details: Details; width: number }) {
  if (details.state === "loading") return <Text>{`${details.key}: reading the destinations…`}</Text>;
  if (details.state === "failed") return <Text>{cutToWidth(printable(`${details.key}: ${details.error}`), width)}</Text>;
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      {details.rows.map((d) => (
        <Box key={d.destination} flexDirection="column">
          <Text bold>{printable(d.destination)}</Text>
          <Text>{`  rows     ${d.rows === null ? "missing here" : formatCount(d.rows)}`}</Text>
          <Text>{`  written  ${d.writtenAt ? `${d.writtenAt.toISOString().replace("T", " ").slice(0, 19)} UTC` : d.rows === null ? "never" : "not recorded by this destination"}`}</Text>
          <Text wrap="wrap">{`  where    ${d.location === null ? "not said by this destination" : printable(d.location)}`}</Text>
        </Box>
      ))}
    </Box>
  );
}
