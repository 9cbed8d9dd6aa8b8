import type { AgentAction, AgentOutput, AgentStep, InDoubtPolicy } from "@agentrx/core";
import type { z } from "zod";
import type { OutputParserException } from "@langchain/core/output_parsers";
import type { Runnable, RunnableConfig } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { RunStore } from "../runs/run-store";
import type { ExecutorMemoryOptions } from "./conversation-memory";
import type { Decision, Interrupt, StopReason } from "./events";
import type { StopCondition } from "./stop-condition";
import type { TelemetryOptions } from "../telemetry/telemetry-options";
import type { PriceTable, Prices, RunUsage } from "../cost/cost";
import type { AgentMiddleware } from "../middleware/agent-middleware";
import type { FollowUp } from "../steering/follow-up";

/**
 * Options of {@link AgentExecutor}; validated once, in the constructor.
 *
 * @example
 * ```ts
 * import type { AgentExecutorOptions } from "@agentrx/executors";
 * import { RunnableLambda } from "@langchain/core/runnables";
 *
 * const options: AgentExecutorOptions = {
 *   agent: RunnableLambda.from(() => ({ returnValues: { output: "hi" }, log: "" })),
 *   tools: [],
 *   maxIterations: 5,
 *   earlyStoppingMethod: "generate",
 * };
 * ```
 */
