/**
 * Any thrown value as text, the one way AgentRx writes one (a failed run's `error`, the trace's
 * `error` line, a span's status, a tool's error observation, a store's failure, the error text
 * `@agentrx/serve` sends a client): a string
 * as it is; an object with a string `message` (an `Error`, or what HTTP and SDK clients often
 * throw, such as `{ message: "quota exceeded", status: 429 }`) its message; else the value's own
 * string when it has a meaningful one; else its JSON; else `<thrower> threw <what> that cannot be
 * shown as text`. It never throws: a `message` getter, a `toString` or a `toJSON` that throws, a
 * revoked proxy, a cycle are passed over.
 *
 * @param value - What was thrown (or a rejection's reason).
 * @param thrower - Who threw, for the last resort (`"the tool"`, `"the store"`; `"something"` by default).
 * @returns The text; never throws.
 *
 * @example
 * ```ts
 * import { describeThrown } from "@agentrx/core";
 *
 * describeThrown({ message: "quota exceeded", status: 429 }); // "quota exceeded"
 * describeThrown({ status: 429 }); // '{"status":429}'
 * ```
 */
export function describeThrown(value: unknown, thrower = "something"): string {
  if (typeof value === "string") return value;
  if (typeof value === "symbol") return value.toString();
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return String(value);
  try {
    const message = (value as { message?: unknown }).message;
    if (typeof message === "string") return message;
  } catch {
    // a `message` getter that throws, or a revoked proxy: described below
  }
  try {
    const text = String(value);
    if (text !== "[object Object]") return text;
  } catch {
    // a `toString` that throws, an object without a prototype
  }
  try {
    const json = JSON.stringify(value);
    if (json !== undefined && json !== "{}") return json;
  } catch {
    // a cycle, a BigInt, a `toJSON` that throws
  }
  return `${thrower} threw ${kindOf(value)} that cannot be shown as text`;
}

/** `an object`, `an object without a prototype`, `a RateLimitInfo`: what kind of value was thrown. */
function kindOf(value: object): string {
  try {
    if (Object.getPrototypeOf(value) === null) return "an object without a prototype";
    const name: unknown = value.constructor?.name;
    if (typeof name !== "string" || name === "" || name === "Object") return "an object";
    return `${/^[aeiou]/i.test(name) ? "an" : "a"} ${name}`;
  } catch {
    return "an object"; // a revoked proxy, a `constructor` getter that throws
  }
}
