import { Observable, type OperatorFunction, type Subscriber, type TeardownLogic, lastValueFrom, tap } from "rxjs";
import type { RunDisplayBundle } from "../display/display-types";
import { loadViewer } from "../display/load-viewer";
import type { RunStore } from "../runs/run-store";
import type { AgentStreamEvent } from "./events";

/** The symbol Jupyter kernels for JavaScript look up to display a value (Deno's kernel does). */
const JUPYTER_DISPLAY: unique symbol = Symbol.for("Jupyter.display") as never;

/**
 * How a display runs a run: its events (recorded into `store` when the run is not recorded
 * anyway), where its record is, and how its result comes from its events.
 *
 * @internal
 */
export interface RunDisplaySource<R> {
  events(store: RunStore | undefined): Observable<AgentStreamEvent>;
  /** The store the run is recorded in anyway (the executor's or the call's), if any. */
  store: RunStore | undefined;
  result: OperatorFunction<AgentStreamEvent, R>;
}

/** The display source of a run made by an executor. @internal */
export function runDisplaySource<R>(run: RunObservable<unknown, R>): RunDisplaySource<R> | undefined {
  return typeof run.displaySourceOf === "function" ? run.displaySourceOf() : undefined;
}

/**
 * The subscriber through which each awaited run runs, to what tells that run its id (see
 * {@link noteAwaitedRunId}). Weak: an ended run's subscriber goes with it.
 */
const awaitedRuns = new WeakMap<object, (runId: string) => void>();

/**
 * Tells the awaited run that runs through `subscriber`, if it is one, the id of its run (its
 * `start` event's): what an executor does whose awaited subscriber sees no events, only the result
 * (`invoke`'s), so that a run that fails still says which run it was. Anything else is a no-op.
 *
 * @internal
 */
export function noteAwaitedRunId(subscriber: object, runId: string): void {
  awaitedRuns.get(subscriber)?.(runId);
}

/** The run id a value carries: a run event's (not a sub-run's), or a result's. */
function runIdIn(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { runId, subRun } = value as { runId?: unknown; subRun?: unknown };
  return typeof runId === "string" && subRun === undefined ? runId : undefined;
}

/**
 * A cold observable of a run that can also be awaited: `await executor.invoke(inputs)` subscribes
 * once and resolves with the result (awaiting it again gives the same result; it does not run the
 * agent again). Everything else is plain RxJS: each `subscribe` is its own run, and `pipe` returns
 * an ordinary `Observable`.
 *
 * In a Jupyter notebook (Deno's kernel), a run left as a cell's last expression shows itself: a live
 * table of its tool calls and answer while it runs, then its trace (`displayRun` of
 * `@agentrx/viewer`, imported only then: install it to display runs); awaiting it afterwards gives
 * that run's result without running it again.
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
 * const failed = await executor.invoke(null as never).catch((error: Error) => error.name); // "InvalidArgumentError"
 * ```
 */
export class RunObservable<T, R = T> extends Observable<T> implements PromiseLike<R> {
  private result: Promise<R> | undefined;
  /** The id of the run the awaited result comes from, once that run's first event said it. */
  private resultRunId: (() => string | undefined) | undefined;
  /** How the awaited result comes from the run (stored untyped, so the class stays covariant). */
  private readonly settle: (run: Observable<never>) => Promise<unknown>;
  /** How a notebook display runs it, or how to make that (read by `runDisplaySource`, rarely: made on demand). */
  private readonly displaySource: RunDisplaySource<unknown> | (() => RunDisplaySource<unknown>) | undefined;

  /**
   * @param subscribe what a subscription does (as for `new Observable`)
   * @param settle how the awaited result comes from the run (by default its last value)
   * @param source how a notebook display runs it, or a function that makes that on demand
   *   (executors pass it; see `displayRun` of `@agentrx/viewer`)
   */
  constructor(
    subscribe: (this: Observable<T>, subscriber: Subscriber<T>) => TeardownLogic,
    settle?: (run: Observable<T>) => Promise<R>,
    source?: RunDisplaySource<R> | (() => RunDisplaySource<R>),
  ) {
    super(subscribe);
    this.settle = (settle ?? ((run: Observable<T>) => lastValueFrom(run))) as (run: Observable<never>) => Promise<unknown>;
    this.displaySource = source as RunDisplaySource<unknown> | (() => RunDisplaySource<unknown>) | undefined;
  }

