import { type BaseMessage, isBaseMessage } from "@langchain/core/messages";

/**
 * The deepest nesting of objects and arrays a run's record keeps (docs/runs.md, "What a record
 * keeps"): a part nested deeper is recorded as a text that says what it was.
 */
const MAX_DEPTH = 100;

/** A part of a value that would not arrive as given after a trip through JSON. */
export interface JsonProblem {
  /** Where it is, e.g. `inputs.options.limit` or `inputs.items[2]`. */
  path: string;
  /** The part itself. */
  value: unknown;
  /** What is wrong with it, e.g. `is a BigInt (pass it as a string or a number)`: a hint when there is an obvious fix. */
  what: string;
}

/**
 * The first part of `value` that a run's record (JSON) would change or drop, or `undefined` when
 * it would all arrive as given: strings, finite numbers, booleans, `null`, arrays and plain
 * objects of those, and `@langchain/core` messages whose fields hold those (a message is recorded
 * in its stored form, field by field: a `Date` in its `additional_kwargs` would arrive as `{}`). An
 * `undefined` property of an object is allowed (JSON leaves it out, as if it was not given); an
 * `undefined` item of an array is not (it would arrive as `null`).
 *
 * @internal
 */
export function jsonProblem(value: unknown, path: string): JsonProblem | undefined {
  return walk(value, path, [], 1);
}

function walk(value: unknown, path: string, ancestors: { object: object; path: string }[], depth: number): JsonProblem | undefined {
  const problem = (what: string): JsonProblem => ({ path, value, what });
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : problem(`is ${value} (it would arrive as null)`);
    case "bigint":
      return problem("is a BigInt (pass it as a string or a number)");
    case "function":
      return problem("is a function");
    case "symbol":
      return problem("is a Symbol");
    case "undefined":
      return problem("is undefined (in an array it would arrive as null; leave the item out or use null)");
  }
  if (value === null) return undefined;
  const object = value as object;
  const cycle = ancestors.find((ancestor) => ancestor.object === object);
  if (cycle !== undefined) return problem(`contains a circular reference (it is ${cycle.path} again)`);
  if (isBaseMessage(object)) return walkMessage(object, path, ancestors);
  if (depth > MAX_DEPTH) return problem(`is nested more than ${MAX_DEPTH} levels deep (the record would keep a text in its place)`);
  if (!Array.isArray(object) && !isPlainObject(object)) return problem(`is ${describeInstance(object)}`);
  ancestors.push({ object, path });
  try {
    if (Array.isArray(object)) {
      for (let index = 0; index < object.length; index++) {
        const found = walk(object[index], `${path}[${index}]`, ancestors, depth + 1);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    for (const key of Object.keys(object)) {
      const item = (object as Record<string, unknown>)[key];
      if (item === undefined) continue; // left out, as if not given
      const found = walk(item, `${path}${propertyPath(key)}`, ancestors, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  } finally {
    ancestors.pop();
  }
}

/**
 * The fields a message's stored form keeps (its constructor's fields, as the message holds them
 * now, and its parsed tool calls; a chunk's streamed tool-call text is parsed into those again),
 * each walked as a value nested in the message. The record counts their depth from the message,
 * wherever it sits: a field is at depth 2.
 */
function walkMessage(message: BaseMessage, path: string, ancestors: { object: object; path: string }[]): JsonProblem | undefined {
  const own = message as unknown as Record<string, unknown>;
  const fields = (own["lc_kwargs"] ?? {}) as Record<string, unknown>;
  const keys = new Set(Object.keys(fields));
  keys.delete("tool_call_chunks");
  for (const key of ["tool_calls", "invalid_tool_calls"]) if (Array.isArray(own[key])) keys.add(key);
  ancestors.push({ object: message, path });
  try {
    for (const key of keys) {
      const field = key in message ? own[key] : fields[key];
      if (field === undefined) continue; // left out, as if not given
      const found = walk(field, `${path}${propertyPath(key)}`, ancestors, 2);
      if (found !== undefined) return found;
    }
    return undefined;
  } finally {
    ancestors.pop();
  }
}

/** An object literal, `Object.create(null)`, or one from another realm (its prototype is that realm's `Object.prototype`). */
function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as object | null;
  return proto === null || Object.getPrototypeOf(proto) === null;
}

function describeInstance(value: object): string {
  if (value instanceof Date) return "a Date (it would arrive as a string; pass date.toISOString() and parse it where it is used)";
  if (value instanceof Map) return "a Map (it would arrive as {}; pass Object.fromEntries(map))";
  if (value instanceof Set) return "a Set (it would arrive as {}; pass [...set])";
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  const kind = typeof name === "string" && name !== "" ? `an instance of ${name}` : "an object that is not a plain object";
  return `${kind} (it would arrive as a plain object, without its class; pass plain data)`;
}

function propertyPath(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}
