import { cutText } from "./cut-text";

/** The longest text {@link showValue} gives, in UTF-16 code units; a longer one is cut, its last character `…`. */
const MAX_SHOWN_LENGTH = 200;

/**
 * A value as an error message shows what was given (`` `maxDepth` must be a whole number, got 10n ``):
 * a string quoted; a number as written (`NaN`, `Infinity` and `-0`, which JSON would write as
 * `null` and `0`); a BigInt with its `n` (`10n`); a symbol as `Symbol(description)`; a function
 * as `a function`; `undefined` as `undefined`; anything else as its JSON, or its `String` when
 * JSON writes nothing (a `toJSON` that returns `undefined`). When neither can be had (a cycle, a
 * BigInt inside an object, a getter, `toJSON` or `toString` that throws, an object without a
 * prototype, a revoked proxy), the kind of value: `an object`, `an array`, `a Budget` (its class),
 * `an object without a prototype`. Text longer than 200 characters is cut to 200, the last an
 * ellipsis (`…`), so a large value does not swamp the message.
 *
 * It never throws, so a message that names an option at fault can always be built. For a value
 * as text in full (a tool's output, a trace line), see {@link valueToText}.
 *
 * @param value - Whatever was given.
 * @returns At most 200 characters; never throws.
 *
 * @example
 * ```ts
 * import { showValue } from "@agentrx/core";
 *
 * const cyclic: Record<string, unknown> = {};
 * cyclic["self"] = cyclic;
 * console.log(showValue("fast")); // "\"fast\""
 * console.log(showValue(10n)); // "10n"
 * console.log(showValue(cyclic)); // "an object"
 * ```
 */
export function showValue(value: unknown): string {
  const text = shownInFull(value);
  return text.length <= MAX_SHOWN_LENGTH ? text : `${cutText(text, MAX_SHOWN_LENGTH - 1)}…`;
}

function shownInFull(value: unknown): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Object.is(value, -0) ? "-0" : String(value);
    case "bigint":
      return `${value}n`;
    case "symbol":
      return value.toString();
    case "function":
      return "a function";
    case "undefined":
      return "undefined";
    default:
  }
  try {
    const json = JSON.stringify(value);
    if (json !== undefined) return json;
  } catch {
    return kindOfValue(value); // a cycle, a BigInt inside, a getter or `toJSON` that throws
  }
  try {
    return String(value);
  } catch {
    return kindOfValue(value); // an object without a prototype, a `toString` that throws
  }
}

/**
 * What kind of value `value` is, never its contents, and never throwing: `null`, `a number`,
 * `an array`, `an object`, `a Budget` (an instance's class), `an object without a prototype`.
 *
 * @internal
 */
export function kindOfValue(value: unknown): string {
  if (value === null) return "null";
  if (typeof value !== "object") return typeof value === "undefined" ? "undefined" : `a ${typeof value}`;
  try {
    if (Array.isArray(value)) return "an array";
    if (Object.getPrototypeOf(value) === null) return "an object without a prototype";
    const name: unknown = (value as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name !== "string" || name === "" || name === "Object") return "an object";
    return `${/^[aeiou]/i.test(name) ? "an" : "a"} ${name}`;
  } catch {
    return "an object"; // a revoked proxy, a `constructor` getter that throws
  }
}