export interface AgentExecutorOptions {
  /** A runnable that takes `{ ...inputs, steps, forceFinalAnswer? }` and returns `AgentAction | AgentAction[] | AgentFinish`. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  agent: Runnable<any, AgentOutput>;
  /** The tools the agent may call; names must be unique. */
  tools: readonly StructuredToolInterface[];
  /**
   * Agent calls allowed (an integer >= 0, or `Infinity` for no limit). One iteration is one agent
   * call plus the tools it asked for; a handled parsing error counts as one. `0` never calls the agent.
   * @default 15
   */
  maxIterations?: number | undefined;
  /**
   * Wall-clock budget of the whole run in milliseconds (a number >= 0). When it passes, the model
   * call and tools in flight are aborted through their `AbortSignal`, completed steps are kept and
   * the run ends through `earlyStoppingMethod` with `stopReason: "max_execution_time"`.
   * @default undefined (no limit)
   */
  maxExecutionTime?: number | undefined;
  /**
   * What a run cut short by a limit outputs: `"force"` returns `EARLY_STOP_OUTPUT`; `"generate"`
   * makes one more agent call with `forceFinalAnswer: true` and every step.
   * @default "force"
   */
  earlyStoppingMethod?: "force" | "generate" | undefined;
  /**
   * What to do when the agent throws an `OutputParserException`: `false` fails the run; `true`
   * sends the exception's `observation` (when `sendToLLM`) or `"Invalid or incomplete response"`
   * back to the agent; a string is sent as is; a function's return value is sent.
   * @default false
   */
  handleParsingErrors?: boolean | string | ((error: OutputParserException) => string) | undefined;
  /**
   * What to do when a tool throws: `true` makes an observation naming the tool and the error;
   * a function's return value becomes the observation; `false` fails the run and cancels the
   * other tools of the turn.
   * @default true
   */
  handleToolRuntimeErrors?: boolean | ((error: Error, action: AgentAction) => string) | undefined;
  /**
   * What the agent sees of the steps so far: a number N > 0 keeps the last N (N <= 0 keeps all),
   * a function maps all steps to the ones to show. Results, events and "generate" see every step.
   * @default -1
   */
  trimIntermediateSteps?: number | ((steps: AgentStep[]) => AgentStep[]) | undefined;
  /** Include `intermediateSteps` in the result and the `output` event. @default false */
  returnIntermediateSteps?: boolean | undefined;
  /** Tool calls of one turn that run at once (an integer >= 1). @default Infinity */
  maxConcurrency?: number | undefined;
  /**
   * Conditions that end a run gracefully (budgets). The executor pipes its own events into each;
   * the first value any of them emits stops the run through `earlyStoppingMethod` with
   * `stopReason: "budget"`. Per-call conditions (`config.stopWhen`) are added to these.
   */
  stopWhen?: StopCondition | readonly StopCondition[] | undefined;
  /**
   * Records every run in this store (`SqliteRunStore`, `PostgresRunStore`, `MemoryRunStore` from
   * `@agentrx/runs`, or your own `RunStore`), so it can be resumed with `resume` and replayed later.
   * A call's `config.store` overrides it. See docs/runs.md.
   * @default undefined (runs are not recorded)
   */
  store?: RunStore | undefined;
  /**
   * How long a recorded run's lease lasts, in milliseconds. A running process renews it while the
   * run goes on; when the process dies, `resume` may take the run over once the lease has expired.
   * @default 30000
   */
  leaseMs?: number | undefined;
  /**
   * With a `store`: how long one store call (a write, a claim, a read) may take, in milliseconds.
   * A call that takes longer fails the run with a `RunStoreError` whose `reason` is `"timeout"`,
   * and nothing more starts: a run never goes on acting while its record is stuck.
   * @default 10000
   */
  storeTimeoutMs?: number | undefined;
  /**
   * With a `store`: what `resume` does with a tool call that is *in doubt*: recorded as started,
   * with no recorded result (the process died, or the run was cancelled, while it ran). `"retry"`
   * runs it again with the same idempotency key (see `getIdempotencyKey`); `"interrupt"` pauses
   * the run so a person decides (approve a retry, reject it, or supply the result with
   * `{ type: "result", observation }`); `"fail"` fails the run. A tool's own policy
   * (`withInDoubt` in `@agentrx/tools`) wins. See docs/runs.md.
   * @default "retry"
   */
  inDoubt?: InDoubtPolicy | undefined;
  /**
   * With a `store`: also record each model call (its reply and a digest of the conversation it
   * was sent), which `RecordedChatModel` replays. Watching the model costs `@langchain/core`'s
   * callback machinery on every call of an `invoke` run (a `stream` run pays it anyway); turn it
   * off when you will not re-run recorded runs. Usage is recorded either way.
   * @default true
   */
  recordModelCalls?: boolean | undefined;
  /**
   * With a `store`: also record each model call's full request (the messages sent, the tool
   * definitions and the call's settings), so a trace can show the exact prompt (`readPrompts` in
   * `@agentrx/runs`). Content-addressed: each message and tool list is stored once per run (a
   * blob keyed by its hash in the model call that first sent it), so a turn adds only its new
   * messages. It costs the bytes of every distinct message once (see docs/runs.md for a measure).
   * Needs `recordModelCalls`.
   * @default true for `stream()`, `resume` and `fork`; false for `invoke()`
   */
  recordPrompts?: boolean | undefined;
  /**
   * With a `store`: how `token` events are recorded. `"coalesced"` keeps one event per model call
   * with its whole text (what a replay or a late reader needs); `"each"` keeps every token event.
   * @default "coalesced"
   */
  recordTokens?: "coalesced" | "each" | undefined;
  /**
   * Prices each model call: its `usage` events and the run's total usage carry `usage.cost` (US
   * dollars). `"auto"` uses the `@pydantic/genai-prices` list (an optional peer dependency,
   * imported on first use); a {@link PriceTable} gives your own prices (dollars per million
   * tokens, cached reads, cache writes, reasoning and audio tokens each at their rate; a field it
   * does not know is refused); a function decides per call (a malformed answer, or a throw, fails
   * the run). A call whose model has no price has no `cost` but `unpricedCalls: 1` (the run's
   * usage counts them), and the process is warned once per model per executor (code
   * `AGENTRX_UNPRICED_MODEL`). A built-in agent reports each model call to the executor, so
   * pricing needs no callbacks; an agent that does not report its calls is watched through
   * callbacks for them (as a `stream` run always is). See docs/cost.md.
   * @default undefined (no prices)
   */
  prices?: Prices | undefined;
  /**
   * Start each tool call as soon as the model has finished streaming it (the stream moved on to
   * the next call, or ended), instead of after the model's whole response: `true` for every tool,
   * or a function of the tool (called synchronously, it must return a boolean: one that throws or
   * returns anything else, a Promise included, fails the run with an `InvalidArgumentError` naming
   * `eagerTools`). Such a call runs under its own signal, aborted if the model call
   * fails, is retried or is cut short; its step is kept only if the agent's answer has the same
   * call. Tools that need approval never start early. Any agent whose chat model streams tool-call
   * chunks takes part (the built-in tool-calling agents do). See docs/executor-options.md.
   * @default false
   */
  eagerTools?: boolean | ((tool: StructuredToolInterface) => boolean) | undefined;
  /**
   * Which tool calls need a person's approval before they run (besides tools marked with
   * `withApproval` from `@agentrx/tools`). When the agent asks for such calls, the run runs the
   * turn's other calls, then pauses: an `interrupt` event, then the `output` event with
   * `stopReason: "interrupted"`. `resume(runId, { decisions })` continues it. See docs/approval.md.
   */
  needsApproval?: ((action: AgentAction) => boolean | Promise<boolean>) | undefined;
  /**
   * Observations longer than this many characters are truncated, with a note the model can read
   * ("[Observation truncated: the tool returned N characters; ...]"); the step's `metadata` keeps
   * the original length as `observationLength`. `Infinity` keeps everything. A `returnDirect`
   * tool's observation is the run's answer and is kept whole.
   * @default 100000 (about 25,000 tokens)
   */
  maxObservationLength?: number | undefined;
  /**
   * The output of a run cut short with `earlyStoppingMethod: "force"` (and the fallback of
   * `"generate"`): a sentence, or a function of the stop reason and, for a budget, what it emitted,
   * called synchronously (one that returns a Promise or nothing fails the run with an
   * `InvalidArgumentError` naming `earlyStopOutput`; another value that is not a string is written as JSON).
   * @default LangChain's "Agent stopped due to iteration limit or time limit." for the limits;
   * for a budget, which one was spent ("Agent stopped because its tool-call budget was spent (4 used of 3).")
   */
  earlyStopOutput?: string | ((reason: StopReason, stoppedBy: unknown) => string) | undefined;
  /**
   * Print every run's trace to the terminal (what `printTrace` prints), for `invoke` and `stream`
   * alike: the option LangChain users copy from the classic executor.
   * @default false
   */
  verbose?: boolean | undefined;
  /**
   * Conversation memory for runs with a `threadId` (`config.threadId`): before the run, the
   * thread's history fills the input `historyKey` (`chat_history`, a prompt's messages
   * placeholder); when the run finishes, its messages (the input, tool calls and results as the
   * memory keeps them, the answer) are appended. Give it a `ThreadMemory` from `@agentrx/runs`.
   * See docs/memory.md.
   */
  memory?: ExecutorMemoryOptions | undefined;
  /**
   * A zod schema the final answer must fit: `invoke`'s result and the `output` event then carry the
   * parsed value as `structuredOutput`, next to the text (typed from the schema on the result; the
   * event's is `unknown`, as a stream also carries sub-runs' `output` events). A tool-calling
   * agent answers through `finalAnswerTool(schema)` (bind it with the agent's tools); a text agent
   * answers with JSON (a fenced block is fine). An answer that does not fit goes back to the model as
   * an observation naming the problem while iterations are left; then the run fails with an
   * `OutputValidationError`. Asynchronous refinements and transforms are checked with zod's
   * `safeParseAsync`. See docs/structured-output.md.
   */
  outputSchema?: z.ZodType<Record<string, unknown>> | undefined;
  /**
   * OpenTelemetry spans for every run (`invoke_agent`), model call (`chat {model}`) and tool call
   * (`execute_tool {name}`), with the GenAI semantic conventions' `gen_ai.*` attributes; sub-runs
   * (`asTool`) nest under the tool call that ran them. Needs `@opentelemetry/api` (an optional peer
   * dependency, loaded only with this option). Inputs and outputs are recorded only with
   * `recordInputs` / `recordOutputs`. See docs/telemetry.md.
   * @default undefined (no spans)
   */
  telemetry?: TelemetryOptions | undefined;
  /**
   * Middleware of the loop: `prepareStep` changes the next agent call (inputs, steps, model, tools),
   * `wrapModelCall` / `wrapToolCall` wrap each call, `afterTurn` sees each turn's end. The first is
   * the outermost. Built-ins: `compactSteps`, `detectRepeatedCalls`, `modelFallback`, `guardrail`.
   * Without middleware the loop runs no middleware code. See docs/middleware.md.
   * @default undefined (none)
   */
  middleware?: readonly AgentMiddleware[] | undefined;
  /**
   * What a new input on a thread (`config.threadId`) does while a run of that thread is still going
   * on (found in the `store`): `"queue"` waits for it to end, then runs; `"interrupt"` sends the
   * input to the running run as a message (`send`) and follows that run to its answer; `"reject"`
   * fails with `ThreadBusyError`. Needs a `store`. See docs/steering.md.
   * @default undefined (runs of one thread do not look for each other)
   */
  followUp?: FollowUp | undefined;
}

