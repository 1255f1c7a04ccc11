import type { QueueConnection, Sql } from "./queue-connection.js";

// Our tables beside pg-boss's: a backfill, its slots (one job each) and the edges between
// them. pg-boss has no job dependencies; a slot's `waiting_on` counts its parents not yet
// completed, and the job is sent when it reaches 0.

/** Creates the schema and tables if missing; processes starting at once take turns. */
export async function ensureTables(connection: QueueConnection): Promise<void> {
  const s = connection.schema;
  await connection.transaction(async (sql) => {
    await sql.executeSql("SELECT pg_advisory_xact_lock(hashtext($1))", [`interloper-queue:${s}`]);
    await sql.executeSql(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await sql.executeSql(`
      CREATE TABLE IF NOT EXISTS ${s}.backfill (
        id uuid PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now(),
        project text NOT NULL,
        "window" text,
        total int NOT NULL,
        job_options jsonb NOT NULL,
        state text NOT NULL DEFAULT 'active'
      )`);
    await sql.executeSql(`
      CREATE TABLE IF NOT EXISTS ${s}.slot (
        backfill_id uuid NOT NULL REFERENCES ${s}.backfill (id) ON DELETE CASCADE,
        slot_id int NOT NULL,
        stage int NOT NULL,
        partition text,
        assets jsonb NOT NULL,
        waiting_on int NOT NULL,
        job_id uuid NOT NULL,
        worker text,
        started_at timestamptz,
        -- Kept here too: pg-boss archives settled jobs after 12 hours and deletes them after 7 days.
        completed_at timestamptz,
        last_error jsonb,
        PRIMARY KEY (backfill_id, slot_id)
      )`);
    await sql.executeSql(`
      CREATE TABLE IF NOT EXISTS ${s}.edge (
        backfill_id uuid NOT NULL REFERENCES ${s}.backfill (id) ON DELETE CASCADE,
        parent int NOT NULL,
        child int NOT NULL,
        PRIMARY KEY (backfill_id, parent, child)
      )`);
  });
}

/** What a job carries: enough for any worker of the same project to run its slot. */
export interface JobData {
  readonly backfill: string;
  readonly slot: number;
  readonly partition: string | null;
  readonly assets: readonly string[];
  /** The project's identity (see projectIdentity): a worker of another project refuses the job. */
  readonly project: string;
  /** Seconds the job may stay active without a heartbeat (the backfill's expiry). */
  readonly expire: number;
}

/** pg-boss's options of every job of a backfill, kept so children sent later get the same. */
export interface JobOptions {
  readonly retryLimit: number;
  readonly retryDelay: number;
  readonly retryBackoff: boolean;
  readonly expireInSeconds: number;
}

/** Sends the jobs of slots (in the caller's transaction), highest priority first in the plan's order. */
export async function sendSlots(
  connection: QueueConnection,
  sql: Sql,
  backfill: { id: string; project: string; total: number; options: JobOptions },
  slots: ReadonlyArray<{ slot_id: number; partition: string | null; assets: readonly string[]; job_id: string }>,
): Promise<void> {
  if (slots.length === 0) return;
  const jobs = slots.map((slot) => {
    const data: JobData = {
      backfill: backfill.id,
      slot: slot.slot_id,
      partition: slot.partition,
      assets: slot.assets,
      project: backfill.project,
      expire: backfill.options.expireInSeconds,
    };
    // A job not started within pg-boss's retention (14 days) would be archived unrun: a long
    // backfill with few workers keeps its jobs for a year.
    const keepUntil = new Date(Date.now() + 365 * 86_400_000).toISOString();
    return { id: slot.job_id, name: connection.queueName, data, priority: backfill.total - slot.slot_id, keepUntil, ...backfill.options };
  });
  await connection.boss.insert(jobs, { db: sql });
}
