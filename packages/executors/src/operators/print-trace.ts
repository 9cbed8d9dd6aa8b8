import { AbortError, AgentRxError } from "@agentrx/core";
import type { Observable } from "rxjs";
import type { AgentStreamEvent, OutputEvent } from "../executor/events";
import { renderTrace, resolveTraceOptions, type RenderTraceOptions } from "./render-trace";

/** Options of {@link printTrace}. */
export interface PrintTraceOptions extends RenderTraceOptions {
  /** Stops printing and cancels the run (unsubscribing from it); the promise rejects with an `AbortError`. */
  signal?: AbortSignal;
}

/**
 * Runs a stream to its end while printing it with {@link renderTrace}, for notebook-style
 * scripts: `await` it, and it resolves with the run's `output` event. It rejects with the run's
 * error, with an `AbortError` when `signal` aborts (cancelling the run), or with an
 * `AgentRxError` when the stream ends without an `output` event (pass `executor.stream(...)`,
 * not `executor.invoke(...)`).
 *
 * @example
 * ```ts
 * import { AgentExecutor, printTrace } from "@agentrx/executors";
 * declare const executor: AgentExecutor;
 *
 * const { output, stopReason } = await printTrace(executor.stream({ input: "Weather in Paris?" }));
 * ```
 */
export function printTrace(
  events: Observable<AgentStreamEvent>,
  options: PrintTraceOptions = {},
): Promise<OutputEvent> {
  const { signal, ...traceOptions } = options ?? {};
  resolveTraceOptions(traceOptions, "printTrace"); // fail fast, before anything runs
  return new Promise<OutputEvent>((resolve, reject) => {
    if (signal?.aborted) {
      reject(new AbortError({ reason: signal.reason }));
      return;
    }
    let output: OutputEvent | undefined;
    const onAbort = () => {
      subscription.unsubscribe();
      reject(new AbortError({ reason: signal?.reason }));
    };
    const subscription = events.pipe(renderTrace(traceOptions)).subscribe({
      next: (event) => {
        if (event.type === "output") output = event;
      },
      error: (error: unknown) => {
        signal?.removeEventListener("abort", onAbort);
        reject(error);
      },
      complete: () => {
        signal?.removeEventListener("abort", onAbort);
        if (output) resolve(output);
        else
          reject(
            new AgentRxError({
              name: "AgentRxError",
              message:
                'printTrace: the stream completed without an "output" event; pass `executor.stream(...)`, not `executor.invoke(...)`.',
            }),
          );
      },
    });
    if (!subscription.closed) signal?.addEventListener("abort", onAbort, { once: true });
  });
}
