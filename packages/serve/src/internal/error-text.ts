/**
 * The default text of an error sent to a client (docs/serving.md): the first line of its message,
 * whatever was thrown. An object with a string `message` (an `Error`, or what HTTP and SDK clients
 * often throw) gives that; anything else is described as the executor describes a tool's thrown
 * value to its model: its own string when it has one, else its JSON, else "The run failed.". It
 * never throws (a `message` getter or a `toString` that throws is passed over). @internal
 */
export function errorText(error: unknown): string {
  return describeThrown(error).split("\n")[0] || "The run failed.";
}

function describeThrown(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "symbol") return value.toString();
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return String(value);
  try {
    const message = (value as { message?: unknown }).message;
    if (typeof message === "string") return message;
  } catch {
    // a `message` getter that throws, a revoked proxy: described below
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
    // a cycle, a BigInt
  }
  return "";
}
