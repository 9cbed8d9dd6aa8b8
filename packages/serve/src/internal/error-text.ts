import { describeThrown } from "@agentrx/core";

/**
 * The default text of an error sent to a client (docs/serving.md): the first line of its message,
 * whatever was thrown. An object with a string `message` (an `Error`, or what HTTP and SDK clients
 * often throw) gives that; anything else is described as the executor describes a tool's thrown
 * value to its model (`describeThrown`): its own string when it has one, else its JSON, else a
 * line saying it cannot be shown ("The run failed." for an empty text). It never throws (a
 * `message` getter or a `toString` that throws is passed over). @internal
 */
export function errorText(error: unknown): string {
  return describeThrown(error, "the run").split("\n")[0] || "The run failed.";
}
