import { AbortError, InvalidArgumentError, checkOptionKeys, observesModelCalls } from "@agentrx/core";
import type { RunnableConfig } from "@langchain/core/runnables";
import { Observable, type OperatorFunction, type Subscriber, type TeardownLogic, lastValueFrom } from "rxjs";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { openForkedRun } from "../runs/open-fork";
import { type OpenedRun, openNewRun, openResumedRun } from "../runs/open-run";
import type { ForkOf, RunStore } from "../runs/run-store";
import { RunStoreError } from "../runs/run-store-errors";
import { withStoreTimeout } from "../runs/with-store-timeout";
import { RunRecorder, ownerId } from "../runs/run-recorder";
import type { AgentExecutorCallConfig, AgentExecutorOptions, AgentExecutorResult, ForkOptions, ResumeOptions } from "./agent-executor-options";
import type { AgentStreamEvent } from "./events";
import { ResultSink, toResultOf } from "./run-result";
import { AgentExecutorRunnable } from "./agent-executor-runnable";
import { ExecutorRun } from "./executor-run";
import type { RunSubscriber } from "./run-ending";
import type { RunRequest } from "./run-request";
import { type RunDisplaySource, RunObservable } from "./run-observable";
import { newRunId, notAnInputsObject, unusableInputs } from "./run-helpers";
import { type AsToolOptions, executorTool } from "./executor-tool";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { z } from "zod";
import { renderTrace } from "../operators/render-trace";
import type { StopCondition } from "./stop-condition";
import { initialRunState } from "./run-state";
import { rememberRecordedRun } from "./conversation-memory";
import type { RestoredRun } from "../runs/restore-run-state";
import { type ResolvedOptions, callStoreOf, isLangGraphStore, normalizeStopWhen, validateCallConfig, validateOptions, withCallConcurrency } from "./validate-options";
import { CALL_CONFIG, FORK_OPTIONS, RESUME_OPTIONS, refuseNearMisses } from "./option-keys";
import { traceRun, withCallerContext } from "../telemetry/with-telemetry";
import { followUpOnThread } from "../steering/follow-up";
import { type SendMessageOptions, type SendMessageResult, type SteeringMessage, sendRunMessage } from "../steering/send-run-message";

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
 * const result = await executor.invoke({ input: "What is 2 + 3?" });
 * console.log(result.output, result.stopReason); // "The sum is 5." "finish"
 * ```
 */
export class AgentExecutor<out TStructured = unknown, out TSteps extends boolean = boolean> {
  private readonly options: ResolvedOptions;
  /** Where runs go without a store when tools need approval: this process only. */
  private inProcessStore: InProcessRunStore | undefined;

  /** @throws InvalidArgumentError naming the option when an option has a value that cannot work. */
  constructor(options: AgentExecutorOptions & { outputSchema?: z.ZodType<TStructured & Record<string, unknown>> | undefined; returnIntermediateSteps?: TSteps | undefined }) {
    this.options = validateOptions(options);
  }

  /**
   * Runs the agent and emits the result once, then completes; `await executor.invoke(inputs)` gives
   * the result (`output`, `stopReason`, `runId`, ...).
   *
   * @param inputs the agent's inputs (an object, e.g. `{ input: "..." }`)
   * @param config a `RunnableConfig` (callbacks, tags, metadata, signal, runName, configurable)
   *   plus optional per-call `stopWhen` conditions
   */
  invoke(inputs: Record<string, unknown>, config?: AgentExecutorCallConfig): RunObservable<AgentExecutorResult<TStructured, TSteps>> {
    // A traced run's span goes under the context active now, even when it is awaited elsewhere.
    config = withCallerContext(config, this.options.telemetry);
    const display = () => this.displaySource(inputs, config, "invoke");
    if (this.options.verbose || this.options.followUp !== undefined) {
      const results = this.events(inputs, config, false, "invoke").pipe(toResultOf(inputs)) as Observable<AgentExecutorResult<TStructured, TSteps>>;
      return new RunObservable<AgentExecutorResult<TStructured, TSteps>>((subscriber) => results.subscribe(subscriber), undefined, display);
    }
    // The common case: the run's events go straight to a sink that passes the output on as the
    // result (the same as `toResultOf`, without an operator's observable and subscriber per run).
    return new RunObservable<AgentExecutorResult<TStructured, TSteps>>(
      (subscriber) => this.startRun(inputs, config, false, "invoke", new ResultSink(subscriber as Subscriber<AgentExecutorResult>, inputs)),
      undefined,
      display,
    );
  }

  /**
   * Runs the agent and emits the run as events; the last event is always `output`. Awaiting it
   * resolves with the result, as for `invoke` (not the `output` event: the result has
   * `stopReason` and no `type`). Keep some event types, typed, with `ofType(...)`.
   *
   * @example
   * ```ts
   * import { AgentExecutor, ofType } from "@agentrx/executors";
   * import { RunnableLambda } from "@langchain/core/runnables";
   *
   * const agent = RunnableLambda.from(() => ({ returnValues: { output: "hi" }, log: "" }));
   * const executor = new AgentExecutor({ agent, tools: [] });
   * executor.stream({ input: "hello" }).pipe(ofType("output")).subscribe((event) => console.log(event.stopReason)); // "finish"
   * const result = await executor.stream({ input: "hello" }); // the result, as invoke gives it
   * console.log(result.output, result.stopReason); // "hi" "finish"
   * ```
   */
  stream(inputs: Record<string, unknown>, config?: AgentExecutorCallConfig): RunObservable<AgentStreamEvent, AgentExecutorResult<TStructured, TSteps>> {
    config = withCallerContext(config, this.options.telemetry);
    const events = this.events(inputs, config, true, "stream");
    return new RunObservable<AgentStreamEvent, AgentExecutorResult<TStructured, TSteps>>(
      (subscriber) => events.subscribe(subscriber),
      (run) => lastValueFrom(run.pipe(toResultOf(inputs))) as Promise<AgentExecutorResult<TStructured, TSteps>>,
      () => this.displaySource(inputs, config, "stream"),
    );
  }

  /**
   * This executor as a `@langchain/core` tool, so a supervisor agent can delegate to it (agents as
   * tools). Each call is a sub-run of the calling run: its events reach the caller's `stream()`
   * subscribers with `subRun: [name, ...]` and `subRunCallIds` (the tool calls that started it; its
   * own `output` included; the caller's `output`, without `subRun`, is still the last event),
   * callbacks see it nested under the tool call, cancelling the caller cancels it, and its usage is
   * added to the caller's. A recorded caller records its events (not its tokens) and, with
   * `recordModelCalls`, its model calls. Limits apply to each run separately; a budget given to the
   * caller sees the sub-runs' events, so it bounds the whole tree. See docs/executor-options.md.
   *
   * @param options `name` and `description` for the model; `schema` (zod) for structured input,
   *   which then becomes the sub-run's inputs (by default the tool takes `{ input: string }`)
   * @example
   * ```ts
   * import { AgentExecutor } from "@agentrx/executors";
   * import { RunnableLambda } from "@langchain/core/runnables";
   *
   * const researcher = new AgentExecutor({
   *   agent: RunnableLambda.from((input: { input: string }) => ({ returnValues: { output: `notes on ${input.input}` }, log: "" })),
   *   tools: [],
   * });
   * const research = researcher.asTool({ name: "researcher", description: "Researches a topic." });
   * console.log(await research.invoke({ input: "tides" })); // "notes on tides"
   * ```
   */
  asTool(options: AsToolOptions): StructuredToolInterface {
    return executorTool(this as unknown as AgentExecutor, options);
  }

  /**
   * This executor's tool named `name`: what a caller's resume checks an edit of a paused call of
   * this executor's run against, when that run is a `handoff`'s or `asTool`'s sub-run (see
   * docs/approval.md). @internal
   */
  toolNamed(name: string): StructuredToolInterface | undefined {
    return this.options.toolsByName.get(name);
  }

  /**
   * Sends a message to a run that is going on (steering, see docs/steering.md): it is recorded at
   * once (in the run's inbox in the store, which any process sharing the store can append to) and
   * joins the run at its next turn boundary, never in the middle of a turn's tool calls, as a
   * `message` event; the agent sees it as a new human message after the steps so far. A run that
   * is paused, cancelled, failed or queued takes it when it goes on. A run of this process that
   * records to no store gets it in memory.
   *
   * @param runId the run's id (`result.runId`, the `start` event's `runId`, or `config.runId`)
   * @param message text (sent as a `HumanMessage`) or a `HumanMessage` (it joins as the user's turn)
   * @param options the store the run records to (defaults to the executor's), and the limits on the
   * message (`maxMessageChars`, default 100,000) and on the messages waiting for the run
   * (`maxPendingMessages`, default 100)
   * @throws RunFinishedError (rejects) when the run had finished before the message was recorded
   * @throws RunNotFoundError (rejects) when the store has no such run
   * @throws InvalidArgumentError (rejects) for a blank message, one of another role than the user's,
   * or one over `maxMessageChars`
   * @throws SteeringInboxFullError (rejects) when `maxPendingMessages` messages already wait for the
   * run (send again once it has taken some)
   *
   * @example
   * ```ts
   * import { AgentExecutor, RunFinishedError } from "@agentrx/executors";
   * import { MemoryRunStore } from "@agentrx/runs";
   * import { RunnableLambda } from "@langchain/core/runnables";
   *
   * const store = new MemoryRunStore();
   * const agent = RunnableLambda.from(() => ({ returnValues: { output: "done" }, log: "" }));
   * const executor = new AgentExecutor({ agent, tools: [], store });
   * const { runId } = await executor.invoke({ input: "hi" });
   * await executor.send(runId as string, "Also check Rome.").catch((error) => console.log(RunFinishedError.isInstance(error))); // true
   * ```
   */
  send(runId: string, message: SteeringMessage, options?: SendMessageOptions): Promise<SendMessageResult> {
    if (typeof options === "object" && options !== null) {
      try {
        checkOptionKeys("AgentExecutor.send", options, ["store", "maxMessageChars", "maxPendingMessages"] satisfies (keyof SendMessageOptions)[], "options.");
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const { maxMessageChars, maxPendingMessages } = options ?? {};
    return sendRunMessage(runId, message, { store: options?.store ?? this.defaultStore(), storeTimeoutMs: this.options.storeTimeoutMs, operation: "AgentExecutor.send", maxMessageChars, maxPendingMessages });
  }

  /**
   * This executor as a `@langchain/core` `Runnable`: `invoke` returns a Promise of the result;
   * `stream` is an async iterable of {@link AgentStreamEvent}s. Use it to compose the executor in
   * LCEL chains or wherever a runnable is expected.
   */
  asRunnable(): AgentExecutorRunnable {
    return new AgentExecutorRunnable(this);
  }

  /**
   * Continues a recorded run that did not finish (its process died, it was cancelled or it failed),
   * here or in any other process, from its record: the agent is not called again for a turn whose
   * actions were recorded, only the tool calls without a recorded result run, and the limits count
   * over the whole run. The first event is `start` with `resumed: true`; only new events follow
   * (`replayRun` gives the whole history). A finished run emits its recorded `output` and runs
   * nothing. A run another process is running fails with `RunBusyError` until its lease expires.
   * A `queued` run (recorded with `createRun({ status: "queued" })`, as a worker queue does) starts
   * here: its `start` event says `resumed: false`. Awaiting it resolves with the run's result, as
   * `invoke` gives it (`const result = await executor.resume(runId, { decisions })`). A `signal`
   * that aborts while the run is being claimed gives the claim back (the run keeps its status, free
   * to resume at once) before the call rejects with `AbortError`. An option of another call
   * (`threadId`, `at`, `inputs`, `edit`) throws an `InvalidArgumentError` saying where it belongs.
   *
   * @param runId the recorded run's id
   * @param options the store (defaults to the executor's), plus a `RunnableConfig` for this segment
   */
  resume(runId: string, options?: ResumeOptions): RunObservable<AgentStreamEvent, AgentExecutorResult<TStructured, TSteps>> {
    if (options !== undefined && options !== null && (typeof options !== "object" || Array.isArray(options))) {
      throw new InvalidArgumentError({ argument: "options", value: options, message: `AgentExecutor.resume: \`options\` must be an object such as { decisions: { [interruptId]: "approve" } }, got ${JSON.stringify(options)}.` });
    }
    if (options) refuseNearMisses(options, RESUME_OPTIONS, "AgentExecutor.resume options", "options");
    const { decisions, ...rest } = options ?? {};
    return this.continueRun("resume", runId, rest, (store, owner, leaseMs, signal) =>
      openResumedRun(store, runId, owner, leaseMs, decisions, this.options.toolsByName, this.options.storeTimeoutMs, signal, this.completeEnding()),
    );
  }

  /**
   * Starts a new run from a recorded one: its record begins as a copy of the source's events up to
   * iteration `at` (by default, every complete turn), then it goes on live, here. The copied prefix
   * is not executed (no model or tool call is made for it); `inputs` replace the source's inputs and
   * `edit.observation` changes the last copied step's observation, so "what if the tool had said
   * this?" is one call. The fork's `start` event and its `listRuns` row carry `forkOf`. The source
   * run is not changed; a damaged record is refused as `resume` refuses it. A fork whose `signal`
   * aborts while it is made leaves no run behind, and rejects with `AbortError`. An option of
   * another call (`threadId`, `decisions`) throws an `InvalidArgumentError` saying where it belongs.
   *
   * @param runId the recorded run to fork
   * @param options where to cut, what to change, the store (defaults to the executor's), the new
   *   run's id (`runId`, else a fresh UUID) and a `RunnableConfig` for the new run
   *
   * @example
   * ```ts
   * import { AgentExecutor } from "@agentrx/executors";
   * import { MemoryRunStore } from "@agentrx/runs";
   * import { RunnableLambda } from "@langchain/core/runnables";
   *
   * const store = new MemoryRunStore();
   * const agent = RunnableLambda.from((input: { input: string }) => ({ returnValues: { output: `hi ${input.input}` }, log: "" }));
   * const executor = new AgentExecutor({ agent, tools: [], store });
   * const first = await executor.invoke({ input: "Ada" });
   * const fork = await executor.fork(first.runId as string, { at: 0, inputs: { input: "Grace" } });
   * console.log(fork.output); // "hi Grace"
   * ```
   */
  fork(runId: string, options?: ForkOptions): RunObservable<AgentStreamEvent, AgentExecutorResult<TStructured, TSteps>> {
    if (options !== undefined && options !== null && (typeof options !== "object" || Array.isArray(options))) {
      throw new InvalidArgumentError({ argument: "options", value: options, message: `AgentExecutor.fork: \`options\` must be an object such as { at: 1 }, got ${JSON.stringify(options)}.` });
    }
    if (options) refuseNearMisses(options, FORK_OPTIONS, "AgentExecutor.fork options", "options");
    const { at, inputs, edit, runId: forkRunId, ...rest } = options ?? {};
    if (forkRunId !== undefined && (typeof forkRunId !== "string" || forkRunId === "")) {
      throw new InvalidArgumentError({ argument: "runId", value: forkRunId, message: `AgentExecutor.fork: \`runId\` (the fork's id) must be a non-empty string, got ${JSON.stringify(forkRunId)}.` });
    }
    const notInputs = inputs === undefined ? undefined : notAnInputsObject(inputs);
    if (notInputs !== undefined) {
      throw new InvalidArgumentError({ argument: "inputs", value: inputs, message: `AgentExecutor.fork: \`inputs\` must be an object such as { input: "..." }, got ${notInputs}.` });
    }
    // Replacement inputs are a new run's: checked as invoke's are, before anything is copied.
    if (inputs !== undefined) {
      const unusable = unusableInputs(inputs, this.options.inputUnread, "AgentExecutor.fork");
      if (unusable !== undefined) throw unusable;
      this.checkRunInputs(inputs, "fork");
    }
    if (edit !== undefined && (typeof edit !== "object" || edit === null || (edit.observation !== undefined && typeof edit.observation !== "string"))) {
      throw new InvalidArgumentError({ argument: "edit", value: edit, message: "AgentExecutor.fork: `edit` must be { observation?: string }." });
    }
    const unknownEdit = edit === undefined ? undefined : Object.keys(edit).find((key) => key !== "observation");
    if (unknownEdit !== undefined) {
      throw new InvalidArgumentError({ argument: `edit.${unknownEdit}`, value: edit, message: `AgentExecutor.fork: unknown key \`${unknownEdit}\` in \`edit\`; \`edit\` is { observation?: string }.` });
    }
    if (at !== undefined && !(Number.isInteger(at) && at >= 0)) {
      throw new InvalidArgumentError({ argument: "at", value: at, message: `AgentExecutor.fork: \`at\` must be an integer >= 0 (an iteration), got ${typeof at === "number" ? String(at) : JSON.stringify(at)}.` });
    }
    const request = { ...(at === undefined ? {} : { at }), ...(inputs === undefined ? {} : { inputs }), ...(edit === undefined ? {} : { edit }) };
    const { storeTimeoutMs } = this.options;
    return this.continueRun(
      "fork",
      runId,
      rest,
      (store, owner, leaseMs, signal) => {
        const opening = openForkedRun(store, runId, forkRunId ?? newRunId(), request, owner, leaseMs, storeTimeoutMs, signal);
        return forkRunId === undefined ? opening : opening.catch((error: unknown) => refuseTakenForkId(store, forkRunId, error, storeTimeoutMs));
      },
      edit?.observation !== undefined,
    );
  }

  /**
   * Checks the inputs of every new run (`invoke`, `stream`, and what calls them) before it starts,
   * throwing when they will not do: what it throws is the run's error, with no event emitted and
   * nothing recorded (as for inputs that are not an object). The replacement `inputs` of `fork`
   * are checked too (`fork` throws, as for its other options); a resumed run, or a fork that keeps
   * its source's inputs, is not checked (its inputs were a run's). `call` is how the inputs were
   * given, for the error to say how to fix them. Checks nothing here; the executor
   * `createAgentExecutor` returns refuses inputs without the user's message.
   *
   * @internal
   */
  protected checkRunInputs(_inputs: Record<string, unknown>, _call: "invoke" | "fork"): void {}

  /**
   * What is left of the end of a resumed run whose answer is recorded but which did not end: its
   * messages for the conversation memory (see docs/memory.md); nothing without a memory.
   */
  private completeEnding(): ((restored: RestoredRun, startedAt: number, signal: AbortSignal | undefined) => Promise<void>) | undefined {
    const { memory } = this.options;
    return memory === undefined ? undefined : (restored, startedAt, signal) => rememberRecordedRun(memory, restored, startedAt, signal);
  }

  /** A recorded run (resumed, or a fork's copy) going on live here: opened by `open`, then run. */
  private continueRun(
    operation: "resume" | "fork",
    runId: string,
    options: Omit<ResumeOptions, "decisions">,
    open: (store: RunStore, owner: string, leaseMs: number, signal: AbortSignal | undefined) => Promise<OpenedRun & { forkOf?: ForkOf }>,
    forkEdited = false,
  ): RunObservable<AgentStreamEvent, AgentExecutorResult<TStructured, TSteps>> {
    const called = withCallerContext(options, this.options.telemetry) ?? options;
    const subscribe = (subscriber: Subscriber<AgentStreamEvent>): TeardownLogic => {
      const { store: given, stopWhen, ...config } = called;
      let store: RunStore;
      let conditions: readonly StopCondition[];
      try {
        if (typeof runId !== "string" || runId === "") {
          throw new InvalidArgumentError({ argument: "runId", value: runId, message: `AgentExecutor.${operation}: \`runId\` must be a non-empty string, got ${JSON.stringify(runId)}.` });
        }
        // LangGraph's store (the options are a LangGraph node's config) is not where runs are.
        const found = callStoreOf(given, "options.store") ?? this.defaultStore();
        if (found === undefined) {
          throw new InvalidArgumentError({ argument: "store", value: found, message: `AgentExecutor.${operation}: no store to ${operation} from; pass \`store\` to the executor or to ${operation}(runId, { store }).` });
        }
        store = found;
        validateCallConfig(config, `AgentExecutor.${operation}`, "options");
        conditions = [...this.options.stopWhen, ...normalizeStopWhen(stopWhen, "options.stopWhen", this.options.prices !== undefined)];
      } catch (error) {
        subscriber.error(error);
        return;
      }
      // Cancelled before it began: the run is left as it is (still paused, say), not claimed.
      if (config.signal?.aborted) {
        subscriber.error(new AbortError({ reason: config.signal.reason }));
        return;
      }
      const owner = ownerId();
      const { leaseMs } = this.options;
      let teardown: (() => void) | undefined;
      let closed = false;
      const { signal } = config;
      open(store, owner, leaseMs, signal).then(
        (restored) => {
          const recordedId = restored.state.runId;
          // Unsubscribed or aborted while the run was claimed (a fork: made): the claim is given
          // back, leaving the run as it was (a fork's new run is deleted), before the call rejects
          // (docs/runs.md). Unsubscribing is cancelling, as an abort is: nobody is left to tell.
          if (closed) {
            void restored.giveBack("the subscriber unsubscribed");
            return;
          }
          if (restored.claimed && signal?.aborted) {
            void restored.giveBack(signal.reason).then(() => subscriber.error(new AbortError({ reason: signal.reason })));
            return;
          }
          if (!restored.claimed) {
            // Finished: its output; paused: its pause, again. Nothing runs.
            if (restored.pause) subscriber.next(restored.pause.interrupt);
            const output = restored.output ?? restored.pause?.output;
            if (output) subscriber.next(output);
            subscriber.complete();
            return;
          }
          // A fork's spans carry its own run id (`runId` is its source's).
          const traced = traceRun(config, this.options.telemetry, this.options.agent, recordedId, restored.state.threadId, restored.traceparent, restored.forkOf);
          const run = new ExecutorRun(
            withCallConcurrency(this.options, config),
            {
              state: restored.state,
              config: traced.config,
              ...(traced.telemetry ? { telemetry: traced.telemetry } : {}),
              ...(traced.trace ? { trace: traced.trace } : {}),
              conditions,
              streamTokens: true,
              observeModel: true,
              watchModel: true,
              recordPrompts: this.options.recordPrompts ?? true,
              // A queued run (recorded, never started) starts here: its first segment.
              resumed: restored.lastSeq > 0,
              decisions: restored.decisions,
              ...(restored.newDecisions ? { newDecisions: restored.newDecisions } : {}),
              ...(restored.unstartedDecisions.length > 0 ? { unstartedDecisions: restored.unstartedDecisions } : {}),
              ...(restored.forkOf ? { forkOf: restored.forkOf } : {}),
              ...(forkEdited ? { forkEdited } : {}),
              record: async (run) => {
                const recorder = new RunRecorder(store, recordedId, owner, leaseMs, restored.lastSeq, run.recorderHooks(), restored.modelCalls, this.options.recordTokens === "coalesced", this.options.storeTimeoutMs, restored.claimedAt);
                recorder.epoch = restored.epoch;
                return recorder;
              },
            },
            subscriber,
          );
          teardown = run.start();
        },
        (error: unknown) => subscriber.error(error),
      );
      return () => {
        closed = true;
        teardown?.();
      };
    };
    const run: RunObservable<AgentStreamEvent, AgentExecutorResult<TStructured, TSteps>> = new RunObservable<AgentStreamEvent, AgentExecutorResult<TStructured, TSteps>>(
      subscribe,
      (events) => lastValueFrom(events.pipe(toResultOf(undefined))) as Promise<AgentExecutorResult<TStructured, TSteps>>,
      { events: () => run, store: runStoreIn(options.store) ?? this.defaultStore(), result: toResultOf(undefined) as OperatorFunction<AgentStreamEvent, AgentExecutorResult<TStructured, TSteps>> },
    );
    return run;
  }

  /** How a notebook display runs `invoke`/`stream`: with tokens, recorded into its store when the run is not recorded anyway. */
  private displaySource(inputs: Record<string, unknown>, config: AgentExecutorCallConfig | undefined, method: CallMethod): RunDisplaySource<AgentExecutorResult<TStructured, TSteps>> {
    const store = runStoreIn(config?.store) ?? this.defaultStore();
    return {
      store,
      events: (display) => this.events(inputs, store === undefined && display !== undefined ? { ...config, store: display } : config, true, method),
      result: toResultOf(inputs) as OperatorFunction<AgentStreamEvent, AgentExecutorResult<TStructured, TSteps>>,
    };
  }

  /** The executor's store; without one, when tools need approval, an in-process store of its own. */
  private defaultStore(): RunStore | undefined {
    if (this.options.store !== undefined || this.options.approval === undefined) return this.options.store;
    return (this.inProcessStore ??= new InProcessRunStore());
  }

  private events(
    inputs: Record<string, unknown>,
    config: AgentExecutorCallConfig | undefined,
    streamTokens: boolean,
    method: CallMethod,
  ): Observable<AgentStreamEvent> {
    const run = this.run(inputs, config, streamTokens, method);
    return this.options.verbose ? run.pipe(renderTrace()) : run;
  }

  private run(
    inputs: Record<string, unknown>,
    config: AgentExecutorCallConfig | undefined,
    streamTokens: boolean,
    method: CallMethod,
  ): Observable<AgentStreamEvent> {
    return new Observable<AgentStreamEvent>((subscriber) => this.startRun(inputs, config, streamTokens, method, subscriber));
  }

  /** Starts a new run for one subscription, its events going to `subscriber`; returns its teardown. */
  private startRun(
    inputs: Record<string, unknown>,
    config: AgentExecutorCallConfig | undefined,
    streamTokens: boolean,
    method: CallMethod,
    subscriber: RunSubscriber,
  ): TeardownLogic {
    const notInputs = notAnInputsObject(inputs);
    if (notInputs !== undefined) {
      subscriber.error(
        new InvalidArgumentError({
          argument: "inputs",
          value: inputs,
          message: `AgentExecutor: \`inputs\` must be an object such as { input: "..." }, got ${notInputs}.`,
        }),
      );
      return;
    }
    const unusable = unusableInputs(inputs as Record<string, unknown>, this.options.inputUnread, "AgentExecutor");
    if (unusable !== undefined) {
      subscriber.error(unusable);
      return;
    }
    try {
      this.checkRunInputs(inputs, "invoke");
    } catch (error) {
      subscriber.error(error);
      return;
    }
    const { options } = this;
    let runConfig: RunnableConfig = config ?? {};
    let conditions: readonly StopCondition[] = options.stopWhen;
    let store = this.defaultStore();
    let threadId: string | undefined;
    if (config !== undefined) {
      try {
        validateCallConfig(config, "AgentExecutor", "config");
        refuseNearMisses(config, CALL_CONFIG, `AgentExecutor.${method} config`, "config");
        const { stopWhen, store: callStore, threadId: callThread, ...rest } = config;
        runConfig = rest;
        if (stopWhen !== undefined) conditions = [...conditions, ...normalizeStopWhen(stopWhen, "config.stopWhen", options.prices !== undefined)];
        // LangGraph's store (the config of a LangGraph node) is not where runs are: it is left out.
        const runStore = callStoreOf(callStore, "config.store");
        if (runStore !== undefined) store = runStore;
        threadId = threadIdOf(callThread, rest.configurable);
      } catch (error) {
        subscriber.error(error);
        return;
      }
    }
    const memory = options.memory;
    if (memory !== undefined && threadId !== undefined && inputs[memory.inputKey] === undefined) {
      // The thread would keep the run's answer without the user's message it answers.
      const given = Object.keys(inputs).filter((key) => inputs[key] !== undefined && key !== memory.historyKey);
      subscriber.error(
        new InvalidArgumentError({
          argument: `inputs.${memory.inputKey}`,
          value: inputs,
          message: `AgentExecutor: the run is on thread "${threadId}" and its memory keeps the user's message from the input "${memory.inputKey}" (\`memory.inputKey\`), but the inputs have no "${memory.inputKey}" (they have ${given.length === 0 ? "none" : given.map((key) => `"${key}"`).join(", ")}). Pass it, or set \`memory: { inputKey }\` to the input that holds the user's message.`,
        }),
      );
      return;
    }
    const runId = runConfig.runId ?? newRunId();
    const state = initialRunState(runId, threadId, inputs);
    const recorded = store !== undefined;
    const tokens = streamTokens || options.verbose;
    // An agent that reports its model calls to an observer (every built-in one) is recorded, and
    // its calls priced and counted for stop conditions (each call's usage and model, before the
    // turn's actions), without callbacks; any other is watched through them. Tokens need them,
    // and so do recorded prompts (their tools and settings are what the callbacks are given).
    const recordPrompts = options.recordPrompts ?? streamTokens;
    const perCall = conditions.length > 0 || options.prices !== undefined;
    const observes = (perCall || (recorded && options.recordModelCalls)) && observesModelCalls(options.agent);
    const traced = traceRun(runConfig, options.telemetry, options.agent, runId, threadId);
    const request: RunRequest = {
      state,
      config: traced.config,
      conditions,
      streamTokens: tokens,
      observeModel: tokens || conditions.length > 0 || recorded,
      watchModel: tokens || (perCall && !observes) || (recorded && options.recordModelCalls && (recordPrompts || !observes)),
      // Whenever the observer is attached (priced, counted, or recorded), usage comes from it: a
      // hand-written agent that reports its calls need not also attach their usage to its output.
      observeUsage: observes,
      recordPrompts,
      resumed: false,
    };
    if (traced.telemetry) request.telemetry = traced.telemetry;
    if (traced.trace) request.trace = traced.trace;
    if (store !== undefined) request.record = (run) => openNewRun(store, state, options.leaseMs, run, options.recordTokens === "coalesced", options.storeTimeoutMs);
    const { followUp, storeTimeoutMs } = options;
    const runOptions = withCallConcurrency(options, runConfig);
    // A new input on a thread whose run is going on: queue, steer or reject (docs/steering.md).
    // (With `followUp`, `subscriber` is rxjs's: `invoke` hands its own sink only without it.)
    if (followUp !== undefined && threadId !== undefined && store !== undefined) {
      const start = () => new ExecutorRun(runOptions, request, subscriber).start();
      return followUpOnThread({ policy: followUp, store, threadId, runId, inputs, storeTimeoutMs, subscriber: subscriber as Subscriber<AgentStreamEvent>, start });
    }
    return new ExecutorRun(runOptions, request, subscriber).start();
  }
}

