import { collectChunks } from "../internal/collect-chunks";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BaseChatModelParams,
  type BindToolsInput,
  type LangSmithParams,
} from "@langchain/core/language_models/chat_models";
import type { BaseLanguageModelInput, StructuredOutputMethodOptions } from "@langchain/core/language_models/base";
import {
  AIMessage,
  AIMessageChunk,
  type BaseMessage,
} from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { checkOptionKeys } from "../agent/check-option-keys";
import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { BASE_CHAT_MODEL_PARAMS } from "../internal/chat-model-param-keys";
import { ScriptExhaustedError } from "./script-exhausted-error";
import {
  LATENCY_EXPECTED,
  buildMessage,
  estimateUsage,
  isLatency,
  splitText,
  toAIMessage,
  toScriptedMessage,
  scriptedResponseProblem,
  toToolCallChunks,
  toolName,
  type ScriptedCall,
  type ScriptedResponse,
} from "./scripted-response";
import { sleep } from "../internal/sleep";
import { structuredOutput, type StructuredOutputSchema } from "../internal/structured-output";

export type { ScriptedCall, ScriptedMessage, ScriptedResponse, ScriptedToolCall } from "./scripted-response";

/**
 * Options of {@link ScriptedChatModel}: its own and `@langchain/core`'s `BaseChatModelParams`
 * (`callbacks`, `tags`, `metadata`, ...; `maxRetries` and `onFailedAttempt` are accepted but
 * do nothing, as a scripted `Error` is never retried). Any other key (a misspelt `latency`) throws
 * an `InvalidArgumentError` naming it.
 */
export interface ScriptedChatModelOptions extends BaseChatModelParams {
  /**
   * The responses, played in order, one per call: one position shared by every caller, so runs
   * made at the same time on this model take them in the order their calls arrive.
   */
  responses: ScriptedResponse[];
  /**
   * Milliseconds to wait before each response, a scripted `Error` included (aborted by the call's
   * signal). Any number >= 0: a wait longer than a timer holds (2^31 - 1 ms) is waited in full, and
   * `Infinity` scripts a model that never answers: each call waits until its signal aborts (to
   * test timeouts and cancellation; without a signal it waits for ever, keeping the process alive
   * as a pending timer does). `NaN` or a negative number throws an `InvalidArgumentError`.
   * @default 0
   */
  latencyMs?: number;
  /**
   * Milliseconds to wait between streamed chunks; like `latencyMs`, any number >= 0, `Infinity`
   * (the first chunk, then nothing until the call is aborted) included.
   * @default 0
   */
  tokenDelayMs?: number;
  /**
   * How `latencyMs` and `tokenDelayMs` are timed when streaming:
   *
   * - `"per-chunk"`: each chunk waits `tokenDelayMs` after the reader took the one before it, so a
   *   reader that is late (a busy event loop) also delays every later chunk;
   * - `"fixed-rate"`: chunk `k` is due `latencyMs + k * tokenDelayMs` after the call began, as from a
   *   provider that streams at its own rate whatever the reader does: a late reader gets the chunks
   *   already due at once, and lateness does not add up over a long answer. Load tests want this
   *   one (`npm run bench -- capacity` uses it).
   *
   * @default "per-chunk"
   */
  pacing?: "per-chunk" | "fixed-rate";
  /**
   * How text is split into streamed tokens: `"word"` (a word with its trailing whitespace) or a
   * number of characters.
   * @default "word"
   */
  chunkSize?: "word" | number;
  /** Characters of tool-call argument JSON per streamed tool-call chunk. @default 8 */
  toolCallChunkSize?: number;
  /**
   * What happens when the script runs out: `"error"` throws a `ScriptExhaustedError`,
   * `"repeat-last"` plays the last response again, `"cycle"` starts over.
   * @default "error"
   */
  onExhausted?: "error" | "repeat-last" | "cycle";
  /**
   * Always stream (token chunks and `handleLLMNewToken` callbacks), even through `invoke`.
   * Without it the model streams only through `stream()` or when a callback handler asks for
   * streaming.
   * @default false
   */
  streaming?: boolean;
  /**
   * The model name it reports, as a provider's model does (LangChain's `ls_model_name`): what the
   * executor's `prices` look up, so runs of a scripted model can be priced in tests.
   * @default undefined (no name)
   */
  model?: string;
}