/**
 * `@langchain/core`'s `RunnableConfig` settings (`signal`, `tags`, `callbacks`, ...), each of which
 * may also be given as `undefined`, which the executor reads as not given: a project compiled with
 * `exactOptionalPropertyTypes` can pass `{ signal: req.signal }` where `req.signal` may be missing.
 */
type RunnableConfigInput<Config> = { [Key in keyof Config]?: Config[Key] | undefined };

/**
 * The config of one `invoke`/`stream` call: a `RunnableConfig` plus per-call stop conditions.
 * A key that is a near miss of one of its settings (`stopwhen`, `threadID`) fails the call with an
 * `InvalidArgumentError` ("did you mean `stopWhen`?"); other keys are passed on, as LangChain's are.
 *
 * @example
 * ```ts
 * import type { AgentExecutorCallConfig } from "@agentrx/executors";
 *
 * const controller = new AbortController();
 * const config: AgentExecutorCallConfig = { signal: controller.signal, tags: ["support"], runName: "support-bot" };
 * ```
 */
export interface AgentExecutorCallConfig extends RunnableConfigInput<RunnableConfig> {
  /** Stop conditions for this call only, in addition to the executor's own `stopWhen`. */
  stopWhen?: StopCondition | readonly StopCondition[] | undefined;
  /** The conversation this run belongs to (also read from `configurable.thread_id`). */
  threadId?: string | undefined;
  /** Records this run in this store (overrides the executor's `store`). */
  store?: RunStore | undefined;
  /**
   * How many of a turn's tool calls run at once in this run: the lower of this and the executor's
   * `maxConcurrency` holds (it is passed on to the agent and the tools too, as LangChain's is).
   * The same in `resume`'s and `fork`'s options.
   */
  maxConcurrency?: number | undefined;
}

