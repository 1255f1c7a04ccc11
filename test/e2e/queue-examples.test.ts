// The work-queue examples of issue 23 run: examples/kubernetes/queue-workers.yaml and
// examples/github-actions/queue-backfill.yml are parsed, and every interloper command they hold
// runs against the queue fixture (fixtures/projects/queue) and the local PostgreSQL, with a
// queue schema of the test's own, as the engine would run it:
// - Kubernetes: the Job's enqueue first, then the Deployment's `replicas` workers at once, with
//   `$(VAR)` expanded from the container's env; once the backfill completes they get SIGTERM, as
//   a scale-down would, and must exit 0. The `backfills` command of the comments runs too.
// - GitHub Actions: jobs in `needs` order; `${{ inputs.* }}`, `${{ matrix.* }}`,
//   `${{ steps.<id>.outputs.* }}`, `${{ needs.<job>.outputs.* }}` and `${{ secrets.* }}`
//   evaluated; `run:` scripts executed by bash -eo pipefail with $GITHUB_OUTPUT and the
//   workflow's env; one worker job per matrix entry, all at once; a job whose step fails stops
//   there. The report job's gate passes on the completed backfill and fails on one with a
//   failed job.
// Each interloper call runs as `node bin/interloper <command> -c <queue fixture>` (example-commands.ts). Secrets:
// INTERLOPER_QUEUE_URL is the test's queue, DATABASE_URL the local server (the fixture's own
// PostgreSQL), any other fails the test.
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { completions, CONFIG, dayCount, daysOf, PG_URL, up, world } from "../reliability/queue-helpers.js";
import { containerArgs, localScript } from "./example-commands.js";
import { ROOT } from "./helpers.js";

const KUBERNETES = join(ROOT, "examples", "kubernetes", "queue-workers.yaml");
const GITHUB = join(ROOT, "examples", "github-actions", "queue-backfill.yml");
const yaml = createRequire(import.meta.url)("js-yaml") as { load(text: string): unknown; loadAll(text: string): unknown[] };

type World = Awaited<ReturnType<typeof world>>;

/** The secrets the examples name, as this test provides them. */
function secrets(w: World): Record<string, string> {
  return { INTERLOPER_QUEUE_URL: w.queue(), DATABASE_URL: PG_URL };
}

/** The environment of an engine's process: this one, the fixture's variables, and `extra`. */
function processEnv(w: World, extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  const fixture = { QUEUE_DATASET: w.dataset, QUEUE_LOG: join(w.box.dir, "runs.log"), QUEUE_SLOW_MS: "1" };
  for (const [name, value] of Object.entries({ ...process.env, CI: "true", NO_COLOR: "1", ...fixture, ...extra }))
    if (value !== undefined && name !== "FORCE_COLOR" && name !== "DEBUG" && name !== "INTERLOPER_QUEUE_URL") env[name] = value;
  return { ...env, ...extra };
}

/** The months a window of days covers whole: a backfill of the window runs their monthly partitions. */
function wholeMonths(days: readonly string[]): string[] {
  const months = [...new Set(days.map((d) => d.slice(0, 7)))];
  return months.filter((month) => days.filter((d) => d.startsWith(month)).length === daysOf(`${month}-01`, lastDayOf(month)).length);
}

function lastDayOf(month: string): string {
  const [year, m] = month.split("-").map(Number) as [number, number];
  return new Date(Date.UTC(year, m, 0)).toISOString().slice(0, 10);
}

/** What the queue's backfill looks like once settled: every day once, every whole month once. */
async function expectWrittenOnce(w: World, first: string, last: string): Promise<void> {
  const days = daysOf(first, last);
  const months = wholeMonths(days);
  const lines = await w.lines();
  for (const day of days) expect(completions(lines, `orders ${day}`), day).toBe(1);
  for (const month of months) expect(completions(lines, `monthly ${month}`), month).toBe(1);
  const stored = await w.stored();
  expect(stored.days).toEqual(Object.fromEntries(days.map((d) => [d, dayCount(d)])));
  expect(stored.months.map((m: { month: string }) => m.month)).toEqual(months.map((m) => `${m}-01`));
}

// ---------------------------------------------------------------- Kubernetes