/** Every option of `ScriptedChatModel`, its own and `@langchain/core`'s (see docs/testing.md). */
const OPTION_KEYS = Object.keys({
  responses: true,
  latencyMs: true,
  tokenDelayMs: true,
  pacing: true,
  chunkSize: true,
  toolCallChunkSize: true,
  onExhausted: true,
  streaming: true,
  model: true,
  ...BASE_CHAT_MODEL_PARAMS,
} satisfies Record<keyof ScriptedChatModelOptions, true>);

/** Call options of {@link ScriptedChatModel}. */
export interface ScriptedChatModelCallOptions extends BaseChatModelCallOptions {
  /** The tools bound with `bindTools`. */
  tools?: BindToolsInput[];
}

interface PreparedResponse {
  message: AIMessage;
  textTokens: string[];
  latencyMs: number;
}

/**
 * A `@langchain/core` chat model that plays a script, for testing agents without a network or an
 * API key. It streams text token by token and tool calls as tool-call chunks, supports
 * `bindTools` (recording the tools and tool choice of every call), waits a given latency, fails
 * on cue, honours stop sequences and records every call in {@link ScriptedChatModel.calls}.
 *
 * The script has one position, shared by every caller: each call takes the next response,
 * whichever run makes it. Runs made at the same time on one model (`Promise.all` over
 * `executor.invoke`, a batch) take their responses in the order their calls arrive, so one run may
 * get the replies scripted for another. Script such runs with a function entry that answers from
 * the messages it is sent (with `onExhausted: "repeat-last"`, every call plays it), or give each
 * run a model of its own (see docs/testing.md#parallel-runs).
 *
 * A scripted `Error` is thrown once and never retried: `maxRetries` is accepted, as every
 * `@langchain/core` chat model parameter is, but `@langchain/core` retries only inside a
 * provider's client, which this model has not.
 *
 * @example
 * ```ts
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 *
 * const model = new ScriptedChatModel({
 *   responses: [
 *     { toolCalls: [{ name: "search", args: { query: "Paris weather" } }] },
 *     "It is sunny in Paris.",
 *   ],
 * });
 * const first = await model.invoke("What's the weather in Paris?");
 * console.log(first.tool_calls?.[0]?.name); // "search"
 * console.log(model.calls.length); // 1
 * ```
 */
export class ScriptedChatModel extends BaseChatModel<ScriptedChatModelCallOptions> {
  /**
   * Every call received, in order. A call made with an already-aborted signal is not received (it
   * throws the abort reason and plays no response); a call aborted once it has begun (during its
   * latency, mid-stream) is, and has used its response.
   */
  readonly calls: ScriptedCall[] = [];

  private readonly responses: ScriptedResponse[];
  private readonly latencyMs: number;
  private readonly tokenDelayMs: number;
  private readonly pacing: "per-chunk" | "fixed-rate";
  private readonly chunkSize: "word" | number;
  private readonly toolCallChunkSize: number;
  private readonly onExhausted: "error" | "repeat-last" | "cycle";
  private readonly streaming: boolean;
  /** The model name it reports (`ls_model_name`), if any. */
  readonly model: string | undefined;

  static override lc_name(): string {
    return "ScriptedChatModel";
  }

