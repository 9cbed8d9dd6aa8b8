import type { Runnable, RunnableConfig } from "@langchain/core/runnables";
import { Observable } from "rxjs";
import { checkOptionKeys } from "../agent/check-option-keys";
import { AbortError } from "../errors/abort-error";
import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { linkAbortSignal } from "./link-abort-signal";
import { showValue } from "../agent/show-value";

/** Options for {@link fromRunnable}. */
export interface FromRunnableOptions {
  /**
   * `"stream"` emits every chunk of `runnable.stream()`; `"invoke"` emits the single result of
   * `runnable.invoke()`.
   * @default "stream"
   */
  mode?: "stream" | "invoke";
}

const OPTION_KEYS = Object.keys({ mode: true } satisfies Record<keyof FromRunnableOptions, true>);

/**
 * Runs a `@langchain/core` runnable as a cold `Observable`. Nothing starts until subscription;
 * each subscription is its own call; unsubscribing aborts the call through the `AbortSignal`
 * passed in `config.signal` (linked to any signal you gave in `config`). An option it does not
 * take (a misspelt `mdoe`) or a `mode` other than `"stream"` or `"invoke"` throws an
 * `InvalidArgumentError` at once; `config` is LangChain's own and passed on as it is.
 *
 * @example
 * ```ts
 * import { fromRunnable } from "@agentrx/core";
 * import { RunnableLambda } from "@langchain/core/runnables";
 * import { lastValueFrom } from "rxjs";
 *
 * const double = RunnableLambda.from((n: number) => n * 2);
 * console.log(await lastValueFrom(fromRunnable(double, 21, {}, { mode: "invoke" }))); // 42
 * ```
 */
export function fromRunnable<RunInput, RunOutput>(
  runnable: Runnable<RunInput, RunOutput>,
  input: RunInput,
  config: RunnableConfig = {},
  options: FromRunnableOptions = {},
): Observable<RunOutput> {
  // `config` is LangChain's own, open-ended RunnableConfig, passed on as it is; the options are ours.
  checkOptionKeys("fromRunnable", options, OPTION_KEYS);
  const { mode = "stream" } = options;
  if (mode !== "stream" && mode !== "invoke") {
    throw new InvalidArgumentError({ argument: "mode", value: mode, message: `fromRunnable: \`mode\` must be "stream" or "invoke", got ${showValue(mode)}.` });
  }
  return new Observable<RunOutput>((subscriber) => {
    const controller = new AbortController();
    const unlink = linkAbortSignal(config.signal, controller);
    const runConfig: RunnableConfig = { ...config, signal: controller.signal };
    let iterator: AsyncIterator<RunOutput> | undefined;

    const run = async () => {
      if (mode === "invoke") {
        const value = await runnable.invoke(input, runConfig);
        if (!subscriber.closed) subscriber.next(value);
      } else {
        const stream = await runnable.stream(input, runConfig);
        iterator = stream[Symbol.asyncIterator]();
        for (;;) {
          const result = await iterator.next();
          if (result.done || subscriber.closed) break;
          subscriber.next(result.value);
        }
      }
    };

    run().then(
      () => {
        unlink();
        subscriber.complete();
      },
      (error: unknown) => {
        unlink();
        subscriber.error(error);
      },
    );

    return () => {
      unlink();
      if (!controller.signal.aborted) controller.abort(new AbortError({ message: "Unsubscribed from the observable." }));
      // Let the async generator run its `finally` blocks; its rejection is of no interest now.
      iterator?.return?.().catch(() => undefined);
    };
  });
}
