import { Observable, type Subscriber, type TeardownLogic, lastValueFrom } from "rxjs";

/**
 * A cold observable of a run that can also be awaited: `await executor.invoke(inputs)` subscribes
 * once and resolves with the result (awaiting it again gives the same result; it does not run the
 * agent again). Everything else is plain RxJS: each `subscribe` is its own run, and `pipe` returns
 * an ordinary `Observable`.
 *
 * @example
 * ```ts
 * import { AgentExecutor } from "@agentrx/executors";
 * import { RunnableLambda } from "@langchain/core/runnables";
 *
 * const agent = RunnableLambda.from(() => ({ returnValues: { output: "hi" }, log: "" }));
 * const executor = new AgentExecutor({ agent, tools: [] });
 * const result = await executor.invoke({ input: "hello" }); // a Promise-like observable
 * console.log(result.output); // "hi"
 * executor.invoke({ input: "hello" }).subscribe((value) => console.log(value.output)); // "hi"
 * ```
 */
export class RunObservable<T, R = T> extends Observable<T> implements PromiseLike<R> {
  private result: Promise<R> | undefined;
  /** How the awaited result comes from the run (stored untyped, so the class stays covariant). */
  private readonly settle: (run: Observable<never>) => Promise<unknown>;

  /**
   * @param subscribe what a subscription does (as for `new Observable`)
   * @param settle how the awaited result comes from the run (by default its last value)
   */
  constructor(subscribe: (this: Observable<T>, subscriber: Subscriber<T>) => TeardownLogic, settle?: (run: Observable<T>) => Promise<R>) {
    super(subscribe);
    this.settle = (settle ?? ((run: Observable<T>) => lastValueFrom(run))) as (run: Observable<never>) => Promise<unknown>;
  }

  // biome-ignore lint/suspicious/noThenProperty: awaiting a run is the point
  then<A = R, B = never>(onfulfilled?: ((value: R) => A | PromiseLike<A>) | null, onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    this.result ??= this.settle(new Observable<T>((subscriber) => this.subscribe(subscriber)) as Observable<never>) as Promise<R>;
    return this.result.then(onfulfilled, onrejected);
  }
}