  constructor(options: ScriptedChatModelOptions) {
    checkOptionKeys("ScriptedChatModel", options, OPTION_KEYS);
    const {
      responses,
      latencyMs = 0,
      tokenDelayMs = 0,
      pacing = "per-chunk",
      chunkSize = "word",
      toolCallChunkSize = 8,
      onExhausted = "error",
      streaming = false,
      model,
      ...rest
    } = options;
    super(rest);
    if (model !== undefined && (typeof model !== "string" || model === "")) {
      throw new InvalidArgumentError({ argument: "model", value: model, message: `ScriptedChatModel: \`model\` must be a non-empty string, got ${String(model)}.` });
    }
    this.model = model;
    if (!Array.isArray(responses)) {
      throw new InvalidArgumentError({
        argument: "responses",
        value: responses,
        message: "ScriptedChatModel: `responses` must be an array of scripted responses.",
      });
    }
    for (const [name, value] of [
      ["latencyMs", latencyMs],
      ["tokenDelayMs", tokenDelayMs],
    ] as const) {
      if (!isLatency(value)) {
        throw new InvalidArgumentError({
          argument: name,
          value,
          message: `ScriptedChatModel: \`${name}\` ${LATENCY_EXPECTED}, got ${String(value)}.`,
        });
      }
    }
    if (pacing !== "per-chunk" && pacing !== "fixed-rate") {
      throw new InvalidArgumentError({
        argument: "pacing",
        value: pacing,
        message: `ScriptedChatModel: \`pacing\` must be "per-chunk" or "fixed-rate", got ${String(pacing)}.`,
      });
    }
    if (chunkSize !== "word" && !(Number.isInteger(chunkSize) && chunkSize > 0)) {
      throw new InvalidArgumentError({
        argument: "chunkSize",
        value: chunkSize,
        message: `ScriptedChatModel: \`chunkSize\` must be "word" or a positive integer, got ${String(chunkSize)}.`,
      });
    }
    if (!(Number.isInteger(toolCallChunkSize) && toolCallChunkSize > 0)) {
      throw new InvalidArgumentError({
        argument: "toolCallChunkSize",
        value: toolCallChunkSize,
        message: `ScriptedChatModel: \`toolCallChunkSize\` must be a positive integer, got ${String(toolCallChunkSize)}.`,
      });
    }
    if (!["error", "repeat-last", "cycle"].includes(onExhausted)) {
      throw new InvalidArgumentError({
        argument: "onExhausted",
        value: onExhausted,
        message: `ScriptedChatModel: \`onExhausted\` must be "error", "repeat-last" or "cycle", got ${String(onExhausted)}.`,
      });
    }
    for (const [position, entry] of responses.entries()) {
      if (typeof entry === "function") continue;
      const problem = scriptedResponseProblem(entry, `responses[${position}]`);
      if (problem !== undefined) throw new InvalidArgumentError({ argument: "responses", value: entry, message: `ScriptedChatModel: ${problem}` });
    }
    this.responses = [...responses];
    this.latencyMs = latencyMs;
    this.tokenDelayMs = tokenDelayMs;
    this.pacing = pacing;
    this.chunkSize = chunkSize;
    this.toolCallChunkSize = toolCallChunkSize;
    this.onExhausted = onExhausted;
    this.streaming = streaming;
  }

  _llmType(): string {
    return "scripted";
  }

  override getLsParams(options: this["ParsedCallOptions"]): LangSmithParams {
    const params = super.getLsParams(options);
    return this.model === undefined ? params : { ...params, ls_model_name: this.model };
  }

  /** How many responses of the script have not been played yet. */
  get remaining(): number {
    return Math.max(0, this.responses.length - this.calls.length);
  }

  /**
   * Binds tools (and optionally a tool choice) to the model. Each call through the returned
   * runnable records the tools and tool choice in {@link ScriptedChatModel.calls}.
   */
  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<ScriptedChatModelCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, ScriptedChatModelCallOptions> {
    return this.withConfig({ ...kwargs, tools } as Partial<ScriptedChatModelCallOptions>);
  }

  /**
   * A runnable that answers with an object of `schema` (zod or JSON Schema) by function calling:
   * the schema is bound as the only tool, with a `tool_choice` that forces it (recorded in
   * {@link ScriptedChatModel.calls}), so script a tool call of that name (`"extract"` unless
   * `name` says otherwise). A zod schema validates the arguments; a reply without the call throws
   * an `OutputParserException` (`includeRaw: true` returns `{ raw, parsed }`, `parsed: null` then).
   */
  override withStructuredOutput<RunOutput extends Record<string, any> = Record<string, any>>(
    schema: StructuredOutputSchema<RunOutput>,
    config?: StructuredOutputMethodOptions<false>,
  ): Runnable<BaseLanguageModelInput, RunOutput>;
  override withStructuredOutput<RunOutput extends Record<string, any> = Record<string, any>>(
    schema: StructuredOutputSchema<RunOutput>,
    config?: StructuredOutputMethodOptions<true>,
  ): Runnable<BaseLanguageModelInput, { raw: BaseMessage; parsed: RunOutput }>;
  override withStructuredOutput(schema: unknown, config?: StructuredOutputMethodOptions<boolean>): Runnable<BaseLanguageModelInput, any> {
    const target = {
      owner: "ScriptedChatModel",
      methods: ["functionCalling"] as const,
      bind: (kwargs: Record<string, unknown>) => this.withConfig(kwargs as Partial<ScriptedChatModelCallOptions>),
    };
    return structuredOutput(target, schema, config);
  }

