import { SchemaError } from "../../errors.js";

// Structured serialization (v8.serialize) keeps plain objects, arrays and a fixed set of
// built-in types; an instance of any other class comes back as a plain object, its class and
// methods lost, and a function or a symbol cannot be written at all. FileDestination refuses
// them up front, naming where they are, rather than store a different value.

/** The prototypes whose instances structured serialization gives back as they were. */
const KEPT: ReadonlySet<object | null> = new Set<object | null>([
  null,
  Object.prototype,
  Array.prototype,
  Date.prototype,
  RegExp.prototype,
  Map.prototype,
  Set.prototype,
  ArrayBuffer.prototype,
  DataView.prototype,
  Boolean.prototype,
  Number.prototype,
  String.prototype,
  BigInt.prototype,
  ...[Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError].map((e) => e.prototype),
  ...[Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array]
    .concat([BigInt64Array, BigUint64Array] as never[])
    .map((a) => a.prototype),
]);

/** Past this depth v8.serialize has run out of stack itself; the walk stops looking. */
const MAX_DEPTH = 5_000;

/** Refuses, with SchemaError naming where, a value structured serialization would not give back as it is. */
export function checkStructured(value: unknown, destination: string, asset: string): void {
  const found = problem(value, new Set(), 0);
  if (found === null) return;
  throw new SchemaError(
    `${destination}: cannot write asset "${asset}": ${found.what} at ${path(found.at)} ${found.why}; ` +
      "expected plain objects, arrays, primitives and the built-in types structured serialization keeps (Date, Map, Set, RegExp, Error, typed arrays)",
  );
}

interface Problem {
  readonly at: Array<string | number>;
  readonly what: string;
  readonly why: string;
}

function problem(value: unknown, seen: Set<object>, depth: number): Problem | null {
  if (typeof value === "function") return { at: [], what: `the function ${value.name || "(anonymous)"}`, why: "cannot be serialized" };
  if (typeof value === "symbol") return { at: [], what: `the symbol ${String(value)}`, why: "cannot be serialized" };
  if (typeof value !== "object" || value === null || depth > MAX_DEPTH || seen.has(value)) return null;
  seen.add(value);
  const prototype = Object.getPrototypeOf(value) as object | null;
  if (!KEPT.has(prototype)) {
    const name = (prototype?.constructor as { name?: unknown } | undefined)?.name;
    return {
      at: [],
      what: `an instance of ${typeof name === "string" && name !== "" ? `class ${name}` : "a class"}`,
      why: "would read back as a plain object (its class and methods lost)",
    };
  }
  if (ArrayBuffer.isView(value)) return null;
  // Each kind walked in place: a table of a million rows is walked without a copy of it.
  const at = (key: string | number, child: unknown): Problem | null => {
    const found = problem(child, seen, depth + 1);
    return found === null ? null : (found.at.unshift(key), found);
  };
  let found: Problem | null = null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && found === null; i++) found = at(i, value[i]);
  } else if (value instanceof Map) {
    let i = 0;
    for (const [k, v] of value) if ((found = at(`<key ${i}>`, k) ?? at(i++, v)) !== null) break;
  } else if (value instanceof Set) {
    let i = 0;
    for (const v of value) if ((found = at(i++, v)) !== null) break;
  } else {
    for (const key in value) if ((found = at(key, (value as Record<string, unknown>)[key])) !== null) break;
  }
  return found;
}

/** `$`, `$[2].model`, `$["a key"]`: where in the value. */
function path(at: ReadonlyArray<string | number>): string {
  let text = "$";
  for (const step of at) {
    if (typeof step === "number") text += `[${step}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(step)) text += `.${step}`;
    else text += `[${JSON.stringify(step.slice(0, 40))}]`;
  }
  return text;
}
