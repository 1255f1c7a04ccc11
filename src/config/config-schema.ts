import type { z as Z } from "zod";
import { Asset } from "../asset/asset.js";
import { isAssetDefinition } from "../asset/definition.js";
import { describeValue } from "../text/describe-value.js";
import { Source } from "../source/source.js";
import type { InterloperConfig } from "./define-config.js";

const isSource = (v: unknown) => v instanceof Source || (typeof v === "function" && (v as { kind?: unknown }).kind === "source-definition");
const isAsset = (v: unknown) => v instanceof Asset || isAssetDefinition(v);

/** The fields of a config, in the order the schema checks them. */
export const CONFIG_FIELDS = ["sources", "assets", "concurrency"] as const satisfies readonly (keyof InterloperConfig)[];

/**
 * The config's shape. Each check's message says what was expected; `configProblem` adds what
 * was given. Built on first use: zod is imported only by a command that reads a config, and
 * as the ES module a config importing "zod" shares, so that it is loaded once.
 */
function configSchema(z: typeof Z) {
  const listOf = (is: (v: unknown) => boolean, expected: string) =>
    z.array(z.custom(is, { error: expected }), { error: "expected an array" }).optional();
  const shape = {
    sources: listOf(isSource, "expected a source made with il.source (called or not)"),
    assets: listOf(isAsset, "expected an asset made with il.asset"),
    concurrency: z
      .number({ error: "expected an integer of at least 1" })
      .int({ error: "expected an integer of at least 1" })
      .min(1, { error: "expected an integer of at least 1" })
      .optional(),
  } satisfies Record<(typeof CONFIG_FIELDS)[number], Z.ZodType>;
  return z.strictObject(shape);
}

let schema: ReturnType<typeof configSchema> | undefined;

/** null when `config` has the shape of an InterloperConfig, else what is wrong with it in one line. */
export async function configProblem(config: unknown): Promise<string | null> {
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    return `the config must export an object (export default defineConfig({ sources: [...] })), got ${Array.isArray(config) ? "an array" : typeof config}`;
  }
  schema ??= configSchema((await import("zod")).z);
  // jitless: a config is validated once a process, so zod's fast path for objects (code it
  // generates and compiles on an object schema's first parse) would cost more than it saves.
  // The issues found are the same either way.
  const result = schema.safeParse(config, { jitless: true });
  if (result.success) return null;
  // Unknown fields first: a misspelt field explains the problems that follow from it.
  const issue = result.error.issues.find((i) => i.code === "unrecognized_keys") ?? result.error.issues[0]!;
  if (issue.code === "unrecognized_keys") {
    return `invalid config at "(root)": unknown field(s) ${issue.keys.join(", ")}: expected ${CONFIG_FIELDS.join(", ")}`;
  }
  const given = issue.path.reduce<unknown>((value, key) => (value as Record<PropertyKey, unknown>)[key], config);
  return `invalid config at "${issue.path.join(".")}": ${issue.message}, got ${describeValue(given)}`;
}