  // biome-ignore lint/suspicious/noThenProperty: awaiting a run is the point
  then<A = R, B = never>(onfulfilled?: ((value: R) => A | PromiseLike<A>) | null, onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    this.result ??= this.settle(this.awaitedRun() as Observable<never>) as Promise<R>;
    return this.result.then(onfulfilled, onrejected);
  }

  /**
   * The run that awaiting runs (one subscription), noting its id from the first value that
   * carries one (a `stream`'s `start` event, an `invoke`'s result) or from what its executor tells
   * {@link noteAwaitedRunId} (an `invoke` that fails emits nothing): a failed run's display reads
   * its record with it.
   */
  private awaitedRun(): Observable<T> {
    let runId: string | undefined;
    this.resultRunId = () => runId;
    const learn = (id: string) => {
      runId ??= id;
    };
    return new Observable<T>((subscriber) => {
      awaitedRuns.set(subscriber, learn);
      return this.subscribe(subscriber);
    }).pipe(
      tap((value) => {
        if (runId === undefined) runId = runIdIn(value);
      }),
    );
  }

  /**
   * Awaits the run and handles its failure, as `Promise.prototype.catch` does: `await
   * executor.invoke(inputs).catch((error) => ...)`.
   */
  // biome-ignore lint/suspicious/noExplicitAny: as Promise.prototype.catch, so `(error: Error) => ...` is accepted
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  catch<B = never>(onrejected?: ((reason: any) => B | PromiseLike<B>) | null): Promise<R | B> {
    return this.then(undefined, onrejected);
  }

  /** Awaits the run and then calls `onfinally`, as `Promise.prototype.finally` does. */
  finally(onfinally?: (() => void) | null): Promise<R> {
    return this.then().finally(onfinally);
  }

  /**
   * Jupyter's display protocol: runs the run (unless it was awaited already), showing a live table,
   * and resolves with its final MIME bundle; awaiting the run afterwards gives this run's result.
   * The display is `@agentrx/viewer`'s, imported on the first display (never before); without it
   * the bundle is a line of text saying to install it (or why it could not be loaded).
   */
  async [JUPYTER_DISPLAY](): Promise<RunDisplayBundle | { "text/plain": string }> {
    let viewer: Awaited<ReturnType<typeof loadViewer>>;
    try {
      viewer = await loadViewer();
    } catch (error) {
      return { "text/plain": (error as Error).message };
    }
    return viewer.displayRun(this as unknown as Observable<never>);
  }

  /**
   * How a notebook display runs this run, when an executor made it.
   *
   * @internal
   */
  displaySourceOf(): RunDisplaySource<R> | undefined {
    const source = this.displaySource;
    return (typeof source === "function" ? source() : source) as RunDisplaySource<R> | undefined;
  }

  /**
   * The awaited result, when the run was awaited (or displayed) already.
   *
   * @internal
   */
  awaitedResult(): Promise<R> | undefined {
    return this.result;
  }

  /**
   * The id of the run the awaited result comes from, when the run was awaited (or displayed) and
   * said its id before it ended: a failed run's error does not say it.
   *
   * @internal
   */
  awaitedRunId(): string | undefined {
    return this.resultRunId?.();
  }

  /**
   * Makes `outcome` this run's awaited result, unless it was awaited already (a display does,
   * before it runs the run, so that awaiting the run meanwhile waits for the display's run).
   *
   * @param outcome the result of the run the display runs
   * @param runId the id of that run, once its events said it
   * @internal
   */
  adoptResult(outcome: Promise<R>, runId?: () => string | undefined): void {
    if (this.result !== undefined) return;
    outcome.catch(() => undefined); // a failure shows in the display; awaiting the run rethrows it
    this.result = outcome;
    this.resultRunId = runId;
  }
}
