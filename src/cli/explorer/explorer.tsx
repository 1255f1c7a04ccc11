import { Box, Text, useInput, type Key } from "ink";
import { useCallback, useEffect, useLayoutEffect, useReducer, useRef, useState } from "react";
import type { Coverage } from "../../api/session/index.js";
import { count } from "../../text/english.js";
import { cutToWidth, neverLine } from "../views/coverage-text.js";
import { CellRun } from "../views/coverage-view.js";
import type { PartitionInDestination } from "../../api/session/index.js";
import { colorProp } from "../views/color-prop.js";
import type { ExplorerExit, ExplorerPlace } from "./explorer-state.js";
import { applyPress, cursorOf, initialState, pressesOf, type ExplorerState, type Press } from "./explorer-keys.js";
import {
  detailLines,
  detailsHeight,
  fitList,
  fitPicture,
  helpLines,
  pictureHeight,
  pictureOf,
  statusLines,
  type Details,
  type PictureBlock,
} from "./explorer-layout.js";

export interface ExplorerProps {
  readonly coverages: readonly Coverage[];
  readonly width: number;
  /** Terminal rows: everything shown fits them; what does not scrolls to the cursor. */
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

/**
 * `coverage --interactive`: every selected asset as a summary line, the selected one's picture
 * with a cursor on one partition, and that partition's details on Enter.
 */
export function CoverageExplorer({ coverages, width, height, color = true, place, message, details, onExit }: ExplorerProps) {
  // Every key of a burst is applied to the state the one before it left (see explorer-keys.ts).
  const [state, dispatch] = useReducer(
    (s: ExplorerState, presses: readonly Press[]) => presses.reduce((next, press) => applyPress(next, press, coverages), s),
    undefined,
    () => initialState(coverages, place),
  );
  useInput(useCallback((input: string, key: Key) => dispatch(pressesOf(input, key)), []));
  // The keys are offered once they are read: this effect runs after useInput's, which puts the
  // terminal in raw mode; a key typed before that would wait for Enter, or be lost.
  const [ready, setReady] = useState(false);
  useEffect(() => setReady(true), []);

  // Told as the frame that follows the key is committed (a layout effect): at once, not after it.
  const exited = useRef(false);
  useLayoutEffect(() => {
    if (!state.exit || exited.current) return;
    exited.current = true;
    onExit(state.exit);
  }, [state.exit]);

  const { shown, current, selected } = cursorOf(state, coverages);
  const opened = useDetails(state.opened, current?.asset ?? null, details);

  // The lines, fitted to the terminal (one row spare: a frame as tall as the terminal makes ink
  // clear the whole screen on every redraw).
  const rows = height - 1;
  const notice = state.typing === "goto" ? `go to a key of ${current?.asset ?? ""}: ${state.goto}▏` : state.notice;
  // An asset never materialized has no picture to read that from: its status says so first.
  const status = [
    ...(current?.neverMaterialized ? [neverLine(current, width)] : []),
    ...(current && selected ? statusLines(current, selected, width) : []),
  ];
  const help = helpLines(current, state.typing, width);
  const fixed = 1 + (message ? 1 : 0) + (shown.length === 0 ? 1 : 0) + status.length + (notice ? 1 : 0) + help.length;
  const listLeast = fitList(shown, current, width, 0).length;
  // The reasons of the partition under the cursor: the opened one (moving on closes it).
  const reasons = opened && selected?.key === opened.key ? (selected.staleReasons ?? []) : [];
  const detail = opened ? detailLines(opened, width, rows - fixed - listLeast, reasons) : [];
  const detailRows = opened ? detailsHeight(opened, detail) : 0;
  const picture = current ? fitPicture(pictureOf(current, width), selected?.key ?? null, rows - fixed - listLeast - detailRows, width) : [];
  const list = fitList(shown, current, width, rows - fixed - detailRows - pictureHeight(picture));

  return (
    <Box flexDirection="column" width={width}>
      <Text bold={color}>
        {cutToWidth(
          `coverage explorer: ${count(shown.length, "asset")}${state.filter || state.typing === "filter" ? ` matching "${state.filter}"${state.typing === "filter" ? "▏" : ""}` : ""}`,
          width,
        )}
      </Text>
      {message ? <Text {...colorProp(color ? "cyan" : undefined)}>{cutToWidth(message, width)}</Text> : null}
      {shown.length === 0 ? (
        <Text>{coverages.length ? "no asset matches the filter (/ then Esc clears it)" : "no partitioned assets"}</Text>
      ) : null}
      {list.map((line, i) => {
        const here = line.asset === current?.asset;
        return (
          <Text key={i} inverse={color && here && line.first} bold={!color && here}>
            {`${here && line.first ? "›" : " "} ${line.text}`}
          </Text>
        );
      })}
      {picture.length ? <Picture blocks={picture} selected={selected?.key} color={color} /> : null}
      {status.map((line, i) => (
        <Text key={`status${i}`}>{line}</Text>
      ))}
      {opened ? <DetailsPanel details={opened} lines={detail} /> : null}
      {notice ? <Text {...colorProp(color ? "yellow" : undefined)}>{cutToWidth(notice, width)}</Text> : null}
      {ready
        ? help.map((line, i) => (
            <Text key={`help${i}`} dimColor={color}>
              {line}
            </Text>
          ))
        : null}
    </Box>
  );
}

/** The opened partition's details: read once per partition opened; a stale answer (the cursor moved on) is dropped. */
function useDetails(
  key: string | null,
  asset: string | null,
  read: (asset: string, key: string) => Promise<PartitionInDestination[]>,
): Details | null {
  const [loaded, setLoaded] = useState<Details | null>(null);
  useEffect(() => {
    if (key === null || asset === null) return;
    let live = true;
    read(asset, key).then(
      (rows) => live && setLoaded({ key, state: "ready", rows }),
      (error: unknown) => live && setLoaded({ key, state: "failed", error: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      live = false;
    };
    // Only a newly opened partition loads: a re-render with the same one must not read again.
  }, [key, asset]);
  if (key === null) return null;
  return loaded?.key === key ? loaded : { key, state: "loading" };
}

/** The fitted picture with the cursor's cell in inverse video. */
function Picture({ blocks, selected, color }: { blocks: readonly PictureBlock[]; selected: string | undefined; color: boolean }) {
  return (
    <Box flexDirection="column" marginTop={1}>
      {blocks.map((block, b) => (
        <Box key={b} flexDirection="column">
          {block.title !== null ? <Text bold={color}>{block.title}</Text> : null}
          {block.header !== null ? (
            <Text dimColor={color}>{" ".repeat(block.labelWidth ? block.labelWidth + 1 : 0) + block.header}</Text>
          ) : null}
          {block.rows.map(({ row, suffix }, r) => (
            <Text key={r}>
              <CellRun row={row} labelWidth={block.labelWidth} color={color} cellWidth={block.cellWidth} selected={selected} />
              {suffix}
            </Text>
          ))}
          {block.note !== null ? <Text dimColor={color}>{`(${block.note})`}</Text> : null}
        </Box>
      ))}
    </Box>
  );
}

/** Row count, time written and location of the opened partition in each destination. */
function DetailsPanel({ details, lines }: { details: Details; lines: readonly string[] }) {
  if (details.state !== "ready") return <Text>{lines[0]}</Text>;
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      {lines.map((line, i) => (
        <Text key={i}>{line}</Text>
      ))}
    </Box>
  );
}
