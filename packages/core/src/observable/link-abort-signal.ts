/**
 * Makes `controller` abort when `signal` aborts (with the same reason), and returns a function
 * that removes the listener again. Unlike `AbortSignal.any`, nothing stays attached to a
 * long-lived parent signal once the child's work is over.
 *
 * @example
 * ```ts
 * import { linkAbortSignal } from "@agentrx/core";
 *
 * const parent = new AbortController();
 * const child = new AbortController();
 * const unlink = linkAbortSignal(parent.signal, child);
 * // ... do work with child.signal ...
 * unlink();
 * ```
 */
export function linkAbortSignal(
  signal: AbortSignal | undefined,
  controller: AbortController,
): () => void {
  if (!signal) return noop;
  if (signal.aborted) {
    controller.abort(signal.reason);
    return noop;
  }
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

function noop(): void {}
