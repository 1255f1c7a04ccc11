// The work queue (issue 23): backfills enqueued on PostgreSQL through pg-boss, run by any
// number of workers. Only the command line imports this layer.
export { cancelBackfill, retryFailed } from "./backfill-actions.js";
export { enqueuePlan, projectIdentity, type EnqueueOptions, type EnqueueResult } from "./enqueue.js";
export { jobGraph, type JobEdge, type JobGraph, type JobSlot } from "./job-graph.js";
export {
  backfillProgress,
  checkBackfillId,
  listBackfills,
  type BackfillProgress,
  type BackfillStatus,
  type SlotProgress,
  type SlotState,
} from "./progress.js";
export { QueueConnection, QueueServerError, parseQueueUrl, type ConnectionOptions, type QueueSettings } from "./queue-connection.js";
export type { JobData } from "./queue-tables.js";
export { runWorker, workerName, type JobEvent, type WorkerOptions, type WorkerSummary } from "./worker.js";
