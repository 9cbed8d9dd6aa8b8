// Safe descriptions of values and errors for parser messages: whatever a model, a provider or a
// test hands a parser, describing it must not throw (a symbol, an object whose toString throws, a
// proxy whose every property read throws).
import { isThenable } from "@agentrx/core";

/**
 * What kind of value `value` is, never its contents: "a number", "an array", "null", ... A
 * Promise says how it most likely came: "a Promise (did you forget to `await` it?)".
 */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  try {
    if (Array.isArray(value)) return "an array";
  } catch {
    return "an object";
  }
  if (isThenable(value)) return "a Promise (did you forget to `await` it?)";
  const type = typeof value;
  return type === "object" || type === "undefined" ? `an ${type}` : `a ${type}`;
}

/** The message of an error, or a description of what was thrown when it has none that can be read. */
export function describeError(error: unknown): string {
  try {
    if (error instanceof Error && typeof error.message === "string" && error.message) return error.message;
  } catch {
    // a message getter that throws
  }
  return `${describeValue(error)} was thrown`;
}

/**
 * A value as an error message shows what was given: its JSON when it can be written so in at
 * most 200 characters (strings, numbers, small arrays and objects), else what kind it is.
 */
export function shownValue(value: unknown): string {
  try {
    const json = JSON.stringify(value);
    if (typeof json === "string" && json.length <= 200) return json;
  } catch {
    // a BigInt, a cycle, a getter that throws
  }
  return describeValue(value);
}
