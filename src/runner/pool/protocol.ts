// What a pool's parent and its workers say to each other over the IPC channel: plain JSON
// values only, so a run result is sent as data and rebuilt into typed values on arrival.
import * as errors from "../../errors.js";
import type { InterloperEvent } from "../events.js";
import { RunResult, type AssetExecution, type ExecutionStatus } from "../run-result.js";

/** One partition for a worker to run. */
export interface WorkerTask {
  readonly kind: "task";
  readonly partition: string;
  readonly assets: readonly string[];
  readonly backfillId: string;
  /** The run's limit, from its start in the worker. */
  readonly timeoutMs?: number;
  readonly graceMs: number;
  readonly concurrency: number;
  readonly failFast: boolean;
  /** Ask the parent before each destination write (a queue worker checks that it still holds the job). */
  readonly askBeforeWrite?: boolean;
}

/** The parent's answer to a `may-write`: whether the write may start, else why not. */
export interface WorkerMayWriteReply {
  readonly kind: "may-write-reply";
  readonly id: number;
  readonly refusal: string | null;
}

/** The parent was interrupted: the worker gives its run the grace, naming `reason` (e.g. "SIGINT"). */
export interface WorkerInterrupt {
  readonly kind: "interrupt";
  readonly reason: string;
}

/** No more tasks: the worker closes its destinations and exits. */
export interface WorkerShutdown {
  readonly kind: "shutdown";
}

export type ToWorker = WorkerTask | WorkerInterrupt | WorkerShutdown | WorkerMayWriteReply;

/** An event of the task's run, re-emitted by the parent. */
export interface WorkerEvent {
  readonly kind: "event";
  readonly event: InterloperEvent;
}

/** The task's run ended. `exiting`: the worker exits after this (it left work running, or was told to stop). */
export interface WorkerResult {
  readonly kind: "result";
  readonly result: RunResultData;
  readonly exiting: boolean;
}

/** The worker loaded its project and takes tasks. */
export interface WorkerReady {
  readonly kind: "ready";
}

/** A destination write is about to start: may it? (only for a task with `askBeforeWrite`) */
export interface WorkerMayWrite {
  readonly kind: "may-write";
  readonly id: number;
}

export type FromWorker = WorkerReady | WorkerEvent | WorkerResult | WorkerMayWrite;

/** An error as data: enough to rebuild one of interloper's error classes with its stack. */
export interface ErrorData {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  /** An error's own `code` (a system error's "ENOENT"), when it is not one of interloper's classes. */
  readonly code?: string;
  readonly written?: readonly string[];
  readonly failedDestinations?: readonly string[];
  /** A CheckError's asset and failed checks. */
  readonly asset?: string;
  readonly failed?: readonly errors.FailedCheck[];
}

export interface AssetExecutionData {
  readonly asset: string;
  readonly status: ExecutionStatus;
  readonly startTime: string | null;
  readonly endTime: string | null;
  readonly error: ErrorData | null;
  readonly rows: number | null;
  readonly written: readonly string[];
  readonly failedDestinations: readonly string[];
}

export interface RunResultData {
  readonly runId: string;
  readonly status: ExecutionStatus;
  readonly executionTime: number;
  readonly partitionOrWindow: string | null;
  readonly assetExecutions: Readonly<Record<string, AssetExecutionData>>;
  readonly runError: ErrorData | null;
}

export function errorToData(error: Error): ErrorData {
  const writes =
    error instanceof errors.DestinationWriteError
      ? { written: error.written, failedDestinations: error.failedDestinations }
      : error instanceof errors.CheckError
        ? { asset: error.asset, failed: error.failed }
        : {};
  const code = (error as { code?: unknown }).code;
  return {
    name: error.name,
    message: error.message,
    ...(error.stack ? { stack: error.stack } : {}),
    ...(typeof code === "string" ? { code } : {}),
    ...writes,
  };
}

/** The error classes a worker's errors come back as, by name, so `instanceof` holds in the parent. */
const ERROR_CLASSES: Readonly<Record<string, new (message: string) => Error>> = {
  InterloperError: errors.InterloperError,
  ConfigError: errors.ConfigError,
  PartitionError: errors.PartitionError,
  DataNotFoundError: errors.DataNotFoundError,
  SchemaError: errors.SchemaError,
  DAGError: errors.DAGError,
  DependencyNotFoundError: errors.DependencyNotFoundError,
  AssetError: errors.AssetError,
};

export function errorFromData(data: ErrorData): Error {
  const error =
    data.name === "DestinationWriteError"
      ? new errors.DestinationWriteError(data.message, { written: data.written ?? [], failedDestinations: data.failedDestinations ?? [] })
      : data.name === "CheckError"
        ? new errors.CheckError(data.message, { asset: data.asset ?? "", failed: data.failed ?? [] })
        : new (Object.hasOwn(ERROR_CLASSES, data.name) ? ERROR_CLASSES[data.name]! : Error)(data.message);
  // A class of the user's (or CircularDependencyError, whose constructor takes a cycle) keeps its name.
  if (error.name !== data.name) error.name = data.name;
  if (data.stack) error.stack = data.stack;
  if (data.code !== undefined && !(error instanceof errors.InterloperError)) Object.assign(error, { code: data.code });
  return error;
}

export function runResultToData(result: RunResult): RunResultData {
  const executions = Object.entries(result.assetExecutions).map(([key, e]): [string, AssetExecutionData] => [
    key,
    {
      asset: e.asset,
      status: e.status,
      startTime: e.startTime?.toISOString() ?? null,
      endTime: e.endTime?.toISOString() ?? null,
      error: e.error ? errorToData(e.error) : null,
      rows: e.rows,
      written: e.written,
      failedDestinations: e.failedDestinations,
    },
  ]);
  return {
    runId: result.runId,
    status: result.status,
    executionTime: result.executionTime,
    partitionOrWindow: result.partitionOrWindow,
    assetExecutions: Object.fromEntries(executions),
    runError: result.runError ? errorToData(result.runError) : null,
  };
}

export function runResultFromData(data: RunResultData): RunResult {
  const executions = Object.entries(data.assetExecutions).map(([key, e]): [string, AssetExecution] => [
    key,
    {
      asset: e.asset,
      status: e.status,
      startTime: e.startTime === null ? null : new Date(e.startTime),
      endTime: e.endTime === null ? null : new Date(e.endTime),
      error: e.error ? errorFromData(e.error) : null,
      rows: e.rows,
      written: [...e.written],
      failedDestinations: [...e.failedDestinations],
    },
  ]);
  return new RunResult({
    runId: data.runId,
    status: data.status,
    executionTime: data.executionTime,
    partitionOrWindow: data.partitionOrWindow,
    assetExecutions: Object.fromEntries(executions),
    runError: data.runError ? errorFromData(data.runError) : null,
  });
}
