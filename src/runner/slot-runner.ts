// The body of a backfill: its slots run stage by stage, at most `concurrency` at once, each as
// one run in this process or one task of the process pool. Which of a slot's assets may run is
// decided by what the stages before left (Requirements): an asset whose upstream partitions are
// neither run nor stored waits, one whose upstream partitions did not complete is canceled.
// backfill.ts checks the options, sets up the runs and the pool, and sums up what this leaves.
import type { AssetGraph } from "../asset/dependencies.js";
import type { RunControl } from "./attempt.js";
import type { NotRunPartition, PartitionOutcome } from "./backfill.js";
import type { EventHandler } from "./events.js";
import type { ExecutionStatus, RunResult } from "./run-result.js";
import { runWindow, type RunInternals, type RunOptions } from "./run.js";
import { Requirements, type Blocked, type Slot, type SlotOutcome, type Stage, type WaitingPartition } from "./stages.js";
import type { WorkerPool } from "./pool/worker-pool.js";

/** What the slots of one backfill run with, set up once for all of them. */
export interface SlotRunnerSetup {
  /** The fields every event of the backfill carries. */
  readonly base: { readonly backfillId: string; readonly runId: string; readonly window: string };
  readonly emit: EventHandler;
  /** Slots at once (the processes of the pool, or the backfill's concurrency). */
  readonly concurrency: number;
  readonly failFast: boolean;
  readonly signal: AbortSignal | undefined;
  readonly control: RunControl;
  /** Runs the partitioned slots when the backfill has processes; null: every slot runs here. */
  readonly pool: WorkerPool | null;
  /** The options of each run in this process. */
  readonly runOptions: RunOptions & RunInternals;
}

/** Runs a backfill's stages of slots, and keeps what became of each slot and of its assets. */
export class SlotRunner {
  /** The partitioned slots' outcomes, in dispatch order (stage by stage). */
  readonly partitions: PartitionOutcome[] = [];
  /** The outcome of the slot of unpartitioned assets; null when there is none. */
  unpartitioned: PartitionOutcome | null = null;
  readonly waiting: WaitingPartition[] = [];
  readonly notRun: NotRunPartition[] = [];
  private readonly requirements: Requirements;
  /** Set when failFast meets a failure: the slots not started yet are canceled unrun. */
  private stopped = false;

  constructor(
    private readonly dag: AssetGraph,
    private readonly setup: SlotRunnerSetup,
  ) {
    this.requirements = new Requirements(dag);
  }

  /** Runs each stage once the one before has settled. */
  async run(stages: readonly Stage[]): Promise<void> {
    for (const stage of stages) await this.runStage(stage);
  }

  /** Its slots in order, by `concurrency` lanes that each take the next slot not yet taken. */
  private async runStage(stage: Stage): Promise<void> {
    const outcomes: (PartitionOutcome | undefined)[] = new Array<PartitionOutcome | undefined>(stage.length);
    let next = 0;
    const lane = async () => {
      while (next < stage.length) {
        const index = next++;
        const slot = stage[index]!;
        const outcome = await this.settle(slot);
        if (slot.partition) outcomes[index] = outcome;
        else this.unpartitioned = outcome;
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.setup.concurrency, Math.max(1, stage.length)) }, lane));
    for (const outcome of outcomes) if (outcome) this.partitions.push(outcome);
  }

  /**
   * What becomes of a slot: canceled unrun once the backfill stops, else what of it can run runs
   * (in this process, or in the pool when it is a partition's).
   */
  private async settle(slot: Slot): Promise<PartitionOutcome> {
    const key = slot.partition?.key ?? null;
    const { signal, control, failFast, pool } = this.setup;
    if (this.stopped || signal?.aborted || control.haltReason) {
      for (const asset of slot.assets) this.requirements.record(asset.qualifiedKey, key, "skipped");
      return { key: key ?? "", status: "canceled", result: null, assets: slot.assets.map((a) => a.qualifiedKey) };
    }
    const blocked = await this.requirements.blocked(slot);
    if (blocked.size > 0) this.holdBack(slot, blocked);
    const runnable = slot.assets.filter((a) => !blocked.has(a.qualifiedKey));
    let result: RunResult | null = null;
    if (runnable.length > 0) {
      result =
        pool && slot.partition
          ? await pool.run(
              slot.partition.key,
              runnable.map((a) => a.qualifiedKey),
            )
          : await runWindow(this.dag, runnable, slot.partition?.window ?? null, this.setup.runOptions);
      for (const asset of runnable) this.requirements.record(asset.qualifiedKey, key, outcomeOf(result, asset.qualifiedKey));
    }
    // A slot with assets left waiting or canceled did not complete, whatever ran of it.
    const status: ExecutionStatus = result?.status === "failed" ? "failed" : blocked.size > 0 || !result ? "canceled" : result.status;
    // The unpartitioned slot runs first and every partition may read it: failFast stops at any outcome of it but completed.
    if (status !== "completed" && failFast && (status === "failed" || !slot.partition)) this.stopped = true;
    return { key: key ?? "", status, result, assets: slot.assets.map((a) => a.qualifiedKey) };
  }

  /** Records a slot's assets that cannot run as not completed, lists them and says why in an event. */
  private holdBack(slot: Slot, blocked: ReadonlyMap<string, Blocked>): void {
    const partition = slot.partition?.key ?? null;
    const time = new Date().toISOString();
    for (const [asset, why] of blocked) {
      this.requirements.record(asset, partition, "skipped");
      if (why.kind === "waiting") this.waiting.push(why.waiting);
      else this.notRun.push({ asset, partition, reason: why.reason });
      const reason = why.kind === "waiting" ? `waiting for "${why.waiting.upstream}" ${why.waiting.missing}` : why.reason;
      this.setup.emit({ ...this.setup.base, type: "asset:canceled", time, asset, ...(partition !== null ? { partition } : {}), reason });
    }
  }
}

/** How an asset of a slot's run ended, for what reads it: canceled (a dependency of the run failed, an interrupt) counts as skipped. */
function outcomeOf(result: RunResult, asset: string): SlotOutcome {
  const status = result.assetExecutions[asset]?.status;
  return status === "completed" ? "completed" : status === "failed" ? "failed" : "skipped";
}
