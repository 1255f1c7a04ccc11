import type { AssetGraph } from "../asset/dependencies.js";
import { runStages, type BackfillOptions, type BackfillResult } from "./backfill.js";
import type { Plan } from "./plan.js";
import { runWindow, type RunInternals } from "./run.js";
import type { RunResult } from "./run-result.js";

/** How a plan is executed: everything but what the plan decided (assets, order, partitions); `context` is its session's. */
export type ExecutionOptions = Omit<BackfillOptions, "assets" | "order" | "only"> & Pick<RunInternals, "context">;

/**
 * Executes a plan of this graph as it stands: one run, or its schedule of partitions (in
 * process, or in worker processes with `processes`). Nothing is selected or checked again.
 */
export function executePlan(graph: AssetGraph, plan: Plan, options: ExecutionOptions = {}): Promise<RunResult | BackfillResult> {
  if (plan.mode === "run") return runWindow(graph, plan.assets, plan.window, options);
  return runStages(graph, plan.schedule, { ...options, order: plan.order, window: plan.window ? String(plan.window) : "(every value)" });
}