interface Container {
  readonly command: string[];
  readonly args?: string[];
  readonly env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  readonly resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

interface Manifest {
  readonly kind: string;
  readonly metadata: { name: string };
  readonly spec: {
    readonly replicas?: number;
    readonly template: { spec: { terminationGracePeriodSeconds?: number; restartPolicy?: string; containers: Container[] } };
  };
}

/** A container's command line with `$(VAR)` expanded from its env, as Kubernetes does, and that env. */
function containerRun(container: Container, secretValues: Record<string, string>): { argv: string[]; env: Record<string, string> } {
  const env: Record<string, string> = {};
  for (const e of container.env ?? []) {
    if (e.value !== undefined) env[e.name] = e.value;
    else {
      expect(e.valueFrom?.secretKeyRef, `env ${e.name}: a literal or a secret`).toBeDefined();
      expect(secretValues[e.name], `the test provides the secret of ${e.name}`).toBeDefined();
      env[e.name] = secretValues[e.name]!;
    }
  }
  const argv = [...container.command, ...(container.args ?? [])].map((word) =>
    word.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => env[name] ?? whole),
  );
  return { argv: containerArgs(argv, CONFIG), env };
}

describe.skipIf(!up)("examples/kubernetes/queue-workers.yaml", () => {
  it("the Job enqueues the window; the Deployment's replicas run it, every partition once, and stop on SIGTERM with exit 0", async () => {
    const w = await world();
    const text = await readFile(KUBERNETES, "utf8");
    const manifests = yaml.loadAll(text) as Manifest[];
    expect(manifests.map((m) => m.kind).sort()).toEqual(["Deployment", "Job"]);
    const deployment = manifests.find((m) => m.kind === "Deployment")!;
    const job = manifests.find((m) => m.kind === "Job")!;
    const pod = deployment.spec.template.spec;
    expect(pod.terminationGracePeriodSeconds, "time for running partitions to finish").toBeGreaterThanOrEqual(60);
    expect(pod.containers[0]!.resources?.requests).toBeDefined();
    const replicas = deployment.spec.replicas!;
    expect(replicas).toBeGreaterThan(1);
    const enqueue = containerRun(job.spec.template.spec.containers[0]!, secrets(w));
    const workerRun = containerRun(pod.containers[0]!, secrets(w));
    expect(enqueue.argv.slice(1, 2)).toEqual(["materialize"]);
    expect(workerRun.argv.slice(1, 2)).toEqual(["worker"]);
    const window = enqueue.argv[enqueue.argv.indexOf("--window") + 1]!;
    const [first, last] = window.split("..") as [string, string];

    const enqueued = await execa(process.execPath, enqueue.argv, {
      cwd: w.box.dir,
      env: processEnv(w, enqueue.env),
      extendEnv: false,
      reject: false,
      timeout: 30_000,
    });
    expect(enqueued.exitCode, String(enqueued.stderr)).toBe(0);
    const id = String(enqueued.stdout).trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    const pods = Array.from({ length: replicas }, () =>
      execa(process.execPath, workerRun.argv, {
        cwd: w.box.dir,
        env: processEnv(w, workerRun.env),
        extendEnv: false,
        reject: false,
        stdin: "ignore",
        timeout: 60_000,
      }),
    );
    let progress = await w.progress(id);
    const total = Object.values(progress.counts).reduce((a, b) => a + b, 0);
    const deadline = Date.now() + 45_000;
    while (progress.counts["completed"] !== total && Date.now() < deadline) {
      await sleep(500);
      progress = await w.progress(id);
    }
    expect(progress.counts).toMatchObject({ completed: total, failed: 0 });
    for (const p of pods) p.kill("SIGTERM");
    const ends = await Promise.all(pods);
    for (const end of ends) {
      expect(end.exitCode, String(end.stderr)).toBe(0);
      expect(String(end.stderr)).toMatch(/SIGTERM received: finishing the running partitions/);
      expect(String(end.stderr)).toMatch(/done \(stopped\): \d+ completed, 0 failed/);
    }
    const done = ends.map((e) => Number(/(\d+) completed, 0 failed/.exec(String(e.stderr))![1]));
    expect(done.reduce((a, b) => a + b, 0)).toBe(total);
    expect(done.filter((n) => n > 0).length, "more than one replica did work").toBeGreaterThan(1);
    await expectWrittenOnce(w, first, last);

    // the progress command of the comments
    const shown = [...text.matchAll(/npx interloper backfills <id>[^\n]*/g)].map((m) => m[0]);
    expect(shown).toHaveLength(1);
    const result = await execa("bash", ["-eo", "pipefail", "-c", localScript(shown[0]!.replace("<id>", id), CONFIG)], {
      cwd: w.box.dir,
      env: processEnv(w, secrets(w)),
      extendEnv: false,
      reject: false,
    });
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(String(result.stdout)).toContain(`completed: ${total}/${total}`);
  });
});

// ---------------------------------------------------------------- GitHub Actions

interface Step {
  readonly id?: string;
  readonly if?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly with?: Record<string, unknown>;
}

interface Job {
  readonly needs?: string | string[];
  readonly if?: string;
  readonly outputs?: Record<string, string>;
  readonly strategy?: { matrix?: Record<string, unknown[]> };
  readonly steps: Step[];
}

