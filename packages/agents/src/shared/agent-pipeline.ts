import { AGENT_OVERRIDES, getAgentOverrides, type AgentInput, type AgentOutput, markObservesModelCalls, takeModelCallObserver } from "@agentrx/core";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import { BaseOutputParser } from "@langchain/core/output_parsers";
import { BasePromptTemplate } from "@langchain/core/prompts";
import type { StructuredToolInterface } from "@langchain/core/tools";
import {
  ensureConfig,
  getCallbackManagerForConfig,
  patchConfig,
  Runnable,
  type RunnableConfig,
  type RunnableSequence,
} from "@langchain/core/runnables";
import type { Graph } from "@langchain/core/runnables/graph";
import { FormatScratchpadStep } from "./format-scratchpad-step";

/** The two pipelines of an agent: one for ordinary turns, one for the `forceFinalAnswer` turn. */
export interface AgentPipelineFields {
  /** The run name shown by tracers, e.g. `"ToolCallingAgent"`. */
  name: string;
  /** scratchpad → prompt → model → parser, for ordinary turns. */
  turn: RunnableSequence<AgentInput, AgentOutput>;
  /** The same pipeline with the final-answer model, for `{ forceFinalAnswer: true }`. */
  finalTurn: RunnableSequence<AgentInput, AgentOutput>;
  /** The index of the model among the pipelines' steps (rebuilt ones too). @default 2 */
  modelStep?: number;
  /**
   * Builds the pipeline for another chat model and/or other tools (a call's overrides, see
   * `getAgentOverrides`); absent when the agent cannot swap them.
   */
  rebuild?: (model: BaseChatModel | undefined, tools: readonly StructuredToolInterface[] | undefined, final: boolean) => RunnableSequence<AgentInput, AgentOutput>;
}

/**
 * An agent made of two visible pipelines (scratchpad → prompt → model → parser) that differ only in
 * their model: `finalTurn` on `{ forceFinalAnswer: true }`, `turn` otherwise. It adds no run of its
 * own: the chosen pipeline is the agent's run, named after the agent, so tracers (LangSmith) show
 * its steps directly; `getGraph()` draws the ordinary turn. It reports each model call to the
 * executor's model-call observer when one is passed (see `takeModelCallObserver` in
 * `@agentrx/core`), so recording model calls needs no callback handler.
 *
 * @internal Built by `createAgentRunnable`.
 */
export class AgentPipeline extends Runnable<AgentInput, AgentOutput> {
  lc_namespace = ["agentrx", "agents"];

  readonly turn: RunnableSequence<AgentInput, AgentOutput>;
  readonly finalTurn: RunnableSequence<AgentInput, AgentOutput>;
  readonly modelStep: number;
  /** Whether a call may swap the model and the tools (`AGENT_MODEL_KEY`, `AGENT_TOOLS_KEY` in `config.configurable`). */
  readonly [AGENT_OVERRIDES]: boolean;
  private readonly rebuild: AgentPipelineFields["rebuild"];
  /** Pipelines built for other models (same tools), by model and turn kind. */
  private readonly swapped = new WeakMap<BaseChatModel, { turn?: RunnableSequence<AgentInput, AgentOutput>; final?: RunnableSequence<AgentInput, AgentOutput> }>();

  static override lc_name(): string {
    return "AgentPipeline";
  }

  constructor({ name, turn, finalTurn, rebuild, modelStep = 2 }: AgentPipelineFields) {
    super();
    this.name = name;
    this.turn = turn;
    this.finalTurn = finalTurn;
    this.modelStep = modelStep;
    markObservesModelCalls(this);
    this.rebuild = rebuild;
    this[AGENT_OVERRIDES] = rebuild !== undefined;
  }

  /**
   * Runs the pipeline's steps as `RunnableSequence.invoke` does (one run, each step a child run
   * tagged `seq:step:N`), but races the whole turn against the signal once, as the single-lambda
   * agent did, instead of each step: a turn costs no more than it used to. Steps that use the
   * signal for nothing but that race (the scratchpad step, a prompt template, an output parser, as
   * `@langchain/core` and this package build them) are not given it; the model, and any step of
   * another kind, is.
   */
  override async invoke(input: AgentInput, options?: Partial<RunnableConfig>): Promise<AgentOutput> {
    const pipeline = this.pipelineFor(input, options);
    const taken = takeModelCallObserver(options);
    const observer = taken.observer;
    const config = ensureConfig(this.named(taken.config));
    const callbackManager = await getCallbackManagerForConfig(config);
    const runManager = await callbackManager?.handleChainStart(
      pipeline.toJSON(),
      asRecord(input, "input"),
      config.runId,
      undefined,
      undefined,
      undefined,
      config.runName,
    );
    delete config.runId;
    const steps = pipeline.steps;
    const { signal } = config;
    // Steps that would only race the signal get none: the whole turn is raced once below.
    const signalled = signal === undefined ? undefined : signalledSteps(pipeline, steps);
    const run = async (): Promise<AgentOutput> => {
      let value: unknown = input;
      for (let index = 0; index < steps.length; index++) {
        const step = steps[index] as Runnable;
        // A turn cancelled between its steps starts no more of them (the model, above all).
        if (signal?.aborted) throw signal.reason;
        const stepConfig = patchConfig(config, { callbacks: runManager?.getChild(`seq:step:${index + 1}`) });
        // A fresh object: `ensureConfig` drops a key whose value is `undefined`.
        if (signalled?.[index] === false) stepConfig.signal = undefined;
        if (observer !== undefined && index === this.modelStep) {
          const startedAt = Date.now();
          const sent = value;
          try {
            value = await step.invoke(value, stepConfig);
          } catch (error) {
            observer({ input: messagesOf(sent), error, startedAt, model: step });
            throw error;
          }
          observer({ input: messagesOf(sent), output: value as BaseMessage, startedAt, model: step });
        } else {
          value = await step.invoke(value, stepConfig);
        }
      }
      return value as AgentOutput;
    };
    let output: AgentOutput;
    try {
      output = await raceTurn(run(), signal);
    } catch (error) {
      await runManager?.handleChainError(error);
      throw error;
    }
    await runManager?.handleChainEnd(asRecord(output, "output"));
    return output;
  }

