/**
 * Whether `value` is a thenable (a Promise, or any object with a `then` method): what a hook typed
 * to return a plain value returns when it was written `async`. It never throws: a value whose
 * `then` cannot be read (a getter that throws, a revoked proxy) is no thenable.
 *
 * To refuse such a value, use {@link refusePromise}, which also handles its rejection.
 *
 * @param value - Any value, typically what a user's hook returned.
 * @returns `true` when `value.then` is a function.
 *
 * @example
 * ```ts
 * import { isThenable } from "@agentrx/core";
 *
 * isThenable(Promise.resolve(1)); // true
 * isThenable({ then: (resolve: (v: number) => void) => resolve(1) }); // true
 * isThenable({ then: 1 }); // false
 * ```
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  try {
    return typeof (value as { then?: unknown } | null | undefined)?.then === "function";
  } catch {
    return false;
  }
}

/**
 * Refuses a Promise where a plain value is required: returns whether `value` is a thenable
 * ({@link isThenable}), and if it is, first attaches a rejection handler to it, so the caller can
 * fail naming the hook that returned it. Nobody awaits a refused promise, so without the handler
 * its rejection (an `async` hook that throws) would be an unhandled rejection, which ends a
 * Node.js process by default, on top of the error the caller reports.
 *
 * The handler is attached through `Promise.resolve(value)`, so a foreign thenable is covered too,
 * including one whose `then` throws. A rejection is ignored unless `onRejected` is given; an
 * `onRejected` that throws is ignored as well (nothing is left unhandled).
 *
 * @param value - What a hook returned where it had to answer synchronously.
 * @param onRejected - Called with the promise's rejection reason, to report it (ignored by default).
 * @returns `true` when `value` is a thenable (now handled), else `false`.
 *
 * @example
 * ```ts
 * import { InvalidArgumentError, refusePromise } from "@agentrx/core";
 *
 * function ownKey(key: (args: unknown) => string, args: unknown): string {
 *   const result: unknown = key(args); // an `async` key function gives a Promise
 *   if (typeof result === "string") return result;
 *   const got = refusePromise(result) ? "a Promise" : String(result);
 *   throw new InvalidArgumentError({ argument: "key", value: result, message: `\`key\` must return a string, synchronously; got ${got}.` });
 * }
 * ```
 */
export function refusePromise(value: unknown, onRejected?: (reason: unknown) => void): boolean {
  if (!isThenable(value)) return false;
  Promise.resolve(value).catch((reason: unknown) => {
    try {
      onRejected?.(reason);
    } catch {
      // A reporting handler that fails must not become the unhandled rejection it was there to prevent.
    }
  });
  return true;
}
