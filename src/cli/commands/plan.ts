import { planMaterialize } from "../../api/plan.js";
import { loadProject } from "../../api/project.js";
import type { GlobalOptions } from "../main.js";
import { planOptions, type SelectionFlags } from "./selection.js";

/** Flags of `interloper plan`. */
export interface PlanFlags extends GlobalOptions, SelectionFlags {
  readonly order?: "newest" | "oldest";
  readonly json?: boolean;
}

/** `interloper plan`: prints the runs a materialize would make; returns the exit code. */
export async function planCommand(assets: readonly string[], flags: PlanFlags): Promise<number> {
  const project = await loadProject({ ...(flags.config ? { configPath: flags.config } : {}) });
  const plan = planMaterialize(project, { ...planOptions(assets, flags), order: flags.order ?? "newest" });
  const print = (line: string) => process.stdout.write(`${line}\n`);
  if (flags.json) {
    print(
      JSON.stringify({
        mode: plan.mode,
        window: plan.window ? String(plan.window) : null,
        order: plan.order,
        assets: plan.assets.map((a) => a.qualifiedKey),
        runs: plan.runs,
      }),
    );
    return 0;
  }
  print(`${plan.mode === "backfill" ? `Backfill of ${plan.runs.length} runs, ${plan.order} first` : "One run"}${plan.window ? ` over ${String(plan.window)}` : ""}:`);
  plan.runs.forEach((run, index) => print(`${String(index + 1).padStart(String(plan.runs.length).length)}. ${run.partition ?? "(unpartitioned)"}  ${run.assets.join(", ")}`));
  return 0;
}
