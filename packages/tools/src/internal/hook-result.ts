/**
 * Whether a hook's result is a Promise (any thenable): what a hook typed to return a plain value
 * returns when it was written `async`.
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

/**
 * Marks a thenable a policy refuses (rather than awaits) as handled: its rejection, if any, must
 * not crash the process with an unhandled rejection.
 */
export function ignoreRejection(value: PromiseLike<unknown>): void {
  value.then(undefined, () => undefined);
}

/** A hook's result as error messages show it: `a Promise`, `a function`, else its JSON, else its string; never throws. */
export function shownResult(value: unknown): string {
  if (isThenable(value)) return "a Promise";
  if (typeof value === "function") return "a function";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