/**
 * Options of `executor.resume(runId, options)`.
 *
 * @example
 * ```ts
 * import type { ResumeOptions } from "@agentrx/executors";
 *
 * const options: ResumeOptions = { tags: ["resumed"] };
 * ```
 */
export interface ResumeOptions extends RunnableConfigInput<Omit<RunnableConfig, "runId">> {
  /** Decisions on a paused run's interrupts, by interrupt id (only some of them pauses again for the rest). */
  decisions?: Record<string, Decision> | undefined;
  /** The store the run is recorded in (defaults to the executor's `store`). */
  store?: RunStore | undefined;
  /** Stop conditions for the resumed segment (budgets count from the resume on). */
  stopWhen?: StopCondition | readonly StopCondition[] | undefined;
}

/**
 * Options of `AgentExecutor.fork`: where to cut the source run, what to change, and the new run's
 * id, store and config.
 *
 * @example
 * ```ts
 * import type { ForkOptions } from "@agentrx/executors";
 *
 * const options: ForkOptions = { at: 1, edit: { observation: "rain, 12°C" } };
 * ```
 */
export interface ForkOptions extends RunnableConfigInput<Omit<RunnableConfig, "runId">> {
  /** The copied prefix holds the source's iterations `0 .. at - 1` (complete turns). @default every complete turn */
  at?: number | undefined;
  /** Inputs for the fork, merged over the source's. */
  inputs?: Record<string, unknown> | undefined;
  /** `observation` replaces the last copied step's observation. */
  edit?: { observation?: string | undefined } | undefined;
  /** The new run's id. @default a fresh UUID */
  runId?: string | undefined;
  /** The store the source is recorded in, and the fork is recorded to (defaults to the executor's `store`). */
  store?: RunStore | undefined;
  /** Stop conditions for the fork's live part. */
  stopWhen?: StopCondition | readonly StopCondition[] | undefined;
}

/**
 * What `invoke` emits (and what awaiting `invoke`, `stream` or `resume` resolves with): the inputs,
 * the finish's return values, the output, why the run ended, and, with `returnIntermediateSteps`,
 * every step. It is not an event: it has no `type` (an input named `type` is not echoed), so code
 * written for the `output` event (`done.type === "output"`) does not compile against it.
 *
 * With `returnIntermediateSteps: true` given as a literal to the executor, `TSteps` is `true` and
 * `intermediateSteps` is typed as present.
 *
 * @example
 * ```ts
 * import type { AgentExecutorResult } from "@agentrx/executors";
 *
 * const result: AgentExecutorResult = { input: "2 + 2?", output: "4", runId: "run-1", stopReason: "finish", intermediateSteps: [] };
 * const withSteps: AgentExecutorResult<unknown, true> = { ...result, intermediateSteps: [] };
 * console.log(withSteps.intermediateSteps.length); // 0
 * ```
 */
