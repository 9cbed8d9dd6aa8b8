import { InvalidArgumentError } from "@agentrx/core";
import type { RunnableConfig } from "@langchain/core/runnables";
import { Observable, type OperatorFunction } from "rxjs";
import type { AgentExecutorCallConfig, AgentExecutorOptions, AgentExecutorResult } from "./agent-executor-options";
import type { AgentStreamEvent, OutputEvent } from "./events";
import { AgentExecutorRunnable } from "./agent-executor-runnable";
import { ExecutorRun } from "./executor-run";
import type { StopCondition } from "./stop-condition";
import { type ResolvedOptions, normalizeStopWhen, validateOptions } from "./validate-options";

/**
 * Runs an agent: calls it, runs the tools it asks for (concurrently), feeds the steps back, and
 * stops on a final answer, `returnDirect`, a limit or a stop condition. Runs are cold RxJS
 * observables: nothing starts before you subscribe, each subscription is its own run, and
 * unsubscribing cancels it (the model call and tools in flight see their `AbortSignal` fire).
 *
 * `invoke` is `stream` filtered to the `output` event and mapped to the result: one code path.
 *
 * @example
 * ```ts
 * import { AgentExecutor } from "@agentrx/executors";
 * import { RunnableLambda } from "@langchain/core/runnables";
 * import { tool } from "@langchain/core/tools";
 * import { lastValueFrom } from "rxjs";
 * import { z } from "zod";
 *
 * const add = tool(async ({ a, b }) => String(a + b), {
 *   name: "add",
 *   description: "Adds two numbers.",
 *   schema: z.object({ a: z.number(), b: z.number() }),
 * });
 * const agent = RunnableLambda.from((input: { steps: { observation: string }[] }) =>
 *   input.steps.length === 0
 *     ? { tool: "add", toolInput: { a: 2, b: 3 }, log: "" }
 *     : { returnValues: { output: `The sum is ${input.steps[0]!.observation}.` }, log: "" },
 * );
 * const executor = new AgentExecutor({ agent, tools: [add] });
 * const result = await lastValueFrom(executor.invoke({ input: "What is 2 + 3?" }));
 * console.log(result.output); // "The sum is 5."
 * ```
 */
export class AgentExecutor {
  private readonly options: ResolvedOptions;

  /** @throws InvalidArgumentError naming the option when an option has a value that cannot work. */
  constructor(options: AgentExecutorOptions) {
    this.options = validateOptions(options);
  }

  /**
   * Runs the agent and emits the result once, then completes.
   *
   * @param inputs the agent's inputs (an object, e.g. `{ input: "..." }`)
   * @param config a `RunnableConfig` (callbacks, tags, metadata, signal, runName, configurable)
   *   plus optional per-call `stopWhen` conditions
   */
  invoke(inputs: Record<string, unknown>, config?: AgentExecutorCallConfig): Observable<AgentExecutorResult> {
    return this.events(inputs, config, false).pipe(toResultOf(inputs));
  }

  /** Runs the agent and emits the run as events; the last event is always `output`. */
  stream(inputs: Record<string, unknown>, config?: AgentExecutorCallConfig): Observable<AgentStreamEvent> {
    return this.events(inputs, config, true);
  }

  /**
   * This executor as a `@langchain/core` `Runnable`: `invoke` returns a Promise of the result;
   * `stream` is an async iterable of {@link AgentStreamEvent}s. Use it to compose the executor in
   * LCEL chains or wherever a runnable is expected.
   */
  asRunnable(): AgentExecutorRunnable {
    return new AgentExecutorRunnable(this);
  }

  private events(
    inputs: Record<string, unknown>,
    config: AgentExecutorCallConfig | undefined,
    streamTokens: boolean,
  ): Observable<AgentStreamEvent> {
    return new Observable<AgentStreamEvent>((subscriber) => {
      if (typeof inputs !== "object" || inputs === null || Array.isArray(inputs)) {
        subscriber.error(
          new InvalidArgumentError({
            argument: "inputs",
            value: inputs,
            message: `AgentExecutor: \`inputs\` must be an object such as { input: "..." }, got ${inputs === null ? "null" : Array.isArray(inputs) ? "an array" : typeof inputs}.`,
          }),
        );
        return;
      }
      let runConfig: RunnableConfig = config ?? {};
      let conditions: readonly StopCondition[] = this.options.stopWhen;
      if (config?.stopWhen !== undefined) {
        const { stopWhen, ...rest } = config;
        runConfig = rest;
        try {
          conditions = [...conditions, ...normalizeStopWhen(stopWhen, "config.stopWhen")];
        } catch (error) {
          subscriber.error(error);
          return;
        }
      }
      const observeModel = streamTokens || conditions.length > 0;
      const run = new ExecutorRun(
        this.options,
        { inputs, config: runConfig, conditions, streamTokens, observeModel },
        subscriber,
      );
      return run.start();
    });
  }
}

/** Keeps the `output` event and maps it to the result (`filter` + `map` in one operator). */
function toResultOf(inputs: Record<string, unknown>): OperatorFunction<AgentStreamEvent, AgentExecutorResult> {
  return (events) =>
    new Observable<AgentExecutorResult>((subscriber) =>
      events.subscribe({
        next: (event) => {
          if (event.type === "output") subscriber.next(toResult(inputs, event));
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      }),
    );
}

function toResult(inputs: Record<string, unknown>, event: OutputEvent): AgentExecutorResult {
  const result: AgentExecutorResult = { ...inputs, ...event.returnValues, output: event.output };
  if (event.intermediateSteps) result.intermediateSteps = event.intermediateSteps;
  return result;
}