/** The method a new run was started by, as a refused config's message names it. */
type CallMethod = "invoke" | "stream";

/** A call's `store`, unless it is LangGraph's (see `isLangGraphStore`); not checked (the run checks it). */
function runStoreIn(store: RunStore | undefined): RunStore | undefined {
  return isLangGraphStore(store) ? undefined : store;
}

/** The run's conversation: `config.threadId`, else LangGraph's `configurable.thread_id`. */
function threadIdOf(threadId: unknown, configurable: Record<string, unknown> | undefined): string | undefined {
  const value = threadId ?? configurable?.["thread_id"];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "") {
    throw new InvalidArgumentError({ argument: "config.threadId", value, message: `AgentExecutor: \`threadId\` must be a non-empty string, got ${JSON.stringify(value)}.` });
  }
  return value;
}

/**
 * A fork given the id of a run that exists already (`options.runId`): the store refused to create
 * it (`createRun`), and nothing was copied. That is bad input, not a store failure: rethrown as an
 * `InvalidArgumentError` naming `options.runId` once the store confirms a run has the id; any
 * other error as it is.
 */
async function refuseTakenForkId(store: RunStore, forkRunId: string, error: unknown, storeTimeoutMs: number): Promise<never> {
  if (!RunStoreError.isInstance(error) || error.operation !== "createRun" || error.runId !== forkRunId) throw error;
  const existing = await withStoreTimeout(store.getRun(forkRunId), storeTimeoutMs, "getRun", forkRunId).catch(() => undefined);
  if (existing === undefined) throw error;
  throw new InvalidArgumentError({
    argument: "runId",
    value: forkRunId,
    message: `AgentExecutor.fork: \`options.runId\` "${forkRunId}" is the id of a run that exists already; a fork makes a new run: pass an id no run has, or leave \`runId\` out for a fresh one. Nothing was copied.`,
    cause: error,
  });
}
