import { AbortError, AgentRxError, InvalidArgumentError, checkOptionKeys } from "@agentrx/core";
import type { Observable } from "rxjs";
import type { AgentStreamEvent, OutputEvent } from "../executor/events";
import { checkRunEventStream } from "./check-run-event";
import { renderTrace, resolveTraceOptions, type RenderTraceOptions } from "./render-trace";
import { formatError } from "./trace-format";

/**
 * Options of {@link printTrace}.
 *
 * @example
 * ```ts
 * import { AgentExecutor, printTrace, type PrintTraceOptions } from "@agentrx/executors";
 * declare const executor: AgentExecutor;
 *
 * const options: PrintTraceOptions = { signal: AbortSignal.timeout(60_000), colors: false };
 * await printTrace(executor.stream({ input: "Weather in Paris?" }), options);
 * ```
 */
export interface PrintTraceOptions extends RenderTraceOptions {
  /**
   * Cancels the run (unsubscribing from it): an `error` line says so, printing stops and the
   * promise rejects with an `AbortError`.
   */
  signal?: AbortSignal;
}

/** The options {@link printTrace} takes. */
const PRINT_TRACE_OPTION_KEYS = ["signal", "write", "colors", "maxLength", "tokens", "usage"] satisfies (keyof PrintTraceOptions)[];

/**
 * Runs a stream to its end while printing it with {@link renderTrace}, for notebook-style
 * scripts: `await` it, and it resolves with the run's `output` event. It rejects with the run's
 * error, with an `AbortError` when `signal` aborts (cancelling the run; the trace ends with an
 * `error   AbortError: The run was aborted…` line, as when the run's own signal aborts), or with an
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
  checkRunEventStream("printTrace", "events", events);
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new InvalidArgumentError({ argument: "options", value: options, message: `printTrace: \`options\` must be an object such as { colors: false }, got ${options === null ? "null" : Array.isArray(options) ? "an array" : typeof options}.` });
  }
  checkOptionKeys("printTrace", options, [...PRINT_TRACE_OPTION_KEYS]);
  const { signal, ...traceOptions } = options;
  if (signal !== undefined && !isAbortSignal(signal)) {
    throw new InvalidArgumentError({
      argument: "signal",
      value: signal,
      message: `printTrace: \`signal\` must be an AbortSignal (e.g. new AbortController().signal), got ${signal === null ? "null" : typeof signal}.`,
    });
  }
  const { write, style } = resolveTraceOptions(traceOptions, "printTrace"); // fail fast
  const cancelled = (reason: unknown): AbortError => {
    const error = new AbortError({ reason });
    try {
      write(formatError(error, style));
    } catch {
      // The cancellation matters more than the writer's failure.
    }
    return error;
  };
  return new Promise<OutputEvent>((resolve, reject) => {
    if (signal?.aborted) {
      reject(cancelled(signal.reason));
      return;
    }
    let output: OutputEvent | undefined;
    let started = false;
    const onAbort = () => {
      subscription.unsubscribe(); // ends an open `model` line first
      reject(cancelled(signal?.reason));
    };
    const subscription = events.pipe(renderTrace(traceOptions)).subscribe({
      next: (event) => {
        if (event.type === "output") output = event;
        else if (event.type === "start" && event.subRun === undefined) started = true;
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
              // A run's events that end without an answer: a replay of a run that failed, was
              // cancelled or is still running (its record ends there). No run's events at all: a result.
              message: started
                ? 'printTrace: the run\'s events ended without an "output" event: the run has no answer (a replay of a run that failed, was cancelled or is still running ends where its record does); the trace above shows what it did.'
                : 'printTrace: the stream completed without an "output" event; pass `executor.stream(...)`, not `executor.invoke(...)`.',
            }),
          );
      },
    });
    if (!subscription.closed) signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function isAbortSignal(value: unknown): value is AbortSignal {
  const signal = value as Partial<AbortSignal> | null;
  return (
    typeof signal === "object" &&
    signal !== null &&
    typeof signal.aborted === "boolean" &&
    typeof signal.addEventListener === "function" &&
    typeof signal.removeEventListener === "function"
  );
}
