/**
 * `setImmediate` as it was when this module loaded, so that a test which fakes timers afterwards
 * does not hold back work deferred with {@link onNextTurn}; `undefined` in browsers.
 */
const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;

/**
 * Runs `callback` once the event loop has turned: after the promise jobs and I/O callbacks that
 * are due now, so work queued in the same turn can be gathered and done together (a store's
 * writes in one transaction) and a long chain of synchronous steps lets timers and aborts fire.
 *
 * It uses `setImmediate` where the runtime has one (Node.js, Deno, Bun), else a zero timeout
 * (browsers). Errors thrown by `callback` are not caught: callers catch their own.
 *
 * @param callback - What to run on the next turn.
 *
 * @example
 * ```ts
 * import { onNextTurn } from "@agentrx/core";
 *
 * const order: string[] = [];
 * onNextTurn(() => order.push("next turn"));
 * await Promise.resolve().then(() => order.push("promise job"));
 * await new Promise<void>((resolve) => onNextTurn(resolve));
 * console.log(order); // ["promise job", "next turn"]
 * ```
 */
export const onNextTurn: (callback: () => void) => void = immediate
  ? (callback) => void immediate(callback)
  : (callback) => void setTimeout(callback, 0);

/**
 * Resolves once the event loop has turned ({@link onNextTurn}).
 *
 * @returns A promise that resolves on the next turn of the event loop.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => onNextTurn(resolve));
}
