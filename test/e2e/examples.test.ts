// The examples of issue 9 run: examples/github-actions/backfill.yml and
// examples/kubernetes/backfill-job.yaml are parsed, and every interloper command they hold runs
// against the pool fixture, with the variables set as the engine would set them:
// - GitHub Actions: jobs in `needs` order; `${{ inputs.* }}`, `${{ matrix.* }}`,
//   `${{ steps.<id>.outputs.* }}`, `${{ needs.<job>.outputs.* }}` and `fromJSON(...)` evaluated;
//   `run:` scripts executed by bash -e with $GITHUB_OUTPUT; one materialize job per matrix entry,
//   all at once; the report job's coverage gate must pass and write the artifact.
// - Kubernetes Indexed Job: the container command once per completion index 0..completions-1 in
//   JOB_COMPLETION_INDEX, `parallelism` pods at a time.
// Each interloper call runs as `node bin/interloper <command> -c <pool fixture>` (example-commands.ts).
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { containerArgs, localScript } from "./example-commands.js";
import { ensureBuilt, ROOT, useSandboxes, type Sandbox } from "./helpers.js";
import { daysBetween, endsPerKey, expectComplete, loadYaml, POOL, runLog } from "./pool-helpers.js";

beforeAll(ensureBuilt, 180_000);
const sandbox = useSandboxes();
const SLOW = 240_000;

const GITHUB = join(ROOT, "examples", "github-actions", "backfill.yml");
const KUBERNETES = join(ROOT, "examples", "kubernetes", "backfill-job.yaml");

/** A process environment for an engine's worker: this one, plus the fixture's data folder. */
function workerEnv(box: Sandbox, extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...process.env, CI: "true", NO_COLOR: "1", INTERLOPER_TEST_DATA: box.data, ...extra })) {
    if (value !== undefined && name !== "FORCE_COLOR" && name !== "DEBUG" && name !== "JOB_COMPLETION_INDEX") env[name] = value;
  }
  return { ...env, ...extra };
}

// ---------------------------------------------------------------- GitHub Actions

interface Step {
  readonly id?: string;
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly with?: Record<string, unknown>;
}

interface Job {
  readonly needs?: string | string[];
  readonly outputs?: Record<string, string>;
  readonly strategy?: { matrix?: unknown };
  readonly steps: Step[];
}

interface Workflow {
  readonly on: { workflow_dispatch?: { inputs?: Record<string, { default?: string }> } };
  readonly jobs: Record<string, Job>;
}

/** What the evaluation of one job's expressions can see. */
interface Scope {
  readonly inputs: Record<string, string>;
  readonly matrix: Record<string, unknown>;
  readonly steps: Record<string, Record<string, string>>;
  readonly needs: Record<string, Record<string, string>>;
}

/** Evaluates the expressions this workflow uses; anything else fails the test, so a new one is noticed. */
function evaluate(expression: string, scope: Scope): unknown {
  const text = expression.trim();
  const fromJson = /^fromJSON\((.*)\)$/.exec(text);
  if (fromJson) return JSON.parse(String(evaluate(fromJson[1]!, scope)));
  const path = /^(inputs|matrix|steps|needs)\.([\w-]+)(?:\.outputs\.([\w-]+))?$/.exec(text);
  if (!path) throw new Error(`the test cannot evaluate \${{ ${text} }}`);
  const [, root, name, output] = path;
  const value =
    root === "inputs"
      ? scope.inputs[name!]
      : root === "matrix"
        ? scope.matrix[name!]
        : root === "steps"
          ? scope.steps[name!]?.[output!]
          : scope.needs[name!]?.[output!];
  if (value === undefined) throw new Error(`\${{ ${text} }} has no value here`);
  return value;
}

/** A string with every `${{ ... }}` replaced by its value. */
function substitute(text: string, scope: Scope): string {
  return text.replace(/\$\{\{(.*?)\}\}/g, (_, expression: string) => String(evaluate(expression, scope)));
}

/** A value that is a whole expression (`matrix: ${{ fromJSON(...) }}`) evaluates to an object. */
function evaluateValue(value: unknown, scope: Scope): unknown {
  const whole = typeof value === "string" ? /^\s*\$\{\{(.*)\}\}\s*$/.exec(value) : null;
  return whole ? evaluate(whole[1]!, scope) : value;
}

