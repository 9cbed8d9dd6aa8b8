/**
 * Whether a hook's result is a promise (any thenable) where the hook must answer synchronously
 * (`handleToolRuntimeErrors`, `earlyStopOutput`, `prices`, ...), for the caller to refuse, naming
 * the option. A promise gets a no-op rejection handler first: nobody awaits a refused promise, so
 * its rejection (an `async` hook that throws) would otherwise be an unhandled rejection, which
 * ends a Node.js process by default, on top of the run's failure.
 *
 * @internal
 */
export function refusedPromise(value: unknown): boolean {
  let then: unknown;
  try {
    then = (value as { then?: unknown } | null | undefined)?.then;
  } catch {
    return false; // a value whose `then` cannot be read (a revoked proxy) is no promise
  }
  if (typeof then !== "function") return false;
  // `Promise.resolve` follows a foreign thenable too; a `then` that throws rejects it, handled here.
  Promise.resolve(value).catch(noop);
  return true;
}

function noop(): void {}
