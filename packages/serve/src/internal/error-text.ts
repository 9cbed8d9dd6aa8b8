import { describeThrown, refusePromise } from "@agentrx/core";

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

/**
 * The text a client sees for `error`: the `onError` hook's, or {@link errorText}'s when there is no
 * hook, or when it throws or gives no text, a Promise say (a broken masking hook must not leave a stream open, or
 * crash the server from an observable's error callback). It never throws. @internal
 */
export function clientErrorText(onError: ((error: unknown) => string) | undefined, error: unknown): string {
  if (onError === undefined) return errorText(error);
  try {
    const text: unknown = onError(error);
    if (typeof text === "string" && text !== "") return text;
    // An `async` hook: its text comes too late, and its rejection must not crash the process.
    refusePromise(text);
  } catch {
    // The hook failed too: the error's own text goes out.
  }
  return errorText(error);
}