/** The combinations of a job's matrix (only `include` lists, as the workflow uses). */
function combinations(job: Job, scope: Scope): Record<string, unknown>[] {
  if (!job.strategy?.matrix) return [{}];
  const matrix = evaluateValue(job.strategy.matrix, scope) as { include?: Record<string, unknown>[] };
  expect(Object.keys(matrix), "the test expands include-only matrices").toEqual(["include"]);
  return matrix.include!;
}

interface Executed {
  readonly job: string;
  readonly script: string;
  readonly exitCode: number;
  readonly output: string;
}

async function runWorkflow(box: Sandbox, workflow: Workflow, inputs: Record<string, string>): Promise<Executed[]> {
  const executed: Executed[] = [];
  const jobOutputs: Record<string, Record<string, string>> = {};
  const pending = new Map(Object.entries(workflow.jobs));
  let outputFiles = 0;
  while (pending.size > 0) {
    const ready = [...pending].filter(([, job]) => [job.needs ?? []].flat().every((need) => need in jobOutputs));
    expect(ready.length, "a job whose needs can be met").toBeGreaterThan(0);
    for (const [name, job] of ready) {
      pending.delete(name);
      const needs = Object.fromEntries([job.needs ?? []].flat().map((need) => [need, jobOutputs[need]!]));
      const outputsPerCombination = await Promise.all(
        combinations(job, { inputs, matrix: {}, steps: {}, needs }).map(async (matrix) => {
          const steps: Record<string, Record<string, string>> = {};
          for (const step of job.steps) {
            const scope = { inputs, matrix, steps, needs };
            if (step.uses?.startsWith("actions/upload-artifact")) {
              const path = substitute(String(step.with?.["path"]), scope);
              expect(existsSync(join(box.dir, path)), `the artifact ${path} of job ${name}`).toBe(true);
              continue;
            }
            if (step.run === undefined) continue;
            if (!step.run.includes("interloper")) {
              expect(step.run.trim(), "a run step the test does not run").toBe("npm ci");
              continue;
            }
            const script = localScript(substitute(step.run, scope), POOL);
            expect(script).not.toContain("${{");
            const outputFile = join(box.dir, `github-output-${++outputFiles}`);
            await writeFile(outputFile, "");
            const result = await execa("bash", ["-e", "-c", script], {
              cwd: box.dir,
              env: workerEnv(box, { GITHUB_OUTPUT: outputFile }),
              extendEnv: false,
              reject: false,
              all: true,
              timeout: 120_000,
            });
            executed.push({ job: name, script, exitCode: result.exitCode ?? -1, output: String(result.all ?? "") });
            if (step.id) {
              const lines = (await readFile(outputFile, "utf8")).split("\n").filter(Boolean);
              steps[step.id] = Object.fromEntries(
                lines.map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
              );
            }
          }
          return Object.fromEntries(
            Object.entries(job.outputs ?? {}).map(([key, value]) => [key, substitute(value, { inputs, matrix, steps, needs })]),
          );
        }),
      );
      jobOutputs[name] = Object.assign({}, ...outputsPerCombination) as Record<string, string>;
    }
  }
  return executed;
}

describe("examples/github-actions/backfill.yml", () => {
  it(
    "the plan job's matrix gives one materialize job per shard; together they complete the window and the coverage gate passes",
    async () => {
      const box = await sandbox();
      const workflow = loadYaml(await readFile(GITHUB, "utf8")) as Workflow;
      expect(workflow.on.workflow_dispatch?.inputs?.["window"]).toBeDefined();
      const window = "2026-01-01..2026-01-10";
      const executed = await runWorkflow(box, workflow, { window });
      for (const run of executed) expect(run.exitCode, `${run.job}: ${run.script}\n${run.output}`).toBe(0);

      const plan = executed.filter((run) => / plan /.test(run.script));
      expect(plan).toHaveLength(1);
      const shards = Number(/--shards (\d+)/.exec(plan[0]!.script)![1]);
      const materialize = executed.filter((run) => / materialize /.test(run.script));
      expect(materialize.map((run) => /--shard (\S+)/.exec(run.script)?.[1]).sort()).toEqual(
        Array.from({ length: shards }, (_, i) => `${i + 1}/${shards}`),
      );
      for (const run of materialize) expect(run.script).toContain(`--window '${window}'`);
      for (const run of materialize) expect(run.script, "the step's own process, so a cancel's SIGINT reaches it").toMatch(/^exec /);
      expect(executed.filter((run) => / coverage /.test(run.script) && run.script.includes("--fail-on-missing"))).toHaveLength(1);

      const days = daysBetween("2026-01-01", "2026-01-10");
      await expectComplete(box, "2026-01-01", "2026-01-10");
      expect(endsPerKey(await runLog(box))).toEqual(Object.fromEntries(days.map((d) => [d, 1])));
      const html = await readFile(join(box.dir, "coverage.html"), "utf8");
      expect(html).toContain("<svg");
    },
    SLOW,
  );
});

