import type { AssetVerification, CheckVerdict } from "../../api/session/index.js";
import { count, formatCount } from "../../text/english.js";
import { openCommandSession } from "../command-session.js";
import type { GlobalOptions } from "../main.js";
import { printableLines, terminalJson } from "../printable.js";
import { valuesOf, type ExcludeFlags } from "./selection.js";

/** Flags of `interloper verify`. */
export interface VerifyFlags extends GlobalOptions, ExcludeFlags {
  readonly partition?: string;
  readonly window?: string;
  /** `--values` texts (`region=eu,us`). */
  readonly values?: readonly string[];
  readonly destination?: string;
  readonly json?: boolean;
}

/**
 * `interloper verify [selectors...]`: each selected asset's checks over its stored partitions
 * in each destination, nothing written. Exit 1 when an error check failed or a partition could
 * not be read, 0 otherwise (warnings included).
 */
export async function verifyCommand(selectors: readonly string[], flags: VerifyFlags): Promise<number> {
  const session = await openCommandSession(flags);
  const scope = {
    ...(flags.window !== undefined ? { window: flags.window } : {}),
    ...(flags.partition !== undefined ? { partition: flags.partition } : {}),
    ...(flags.destination !== undefined ? { destination: flags.destination } : {}),
    ...valuesOf(session, selectors, flags),
  };
  const verified = await session.verify({ select: selectors, exclude: flags.exclude ?? [] }, scope);
  const failed = verified.flatMap((a) => a.partitions.flatMap((p) => p.verdicts.filter((v) => !v.passed)));
  const unreadable = verified.reduce((sum, a) => sum + a.partitions.filter((p) => p.unreadable !== undefined).length, 0);
  const exit = unreadable > 0 || failed.some((v) => v.severity === "error") ? 1 : 0;
  if (flags.json) {
    process.stdout.write(`${terminalJson(JSON.stringify(verified.map(asJson)))}\n`);
    return exit;
  }
  // Without selectors, an asset without checks is named only when no asset has any.
  const shown =
    selectors.length > 0 || verified.every((a) => a.checks.length === 0) ? verified : verified.filter((a) => a.checks.length > 0);
  // An asset verified in several destinations names the destination on each of its lines.
  const several = new Set(verified.filter((a, i) => verified.findIndex((b) => b.asset === a.asset) !== i).map((a) => a.asset));
  const lines = shown.flatMap((a) => assetLines(a, several.has(a.asset) ? ` (${a.destination})` : ""));
  process.stdout.write(`${printableLines([...lines, closingLine(verified, failed, unreadable)])}\n`);
  return exit;
}

/** An asset in a destination as --json gives it: its checks, and per stored partition each check's verdict. */
function asJson(asset: AssetVerification) {
  return {
    asset: asset.asset,
    destination: asset.destination,
    checks: asset.checks,
    partitions: asset.partitions.map((p) => ({
      partition: p.partition,
      passed: p.unreadable === undefined && p.verdicts.every((v) => v.passed || v.severity === "warn"),
      ...(p.unreadable !== undefined ? { unreadable: p.unreadable } : {}),
      checks: p.verdicts.map((v) => ({
        name: v.name,
        severity: v.severity,
        passed: v.passed,
        failures: v.failures,
        examples: v.examples,
        message: v.message,
      })),
    })),
  };
}

/**
 * One line per partition that could not be read and per failed check per partition (`where`
 * names the destination when the asset has several); an asset without checks (or nothing
 * stored) says so.
 */
function assetLines(asset: AssetVerification, where: string): string[] {
  if (asset.checks.length === 0) return [`${asset.asset}: no checks`];
  if (asset.partitions.length === 0) return [`${asset.asset}${where}: nothing stored to verify`];
  return asset.partitions.flatMap((p) => {
    const at = `${asset.asset}${p.partition === null ? "" : ` ${p.partition}`}${where}`;
    if (p.unreadable !== undefined) return [`FAIL ${at}: unreadable: ${p.unreadable}`];
    return p.verdicts.filter((v) => !v.passed).map((v) => `${v.severity === "error" ? "FAIL" : "WARN"} ${at}: ${verdictText(v)}`);
  });
}

/** `check unique(order_id) failed: 3 rows of 40 repeat the order_id of an earlier row, e.g. 17, 18, 23`. */
function verdictText(v: CheckVerdict): string {
  const examples = v.examples.length > 0 ? `, e.g. ${v.examples.join(", ")}` : "";
  return `check ${v.name} failed: ${v.message}${examples}`;
}

/**
 * `Verified 3 assets, 365 partitions: 2 checks failed (1 error, 1 warn)`, with `1 partition
 * unreadable` before it when one was, or `: all checks passed`. A partition counts once per
 * destination it was read from.
 */
function closingLine(verified: readonly AssetVerification[], failed: readonly CheckVerdict[], unreadable: number): string {
  const checked = verified.filter((a) => a.checks.length > 0);
  const partitions = checked.reduce((sum, a) => sum + a.partitions.length, 0);
  const head = `Verified ${count(new Set(checked.map((a) => a.asset)).size, "asset")}, ${count(partitions, "partition")}`;
  if (failed.length === 0 && unreadable === 0) return `${head}: all checks passed`;
  const errors = failed.filter((v) => v.severity === "error").length;
  const kinds = [errors ? `${formatCount(errors)} error` : "", failed.length - errors ? `${formatCount(failed.length - errors)} warn` : ""];
  const said = [
    unreadable > 0 ? `${count(unreadable, "partition")} unreadable` : "",
    failed.length > 0 ? `${count(failed.length, "check")} failed (${kinds.filter(Boolean).join(", ")})` : "",
  ];
  return `${head}: ${said.filter(Boolean).join(", ")}`;
}
