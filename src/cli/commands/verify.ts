import type { AssetVerification, CheckVerdict } from "../../api/session/index.js";
import { count, formatCount } from "../../text/english.js";
import { openCommandSession } from "../command-session.js";
import type { GlobalOptions } from "../main.js";
import { printableLines, terminalJson } from "../printable.js";
import type { ExcludeFlags } from "./selection.js";

/** Flags of `interloper verify`. */
export interface VerifyFlags extends GlobalOptions, ExcludeFlags {
  readonly partition?: string;
  readonly window?: string;
  readonly json?: boolean;
}

/**
 * `interloper verify [selectors...]`: each selected asset's checks over its stored partitions,
 * nothing written. Exit 1 when an error check failed, 0 otherwise (warnings included).
 */
export async function verifyCommand(selectors: readonly string[], flags: VerifyFlags): Promise<number> {
  const session = await openCommandSession(flags);
  const scope = {
    ...(flags.window !== undefined ? { window: flags.window } : {}),
    ...(flags.partition !== undefined ? { partition: flags.partition } : {}),
  };
  const verified = await session.verify({ select: selectors, exclude: flags.exclude ?? [] }, scope);
  const failed = verified.flatMap((a) => a.partitions.flatMap((p) => p.verdicts.filter((v) => !v.passed)));
  const exit = failed.some((v) => v.severity === "error") ? 1 : 0;
  if (flags.json) {
    process.stdout.write(`${terminalJson(JSON.stringify(verified.map(asJson)))}\n`);
    return exit;
  }
  // Without selectors, an asset without checks is named only when no asset has any.
  const shown =
    selectors.length > 0 || verified.every((a) => a.checks.length === 0) ? verified : verified.filter((a) => a.checks.length > 0);
  process.stdout.write(`${printableLines([...shown.flatMap(assetLines), closingLine(verified, failed)])}\n`);
  return exit;
}

/** An asset as --json gives it: its checks, and per stored partition each check's verdict. */
function asJson(asset: AssetVerification) {
  return {
    asset: asset.asset,
    checks: asset.checks,
    partitions: asset.partitions.map((p) => ({
      partition: p.partition,
      passed: p.verdicts.every((v) => v.passed || v.severity === "warn"),
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

/** One line per failed check per partition; an asset without checks (or nothing stored) says so. */
function assetLines(asset: AssetVerification): string[] {
  if (asset.checks.length === 0) return [`${asset.asset}: no checks`];
  if (asset.partitions.length === 0) return [`${asset.asset}: nothing stored to verify`];
  return asset.partitions.flatMap((p) =>
    p.verdicts
      .filter((v) => !v.passed)
      .map(
        (v) =>
          `${v.severity === "error" ? "FAIL" : "WARN"} ${asset.asset}${p.partition === null ? "" : ` ${p.partition}`}: ${verdictText(v)}`,
      ),
  );
}

/** `check unique(order_id) failed: 3 rows of 40 repeat the order_id of an earlier row, e.g. 17, 18, 23`. */
function verdictText(v: CheckVerdict): string {
  const examples = v.examples.length > 0 ? `, e.g. ${v.examples.join(", ")}` : "";
  return `check ${v.name} failed: ${v.message}${examples}`;
}

/** `Verified 3 assets, 365 partitions: 2 checks failed (1 error, 1 warn)`, or `: all checks passed`. */
function closingLine(verified: readonly AssetVerification[], failed: readonly CheckVerdict[]): string {
  const checked = verified.filter((a) => a.checks.length > 0);
  const partitions = checked.reduce((sum, a) => sum + a.partitions.length, 0);
  const head = `Verified ${count(checked.length, "asset")}, ${count(partitions, "partition")}`;
  if (failed.length === 0) return `${head}: all checks passed`;
  const errors = failed.filter((v) => v.severity === "error").length;
  const parts = [errors ? `${formatCount(errors)} error` : "", failed.length - errors ? `${formatCount(failed.length - errors)} warn` : ""];
  return `${head}: ${count(failed.length, "check")} failed (${parts.filter(Boolean).join(", ")})`;
}