// ---------------------------------------------------------------- Kubernetes

interface IndexedJob {
  readonly kind: string;
  readonly spec: {
    readonly completionMode: string;
    readonly completions: number;
    readonly parallelism?: number;
    readonly template: {
      spec: { containers: { command: string[]; args?: string[]; env?: { name: string; value?: string; valueFrom?: unknown }[] }[] };
    };
  };
}

describe("examples/kubernetes/backfill-job.yaml", () => {
  it(
    "each completion index runs its shard (JOB_COMPLETION_INDEX, 0-based), parallelism pods at a time; together they complete the window once",
    async () => {
      const box = await sandbox();
      const job = loadYaml(await readFile(KUBERNETES, "utf8")) as IndexedJob;
      expect(job.kind).toBe("Job");
      expect(job.spec.completionMode).toBe("Indexed");
      const { completions } = job.spec;
      const parallelism = job.spec.parallelism ?? completions;
      const [container] = job.spec.template.spec.containers;
      const command = [...container!.command, ...(container!.args ?? [])];
      const args = containerArgs(command, POOL);
      expect(args[1]).toBe("materialize");
      const flag = (name: string) => command[command.indexOf(name) + 1]!;
      expect(Number(flag("--shard-count")), "--shard-count must equal .spec.completions").toBe(completions);
      expect(flag("--shard-index-env")).toBe("JOB_COMPLETION_INDEX");
      const window = flag("--window");
      const [from, to] = window.split("..") as [string, string];

      // the container's env: literal values as given, secrets as a placeholder
      const env = Object.fromEntries((container!.env ?? []).map((e) => [e.name, e.value ?? `placeholder-for-${e.name}`]));
      const results: { index: number; pid: number; exitCode: number; output: string }[] = [];
      const queue = Array.from({ length: completions }, (_, index) => index);
      const pod = async () => {
        for (let index = queue.shift(); index !== undefined; index = queue.shift()) {
          const subprocess = execa(process.execPath, args, {
            cwd: box.dir,
            env: workerEnv(box, { ...env, JOB_COMPLETION_INDEX: String(index) }),
            extendEnv: false,
            reject: false,
            all: true,
            timeout: 120_000,
          });
          const result = await subprocess;
          results.push({ index, pid: subprocess.pid!, exitCode: result.exitCode ?? -1, output: String(result.all ?? "") });
        }
      };
      await Promise.all(Array.from({ length: parallelism }, pod));
      expect(results).toHaveLength(completions);
      for (const result of results) expect(result.exitCode, `index ${result.index}:\n${result.output}`).toBe(0);

      const days = daysBetween(from, to);
      await expectComplete(box, from, to);
      const log = await runLog(box);
      expect(endsPerKey(log)).toEqual(Object.fromEntries(days.map((d) => [d, 1])));
      // pod i ran shard i+1: every completions-th day, newest first, so index 0 starts on the newest day
      for (const { index, pid } of results) {
        const started = log.filter((l) => l.what === "start" && l.pid === pid).map((l) => l.key!);
        const share = [...days].reverse().filter((_, at) => at % completions === index);
        expect(started[0], `index ${index}`).toBe(share[0]);
        expect(started.sort(), `index ${index}`).toEqual(share.sort());
      }
      expect(results.find((r) => r.index === 0)!.output).toContain(` ${to} `);
    },
    SLOW,
  );
});