interface Workflow {
  readonly on: { workflow_dispatch?: { inputs?: Record<string, { default?: string }> } };
  readonly env?: Record<string, string>;
  readonly jobs: Record<string, Job>;
}

interface Scope {
  readonly inputs: Record<string, string>;
  readonly secrets: Record<string, string>;
  readonly matrix: Record<string, unknown>;
  readonly steps: Record<string, Record<string, string>>;
  readonly needs: Record<string, Record<string, string>>;
}

/** Evaluates the expressions this workflow uses; anything else fails the test, so a new one is noticed. */
function evaluate(expression: string, scope: Scope): unknown {
  const text = expression.trim();
  const path = /^(inputs|secrets|matrix|steps|needs)\.([\w-]+)(?:\.outputs\.([\w-]+))?$/.exec(text);
  if (!path) throw new Error(`the test cannot evaluate \${{ ${text} }}`);
  const [, root, name, output] = path;
  const value =
    root === "steps" || root === "needs"
      ? scope[root][name!]?.[output!]
      : (scope[root as "inputs" | "secrets" | "matrix"][name!] as unknown);
  if (value === undefined) throw new Error(`\${{ ${text} }} has no value here`);
  return value;
}

function substitute(text: string, scope: Scope): string {
  return text.replace(/\$\{\{(.*?)\}\}/g, (_, expression: string) => String(evaluate(expression, scope)));
}

/** Every combination of a matrix of lists. */
function combinations(job: Job): Record<string, unknown>[] {
  let out: Record<string, unknown>[] = [{}];
  for (const [key, values] of Object.entries(job.strategy?.matrix ?? {})) {
    expect(Array.isArray(values), `matrix.${key}: the test expands lists`).toBe(true);
    out = out.flatMap((combination) => values.map((value) => ({ ...combination, [key]: value })));
  }
  return out;
}

interface Executed {
  readonly job: string;
  readonly script: string;
  readonly exitCode: number;
  readonly output: string;
}

interface WorkflowRun {
  readonly executed: Executed[];
  /** Whether each job that ran succeeded (every combination of its matrix). */
  readonly succeeded: Record<string, boolean>;
}

/**
 * Runs a workflow's jobs (`only` of them, with the outputs of the jobs they need given in
 * `given`) as GitHub would: in `needs` order, a job whose needs failed skipped unless
 * `if: always()`, the combinations of a matrix at once, a job's steps until one fails.
 */
async function runWorkflow(
  w: World,
  workflow: Workflow,
  inputs: Record<string, string>,
  options: { only?: string[]; given?: Record<string, Record<string, string>> } = {},
): Promise<WorkflowRun> {
  const executed: Executed[] = [];
  const outputs: Record<string, Record<string, string>> = { ...options.given };
  const succeeded: Record<string, boolean> = Object.fromEntries(Object.keys(options.given ?? {}).map((name) => [name, true]));
  const pending = new Map(Object.entries(workflow.jobs).filter(([name]) => !options.only || options.only.includes(name)));
  const base = { inputs, secrets: secrets(w), matrix: {}, steps: {}, needs: {} };
  const workflowEnv = Object.fromEntries(Object.entries(workflow.env ?? {}).map(([name, value]) => [name, substitute(value, base)]));
  let outputFiles = 0;
  while (pending.size > 0) {
    const ready = [...pending].filter(([, job]) => [job.needs ?? []].flat().every((need) => need in succeeded));
    expect(ready.length, "a job whose needs can be met").toBeGreaterThan(0);
    await Promise.all(
      ready.map(async ([name, job]) => {
        pending.delete(name);
        const needNames = [job.needs ?? []].flat();
        if (job.if !== undefined) expect(job.if, "the test knows if: always() alone").toBe("always()");
        if (job.if === undefined && !needNames.every((need) => succeeded[need])) {
          succeeded[name] = false;
          return;
        }
        const needs = Object.fromEntries(needNames.map((need) => [need, outputs[need] ?? {}]));
        const results = await Promise.all(
          combinations(job).map(async (matrix) => {
            const steps: Record<string, Record<string, string>> = {};
            let failed = false;
            for (const step of job.steps) {
              if (failed && step.if !== "always()") continue;
              const scope = { ...base, matrix, steps, needs };
              if (step.uses?.startsWith("actions/upload-artifact")) {
                const path = substitute(String(step.with?.["path"]), scope);
                expect(existsSync(join(w.box.dir, path)), `the artifact ${path} of job ${name}`).toBe(true);
                continue;
              }
              if (step.run === undefined || step.run.trim() === "npm ci") continue;
              const script = localScript(substitute(step.run, scope), CONFIG);
              const outputFile = join(w.box.dir, `github-output-${++outputFiles}`);
              await writeFile(outputFile, "");
              const result = await execa("bash", ["-eo", "pipefail", "-c", script], {
                cwd: w.box.dir,
                env: processEnv(w, { ...workflowEnv, GITHUB_OUTPUT: outputFile }),
                extendEnv: false,
                reject: false,
                all: true,
                timeout: 45_000,
              });
              const exitCode = result.exitCode ?? -1;
              executed.push({ job: name, script, exitCode, output: String(result.all ?? "") });
              if (exitCode !== 0) failed = true;
              if (step.id) {
                const lines = (await readFile(outputFile, "utf8")).split("\n").filter(Boolean);
                steps[step.id] = Object.fromEntries(
                  lines.map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
                );
              }
            }
            const jobOutputs = Object.entries(job.outputs ?? {}).map(([key, value]) => [
              key,
              substitute(value, { ...base, matrix, steps, needs }),
            ]);
            return { failed, outputs: Object.fromEntries(jobOutputs) as Record<string, string> };
          }),
        );
        outputs[name] = Object.assign({}, ...results.map((r) => r.outputs)) as Record<string, string>;
        succeeded[name] = results.every((r) => !r.failed);
      }),
    );
  }
  return { executed, succeeded };
}