export type AgentExecutorResult<TStructured = unknown, TSteps extends boolean = false> = [TSteps] extends [true]
  ? AgentExecutorResultFields<TStructured> & { intermediateSteps: AgentStep[] }
  : AgentExecutorResultFields<TStructured>;

/** The fields of {@link AgentExecutorResult}. */
type AgentExecutorResultFields<TStructured> = Record<string, unknown> & {
  /**
   * Never set: a result is not an event (an input named `type` is not echoed). It is typed so that
   * code written for the `output` event (`done.type === "output"`) does not compile against a
   * result; read `stopReason` instead.
   */
  type?: "result";
  /**
   * With `outputSchema`: the final answer, parsed and validated (typed from the schema). Absent when
   * the run did not finish with an answer of its own (a limit with "force", a pause).
   */
  structuredOutput?: TStructured;
  /** The final answer, always a string. */
  output: string;
  /** The run's id (`config.runId`, else a fresh UUID). */
  runId: string;
  /** Why the run ended (`"finish"`, `"max_iterations"`, `"interrupted"`, ...), as on the `output` event. */
  stopReason: StopReason;
  /** The run's total usage, summed over its model calls; absent when no model reported usage. */
  usage?: RunUsage;
  /** Why a stop condition or a middleware stopped the run (the output event's `stoppedBy`), when one did. */
  stoppedBy?: unknown;
  /** When the run paused for approval (`output` is then ""): the tool calls waiting for decisions. */
  interrupts?: Interrupt[];
  /**
   * With `earlyStoppingMethod: "generate"`: why the final-answer call failed, when it did (the
   * output then says so), as on the `output` event.
   */
  generateError?: string;
  /** Every step of the run; present only with `returnIntermediateSteps`. */
  intermediateSteps?: AgentStep[];
};

// The option names of each call, one list per type, checked against it by the compiler: an option
// added to a type without its name here (or a name here that is not an option) does not compile.
// The calls refuse a key that is a near miss of one of these (`stopwhen`), see option-keys.ts.

/** The keys of a `@langchain/core` `RunnableConfig`. @internal */
export const RUNNABLE_CONFIG_KEYS = {
  callbacks: true,
  configurable: true,
  maxConcurrency: true,
  metadata: true,
  recursionLimit: true,
  runId: true,
  runName: true,
  signal: true,
  tags: true,
  timeout: true,
} as const satisfies Record<keyof RunnableConfig, true>;

/** The options of `new AgentExecutor(options)`. @internal */
export const AGENT_EXECUTOR_OPTION_KEYS = {
  agent: true,
  tools: true,
  maxIterations: true,
  maxExecutionTime: true,
  earlyStoppingMethod: true,
  handleParsingErrors: true,
  handleToolRuntimeErrors: true,
  trimIntermediateSteps: true,
  returnIntermediateSteps: true,
  maxConcurrency: true,
  stopWhen: true,
  store: true,
  leaseMs: true,
  storeTimeoutMs: true,
  inDoubt: true,
  recordModelCalls: true,
  recordTokens: true,
  recordPrompts: true,
  prices: true,
  eagerTools: true,
  needsApproval: true,
  maxObservationLength: true,
  earlyStopOutput: true,
  verbose: true,
  memory: true,
  outputSchema: true,
  telemetry: true,
  middleware: true,
  followUp: true,
} as const satisfies Record<keyof AgentExecutorOptions, true>;

/** The keys of `AgentExecutorCallConfig` besides `RunnableConfig`'s (`invoke`/`stream`'s config). @internal */
export const CALL_CONFIG_KEYS = {
  stopWhen: true,
  threadId: true,
  store: true,
} as const satisfies Record<Exclude<keyof AgentExecutorCallConfig, keyof RunnableConfig>, true>;

/** The keys of `ResumeOptions` besides `RunnableConfig`'s. @internal */
export const RESUME_OPTION_KEYS = {
  decisions: true,
  store: true,
  stopWhen: true,
} as const satisfies Record<Exclude<keyof ResumeOptions, keyof RunnableConfig>, true>;

/** The keys of `ForkOptions` besides `RunnableConfig`'s (its `runId` is one: the fork's id). @internal */
export const FORK_OPTION_KEYS = {
  at: true,
  inputs: true,
  edit: true,
  store: true,
  stopWhen: true,
} as const satisfies Record<Exclude<keyof ForkOptions, keyof RunnableConfig>, true>;
