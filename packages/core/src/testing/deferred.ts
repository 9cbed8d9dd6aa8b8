import { InvalidArgumentError } from "../errors/invalid-argument-error";

/** A promise with its `resolve` and `reject` exposed; see {@link deferred}. */
export interface Deferred<T> {
  /** Settles when `resolve` or `reject` is called. */
  promise: Promise<T>;
  /** Fulfils `promise` with `value`. */
  resolve: (value: T) => void;
  /** Rejects `promise` with `error`. */
  reject: (error: unknown) => void;
}

/**
 * A promise you settle from outside, for tests that must control when a tool or a model call
 * finishes (instead of sleeping).
 *
 * @example
 * ```ts
 * import { deferred } from "@agentrx/core/testing";
 *
 * const gate = deferred<string>();
 * setTimeout(() => gate.resolve("open"), 0);
 * console.log(await gate.promise); // "open"
 * ```
 */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  return { promise, resolve, reject };
}

/** A latch that opens once a number of parties have arrived; see {@link latch}. */
export interface Latch {
  /** Registers one arrival and returns a promise that resolves once the latch is open. */
  arrive: () => Promise<void>;
  /** How many parties have arrived so far. */
  readonly arrived: number;
}

/**
 * A latch that opens when `count` parties have arrived. Proves that work runs concurrently
 * without a stopwatch: two tools that both `await latch.arrive()` on a latch of 2 only finish if
 * they run at the same time.
 *
 * `count` is a whole number >= 0 (a safe integer); a latch of 0 is open from the start. Anything
 * else (`NaN`, `1.5`, `-1`, `Infinity`), which would make a latch that never opens or opens at
 * once, throws an `InvalidArgumentError` naming it.
 *
 * @example
 * ```ts
 * import { latch } from "@agentrx/core/testing";
 *
 * const both = latch(2);
 * await Promise.all([both.arrive(), both.arrive()]); // resolves: both arrived
 * console.log(both.arrived); // 2
 * ```
 */
export function latch(count: number): Latch {
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new InvalidArgumentError({
      argument: "count",
      value: count,
      message: `latch: \`count\` must be a whole number of parties >= 0, got ${typeof count === "string" ? JSON.stringify(count) : String(count)}.`,
    });
  }
  let arrived = 0;
  const open = deferred();
  return {
    arrive: () => {
      arrived++;
      if (arrived >= count) open.resolve();
      return open.promise;
    },
    get arrived() {
      return arrived;
    },
  };
}