  override async *_streamIterator(input: AgentInput, options?: Partial<RunnableConfig>): AsyncGenerator<AgentOutput> {
    // Streamed turns are watched through callbacks: the observer is for `invoke` only.
    yield* this.pipelineFor(input, options)._streamIterator(input, this.named(takeModelCallObserver(options).config));
  }

  /** The graph of an ordinary turn: the scratchpad step, the prompt, the model and the parser. */
  override getGraph(config?: RunnableConfig): Graph {
    return this.turn.getGraph(config);
  }

  private pipelineFor(input: AgentInput, options: Partial<RunnableConfig> | undefined): RunnableSequence<AgentInput, AgentOutput> {
    const force = typeof input === "object" && input !== null && Boolean((input as { forceFinalAnswer?: unknown }).forceFinalAnswer);
    if (options?.configurable === undefined || this.rebuild === undefined) return force ? this.finalTurn : this.turn;
    const { model, tools } = getAgentOverrides(options);
    if (model === undefined && tools === undefined) return force ? this.finalTurn : this.turn;
    // Other tools: built for this call (the tools offered change from call to call).
    if (tools !== undefined) return this.rebuild(model, tools, force);
    let built = this.swapped.get(model as BaseChatModel);
    if (built === undefined) this.swapped.set(model as BaseChatModel, (built = {}));
    return force ? (built.final ??= this.rebuild(model, undefined, true)) : (built.turn ??= this.rebuild(model, undefined, false));
  }

  /** The caller's config, with the agent's name as the run name unless the caller set one. */
  private named(options: Partial<RunnableConfig> | undefined): Partial<RunnableConfig> {
    return options?.runName !== undefined ? options : { ...options, runName: this.name };
  }
}

/** The messages a prompt value (or a message list) stands for. */
function messagesOf(value: unknown): BaseMessage[] {
  if (Array.isArray(value)) return value as BaseMessage[];
  const prompt = value as { toChatMessages?: () => BaseMessage[] } | null;
  return typeof prompt?.toChatMessages === "function" ? prompt.toChatMessages() : [];
}

/** `value` as the record tracers expect: itself when it is a plain object, else `{ [key]: value }`. */
function asRecord(value: unknown, key: string): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { [key]: value };
}

/** `invoke` methods that use a config's signal only to race their own work against it. */
const RACE_ONLY_INVOKES = new Set<unknown>([FormatScratchpadStep.prototype.invoke, BasePromptTemplate.prototype.invoke, BaseOutputParser.prototype.invoke]);

/** Which steps of a pipeline are given the signal, by pipeline (the same steps on every turn). */
const signalledByPipeline = new WeakMap<object, readonly boolean[]>();

function signalledSteps(pipeline: object, steps: readonly Runnable[]): readonly boolean[] {
  let signalled = signalledByPipeline.get(pipeline);
  if (signalled === undefined) {
    signalled = steps.map((step) => !RACE_ONLY_INVOKES.has(step.invoke));
    signalledByPipeline.set(pipeline, signalled);
  }
  return signalled;
}

/**
 * Settles like `turn`, unless `signal` aborts first: then rejects at once with the signal's reason
 * (an `Error` as it is, a string as an `Error` of that text, else `Error("Aborted")`, as
 * `@langchain/core`'s runnables do). One listener and one promise: the turn is raced once.
 */
function raceTurn<T>(turn: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return turn;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    // A failure after the abort settles nothing more, and is not unhandled.
    turn.then(
      (value) => (signal.removeEventListener("abort", onAbort), resolve(value)),
      (error: unknown) => (signal.removeEventListener("abort", onAbort), reject(error)),
    );
  });
}

function abortReason(signal: AbortSignal): Error {
  const { reason } = signal;
  if (reason instanceof Error) return reason;
  return new Error(typeof reason === "string" ? reason : "Aborted");
}