  override async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    if (this.streaming) {
      const message = await collectChunks(this._streamResponseChunks(messages, options, runManager));
      return { generations: [{ text: message.text, message: toAIMessage(message) }] };
    }
    const prepared = await this.next(messages, options, false);
    await sleep(prepared.latencyMs, options.signal);
    return { generations: [{ text: prepared.message.text, message: prepared.message }] };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const began = performance.now();
    const { message, textTokens, latencyMs } = await this.next(messages, options, true);
    const delay = this.tokenDelayMs;
    // Milliseconds from `began` at which the next chunk is due (used by "fixed-rate" pacing).
    let due = latencyMs;
    const wait = (ms: number) => (this.pacing === "fixed-rate" ? sleep(began + due - performance.now(), options.signal) : sleep(ms, options.signal));
    await wait(latencyMs);
    let first = true;
    for (const token of textTokens) {
      if (!first && delay > 0) {
        due += delay;
        await wait(delay);
      }
      first = false;
      options.signal?.throwIfAborted();
      const chunk = new ChatGenerationChunk({
        text: token,
        message: new AIMessageChunk({ content: token, id: message.id }),
      });
      yield chunk;
      await runManager?.handleLLMNewToken(token, { prompt: 0, completion: 0 }, undefined, undefined, undefined, { chunk });
    }
    if (typeof message.content !== "string" && message.content.length > 0) {
      // Content blocks are streamed whole, as one chunk.
      const chunk = new ChatGenerationChunk({
        text: "",
        message: new AIMessageChunk({ content: message.content, id: message.id }),
      });
      yield chunk;
    }
    const toolChunks = toToolCallChunks(message, this.toolCallChunkSize);
    for (const toolCallChunk of toolChunks) {
      if (delay > 0) {
        due += delay;
        await wait(delay);
      }
      options.signal?.throwIfAborted();
      const chunk = new ChatGenerationChunk({
        text: "",
        message: new AIMessageChunk({ content: "", tool_call_chunks: [toolCallChunk], id: message.id }),
      });
      yield chunk;
      await runManager?.handleLLMNewToken("", { prompt: 0, completion: 0 }, undefined, undefined, undefined, { chunk });
    }
    options.signal?.throwIfAborted();
    yield new ChatGenerationChunk({
      text: "",
      message: new AIMessageChunk({
        content: "",
        id: message.id,
        // What a scripted AIMessage carried beyond its content and calls (reasoning, metadata) comes once, here.
        additional_kwargs: message.additional_kwargs,
        ...(message.usage_metadata ? { usage_metadata: message.usage_metadata } : {}),
        response_metadata: message.response_metadata,
      }),
    });
  }

  private async next(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    streamed: boolean,
  ): Promise<PreparedResponse> {
    // A call made with an aborted signal throws its reason, as LangChain's models do, and plays
    // nothing: the next call gets the response it would have (see docs/testing.md).
    options.signal?.throwIfAborted();
    const index = this.calls.length;
    const tools = options.tools ?? [];
    const call: ScriptedCall = {
      index,
      messages: [...messages],
      tools,
      toolNames: tools.map(toolName),
      toolChoice: options.tool_choice,
      stop: options.stop,
      streamed,
    };
    this.calls.push(call);
    const position = this.positionAt(index);
    let entry = this.responses[position] as ScriptedResponse;
    if (typeof entry === "function") {
      const returned: unknown = await entry(call.messages, call);
      const problem = scriptedResponseProblem(returned, "its response");
      if (problem !== undefined) {
        throw new InvalidArgumentError({ argument: "responses", value: returned, message: `ScriptedChatModel: call #${index + 1}: the function at responses[${position}] returned an invalid response: ${problem}` });
      }
      entry = returned as Exclude<ScriptedResponse, Function>;
    }
    if (entry instanceof Error) {
      // A provider's error, too, comes after the round trip.
      await sleep(this.latencyMs, options.signal);
      throw entry;
    }
    const scripted = toScriptedMessage(entry);
    // Without scripted usage, an estimate: a token per streamed chunk and per tool call.
    const message = buildMessage(scripted, index, options.stop, (text, calls) => estimateUsage(messages, splitText(text, this.chunkSize).length + calls));
    const text = typeof message.content === "string" ? message.content : "";
    const textTokens = splitText(text, this.chunkSize);
    return { message, textTokens, latencyMs: scripted.latencyMs ?? this.latencyMs };
  }

  /** The position in the script of the response to call `index`. */
  private positionAt(index: number): number {
    const count = this.responses.length;
    if (index < count) return index;
    if (count > 0 && this.onExhausted === "repeat-last") return count - 1;
    if (count > 0 && this.onExhausted === "cycle") return index % count;
    throw new ScriptExhaustedError({ callIndex: index, scriptLength: count });
  }
}
