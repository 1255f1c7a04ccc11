import type { Asset } from "../asset/asset.js";
import { errorInfo } from "../asset/events.js";
import type { Project } from "../api/project.js";
import { ConfigError } from "../errors.js";
import type { RunResult } from "../runner/run-result.js";
import { runWindow, type RunInternals, type RunOptions } from "../runner/run.js";
import { projectIdentity } from "./identity.js";
import type { JobData } from "./queue-tables.js";

/** Why a job failed, as pg-boss keeps it in the job's output. */
export interface JobFailure {
  readonly message: string;
  readonly asset: string | null;
  readonly partition: string | null;
  readonly name: string;
}

/** The assets of a job, once it is known to be this project's; ConfigError when it is not. */
export function jobAssets(project: Project, data: JobData): Asset[] {
  const identity = projectIdentity(project);
  if (data.project !== identity)
    throw new ConfigError(
      `this worker's project (${identity}) is not the one that enqueued backfill ${data.backfill} (${data.project}): the config file, its assets, and each asset's destinations and dataset must be the same; start the worker with the config and environment the backfill was enqueued with`,
    );
  return data.assets.map((key) => {
    const asset = project.dag.find(key);
    if (!asset) throw new ConfigError(`the job of backfill ${data.backfill} names the asset "${key}", which this project does not define`);
    return asset;
  });
}

/** Runs a job's slot in this process: one run of its assets over its partition, with the usual events. */
export async function runJob(
  project: Project,
  data: JobData,
  options: RunOptions & Pick<RunInternals, "beforeWrite" | "context">,
): Promise<RunResult> {
  const assets = jobAssets(project, data);
  const partitioning = assets[0]?.partitioning ?? null;
  const window = data.partition !== null && partitioning ? partitioning.partition(data.partition).window : null;
  return runWindow(project.dag, assets, window, { ...options, backfillId: data.backfill });
}

/** The failure to record for a run that did not complete. */
export function failureOf(result: RunResult, partition: string | null): JobFailure {
  const failed = Object.values(result.assetExecutions).find((e) => e.status === "failed");
  const canceled = Object.values(result.assetExecutions).find((e) => e.status === "canceled");
  const error = failed?.error ?? result.runError ?? canceled?.error ?? new Error(`the run ended ${result.status}`);
  const info = errorInfo(error);
  return { name: info.name, message: info.message, asset: (failed ?? canceled)?.asset ?? null, partition };
}

/** The failure to record for an error thrown outside the run. */
export function failureOfError(error: unknown, partition: string | null): JobFailure {
  const info = errorInfo(error);
  return { name: info.name, message: info.message, asset: null, partition };
}