describe.skipIf(!up)("examples/github-actions/queue-backfill.yml", () => {
  it("enqueue, then the matrix of workers run the window once and end on --idle-exit; the report's gate passes", async () => {
    const w = await world();
    const workflow = yaml.load(await readFile(GITHUB, "utf8")) as Workflow;
    expect(workflow.on.workflow_dispatch?.inputs?.["window"]).toBeDefined();
    const [first, last] = ["2026-01-25", "2026-03-05"];
    const { executed, succeeded } = await runWorkflow(w, workflow, { window: `${first}..${last}` });
    for (const run of executed) expect(run.exitCode, `${run.job}: ${run.script}\n${run.output}`).toBe(0);
    expect(succeeded).toEqual({ enqueue: true, work: true, report: true });

    const enqueue = executed.filter((run) => / materialize /.test(run.script));
    expect(enqueue).toHaveLength(1);
    expect(enqueue[0]!.script).toContain(`--window '${first}..${last}'`);
    const workers = executed.filter((run) => / worker /.test(run.script));
    expect(workers).toHaveLength(combinations(workflow.jobs["work"]!).length);
    expect(workers.length).toBeGreaterThan(1);
    for (const run of workers) expect(run.output).toMatch(/done \(the queue stayed empty\): \d+ completed, 0 failed/);
    for (const run of workers) expect(run.script, "the step's own process, so a cancel's signals reach it").toMatch(/^exec /);
    const ran = workers.map((run) => Number(/(\d+) completed, 0 failed/.exec(run.output)![1]));
    const days = daysOf(first, last);
    const total = days.length + wholeMonths(days).length;
    expect(ran.reduce((a, b) => a + b, 0)).toBe(total);
    expect(executed.filter((run) => run.job === "report").map((run) => run.script.includes("jq -e"))).toContain(true);
    const report = JSON.parse(await readFile(join(w.box.dir, "backfill.json"), "utf8")) as {
      total: number;
      counts: Record<string, number>;
    };
    expect(report).toMatchObject({ total, counts: { completed: total, failed: 0 } });
    await expectWrittenOnce(w, first, last);
  });

  it("the report job's gate fails the workflow when a job of the backfill failed", async () => {
    const w = await world();
    const workflow = yaml.load(await readFile(GITHUB, "utf8")) as Workflow;
    // A backfill with a poisoned day and no retries, worked until it settles.
    const poisoned = { QUEUE_POISON: "2026-02-03", QUEUE_SLOW_MS: "1" };
    const enqueued = await w.run(["materialize", "--window", "2026-02-01..2026-02-05", "--queue", w.queue(), "--retries", "0"], poisoned);
    expect(enqueued.exitCode, enqueued.stderr).toBe(0);
    const id = enqueued.outLines[0]!;
    const end = await w.worker(["--idle-exit", "1"], poisoned).done;
    expect(end.stderr).toMatch(/1 failed/);

    const { executed, succeeded } = await runWorkflow(
      w,
      workflow,
      {},
      { only: ["report"], given: { enqueue: { backfill: id }, work: {} } },
    );
    expect(succeeded["report"]).toBe(false);
    const gate = executed.find((run) => run.script.includes("jq -e"));
    expect(gate?.exitCode, gate?.output).toBe(1);
    for (const run of executed.filter((r) => r !== gate)) expect(run.exitCode, `${run.script}\n${run.output}`).toBe(0);
    expect(executed.map((run) => run.output).join("\n")).toMatch(/orders feed poisoned for 2026-02-03/);
  });
});
