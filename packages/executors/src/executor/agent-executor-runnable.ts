import { Runnable, type RunnableConfig, ensureConfig } from "@langchain/core/runnables";
import { IterableReadableStream } from "@langchain/core/utils/stream";
import { lastValueFrom } from "rxjs";
import type { AgentExecutor } from "./agent-executor";
import type { AgentExecutorResult } from "./agent-executor-options";
import type { AgentStreamEvent } from "./events";

/**
 * An {@link AgentExecutor} as a `@langchain/core` `Runnable`: `invoke` returns a Promise of the
 * result and `stream` an async iterable of the run's {@link AgentStreamEvent}s (ending with
 * `output`). Breaking out of the iteration cancels the run. Get one with `executor.asRunnable()`.
 *
 * @example
 * ```ts
 * import { AgentExecutor } from "@agentrx/executors";
 * import { RunnableLambda } from "@langchain/core/runnables";
 *
 * const agent = RunnableLambda.from(() => ({ returnValues: { output: "hi" }, log: "" }));
 * const runnable = new AgentExecutor({ agent, tools: [] }).asRunnable();
 * console.log((await runnable.invoke({ input: "hello" })).output); // "hi"
 * for await (const event of await runnable.stream({ input: "hello" })) console.log(event.type);
 * ```
 */
export class AgentExecutorRunnable extends Runnable<Record<string, unknown>, AgentExecutorResult> {
  lc_namespace = ["agentrx", "executors"];

  static override lc_name(): string {
    return "AgentExecutorRunnable";
  }

  constructor(private readonly executor: AgentExecutor) {
    super();
  }

  override invoke(input: Record<string, unknown>, options?: Partial<RunnableConfig>): Promise<AgentExecutorResult> {
    return lastValueFrom(this.executor.invoke(input, options));
  }

  override async *_streamIterator(
    input: Record<string, unknown>,
    options?: Partial<RunnableConfig>,
  ): AsyncGenerator<AgentExecutorResult> {
    const queue: AgentStreamEvent[] = [];
    let wake: (() => void) | undefined;
    let finished = false;
    let failure: { error: unknown } | undefined;
    const subscription = this.executor.stream(input, options).subscribe({
      next: (event) => {
        queue.push(event);
        wake?.();
      },
      error: (error: unknown) => {
        failure = { error };
        wake?.();
      },
      complete: () => {
        finished = true;
        wake?.();
      },
    });
    try {
      for (;;) {
        while (queue.length > 0) yield queue.shift() as unknown as AgentExecutorResult;
        if (failure) throw failure.error;
        if (finished) return;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      subscription.unsubscribe();
    }
  }

  /** Streams the run's events (the last one is `output`); breaking out of the loop cancels the run. */
  override stream(
    input: Record<string, unknown>,
    options?: Partial<RunnableConfig>,
  ): Promise<IterableReadableStream<AgentStreamEvent>>;
  /** @internal The signature inherited from `Runnable` (kept so this class stays a `Runnable`). */
  override stream(
    input: Record<string, unknown>,
    options?: Partial<RunnableConfig>,
  ): Promise<IterableReadableStream<AgentExecutorResult>>;
  override stream(
    input: Record<string, unknown>,
    options?: Partial<RunnableConfig>,
  ): Promise<IterableReadableStream<AgentExecutorResult | AgentStreamEvent>> {
    // Not `Runnable.stream`, which races each read against `config.signal` and fails with its own
    // error: the run's cancellation comes through the iteration as its `AbortError` (with the
    // signal's reason), as `invoke` rejects with it.
    return Promise.resolve(IterableReadableStream.fromAsyncGenerator(this._streamIterator(input, ensureConfig(options))));
  }
}
