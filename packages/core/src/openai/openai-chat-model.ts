import { collectChunks } from "../internal/collect-chunks";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { BaseLanguageModelInput, StructuredOutputMethodOptions } from "@langchain/core/language_models/base";
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BindToolsInput,
  type LangSmithParams,
} from "@langchain/core/language_models/chat_models";
import { AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { IterableReadableStream } from "@langchain/core/utils/stream";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import OpenAI from "openai";
import { fromAggregate, toAIMessage, toMessageChunk, ToolCallHeaders, toReasoningDetailsChunk, toUsageChunk } from "./from-openai-response";
import { StreamReasoning } from "./reasoning-fields";
import { bodyAsChunk } from "./body-as-chunk";
import { keepingErrorBodies } from "./error-body";
import { environment, resolveOptions, type OpenAIChatModelOptions, type ResolvedOptions } from "./openai-chat-model-options";
import { chunkProblem, completionProblem, responseError } from "./check-response";
import { OpenAIConnectionError } from "./openai-chat-model-error";
import { toOpenAIChatModelError } from "./to-openai-chat-model-error";
import { checkCallOptions, checkToolChoice, isReasoningModel, toToolChoice } from "./request-params";
import { abortErrorOf, rethrowAborts } from "./rethrow-aborts";
import { requestCompletion, requestStream, type RequestSettings } from "./send-request";
import { toOpenAIMessages } from "./to-openai-messages";
import { structuredOutput, type StructuredOutputSchema } from "../internal/structured-output";
import { withIdleTimeout } from "./with-idle-timeout";

/**
 * How long a stream may go quiet after its answer's finish_reason before it counts as ended: time
 * enough for the usage report that follows it, where the server sends one.
 */
const AFTER_FINISH_QUIET_MS = 1_000;

/** Call options of {@link OpenAIChatModel}. */
export interface OpenAIChatModelCallOptions extends BaseChatModelCallOptions {
  /** Tools for this call (set by `bindTools`). */
  tools?: BindToolsInput[];
  /** Whether the model may call several tools in one turn. @default the server's (true for OpenAI) */
  parallel_tool_calls?: boolean;
  /** `response_format`, e.g. `{ type: "json_object" }`. */
  response_format?: OpenAI.Chat.ChatCompletionCreateParams["response_format"];
  /** A seed for this call. */
  seed?: number;
  /** Send the tools with `strict: true` (or `false`): OpenAI's structured outputs for tool arguments. */
  strict?: boolean;
}

type CreateParams = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;

/**
 * A `@langchain/core` chat model on the official `openai` SDK, for OpenAI and any OpenAI-compatible
 * server (vLLM, llama.cpp, Ollama, LM Studio): tools with tool choice and parallel tool calls,
 * token streaming with tool-call argument deltas assembled into tool calls, usage (streamed too),
 * `AbortSignal`, retries with backoff that honour `Retry-After` up to `maxRetryDelayMs`, a
 * `timeout` that bounds the whole response, and errors that say what went wrong
 * (`OpenAIAuthenticationError`, `OpenAIBadRequestError`, `OpenAITimeoutError`,
 * `OpenAIResponseError`, ...).
 *
 * @example
 * ```ts
 * import { OpenAIChatModel } from "@agentrx/core/openai";
 * import { startOpenAICompatibleServer } from "@agentrx/core/testing";
 *
 * const server = await startOpenAICompatibleServer({ responses: ["Paris."] });
 * const model = new OpenAIChatModel({ model: "gpt-4o-mini", baseURL: server.baseURL, apiKey: "test", streaming: true });
 * console.log((await model.invoke("Capital of France?")).content); // "Paris."
 * await server.close();
 * ```
 */
export class OpenAIChatModel extends BaseChatModel<OpenAIChatModelCallOptions, AIMessageChunk> {
  /** The model name. */
  readonly model: string;
  /** The base URL requests go to. */
  readonly baseURL: string;
  /** Whether `invoke` streams. */
  readonly streaming: boolean;
  /** The `openai` client the model calls. */
  readonly client: OpenAI;

  private readonly options: OpenAIChatModelOptions;
  /** `modelKwargs` without `stream_options`: what every request body gets of them. */
  private readonly bodyKwargs: Record<string, unknown>;
  private readonly resolved: ResolvedOptions;
  /** Retries of a failed attempt: the model's own, or those of a client passed in. */
  private readonly retries: number;

  static override lc_name(): string {
    return "OpenAIChatModel";
  }

  override get lc_secrets(): Record<string, string> {
    return { apiKey: "OPENAI_API_KEY" };
  }

  /**
   * A model configured from the environment, or `undefined` when neither `OPENAI_API_KEY` nor
   * `OPENAI_BASE_URL` is set (so a script can fall back to a scripted model). The model name is
   * `options.model`, else `OPENAI_MODEL`, else `"gpt-4o-mini"`.
   *
   * @example
   * ```ts
   * import { OpenAIChatModel } from "@agentrx/core/openai";
   * import { ScriptedChatModel } from "@agentrx/core/testing";
   *
   * const llm = OpenAIChatModel.fromEnv() ?? new ScriptedChatModel({ responses: ["Hello!"] });
   * console.log(llm instanceof OpenAIChatModel ? "using OpenAI" : "using a scripted model");
   * ```
   */
  static fromEnv(options: Partial<OpenAIChatModelOptions> = {}): OpenAIChatModel | undefined {
    const env = environment();
    if (!env.apiKey && !env.baseURL && !options.apiKey && !options.baseURL && !options.client) return undefined;
    return new OpenAIChatModel({ ...options, model: options.model ?? env.model ?? "gpt-4o-mini" });
  }

  constructor(options: OpenAIChatModelOptions) {
    const resolved = resolveOptions(options);
    const { model: _model, apiKey: _apiKey, baseURL: _baseURL, client: _client, dangerouslyAllowBrowser: _browser, ...params } = options;
    super(params);
    this.options = options;
    // `stream_options` go with streamed requests only (see streamOptions): left out of every body once, here.
    const { stream_options: _streamOptions, ...bodyKwargs } = options.modelKwargs ?? {};
    this.bodyKwargs = bodyKwargs;
    this.resolved = resolved;
    this.model = options.model;
    this.baseURL = resolved.baseURL;
    this.streaming = options.streaming ?? false;
    this.retries = options.client ? options.client.maxRetries : resolved.maxRetries;
    this.client =
      options.client ??
      new OpenAI({
        apiKey: resolved.apiKey,
        baseURL: resolved.baseURL,
        // The model retries on its own (see withRetries): the SDK makes one attempt per call.
        maxRetries: 0,
        // Keeps the text of error bodies, so that an error quotes the server's message whatever its shape.
        fetch: keepingErrorBodies(),
        ...(resolved.timeout !== undefined ? { timeout: resolved.timeout } : {}),
        ...(options.defaultHeaders ? { defaultHeaders: options.defaultHeaders } : {}),
        ...(options.organization ? { organization: options.organization } : {}),
        ...(options.project ? { project: options.project } : {}),
        ...(options.dangerouslyAllowBrowser === true ? { dangerouslyAllowBrowser: true } : {}),
      });
  }

  _llmType(): string {
    return "openai";
  }

  /**
   * Binds tools (zod-schema or any `@langchain/core` tools, or OpenAI tool definitions) and
   * optionally `tool_choice` (`"auto"`, `"none"`, `"required"`/`"any"`, or a bound tool's name),
   * `parallel_tool_calls` and `strict`: LangChain's snake_case names. A camelCase `toolChoice` (or
   * `parallelToolCalls`, `responseFormat`), or a `tool_choice` of the wrong shape, throws an
   * `InvalidArgumentError`.
   *
   * @example
   * ```ts
   * import { OpenAIChatModel } from "@agentrx/core/openai";
   * import { tool } from "@langchain/core/tools";
   * import { z } from "zod";
   *
   * const weather = tool(async ({ city }) => `Sunny in ${city}`, {
   *   name: "weather",
   *   description: "Current weather in a city.",
   *   schema: z.object({ city: z.string() }),
   * });
   * const model = new OpenAIChatModel({ model: "gpt-4o-mini", apiKey: "sk-..." });
   * const withTools = model.bindTools([weather], { tool_choice: "weather", parallel_tool_calls: false });
   * ```
   */
  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<OpenAIChatModelCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, OpenAIChatModelCallOptions> {
    if (kwargs) checkCallOptions(kwargs);
    return this.withConfig({ ...kwargs, tools } as Partial<OpenAIChatModelCallOptions>);
  }

  /**
   * A runnable that answers with an object of `schema` (zod or JSON Schema). `method`:
   * `"functionCalling"` (the default) binds the schema as a tool and forces the model to call it;
   * `"jsonSchema"` sends it as `response_format` (OpenAI's structured outputs; `strict` applies to
   * both); `"jsonMode"` asks for any JSON object. A zod schema validates the answer; a reply that
   * does not fit throws an `OutputParserException` saying why (`includeRaw: true` returns
   * `{ raw, parsed }`, with `parsed: null` then). See docs/models.md.
   *
   * @example
   * ```ts
   * import { OpenAIChatModel } from "@agentrx/core/openai";
   * import { z } from "zod";
   *
   * const model = new OpenAIChatModel({ model: "gpt-4o-mini", apiKey: "sk-..." });
   * const extractor = model.withStructuredOutput(z.object({ city: z.string() }), { name: "city" });
   * ```
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
      owner: "OpenAIChatModel",
      methods: ["functionCalling", "jsonSchema", "jsonMode"] as const,
      bind: (kwargs: Record<string, unknown>) => this.withConfig(kwargs as Partial<OpenAIChatModelCallOptions>),
    };
    return structuredOutput(target, schema, config);
  }

  override getLsParams(options: this["ParsedCallOptions"]): LangSmithParams {
    return {
      ls_provider: "openai",
      ls_model_name: this.model,
      ls_model_type: "chat",
      ...(this.options.temperature !== undefined ? { ls_temperature: this.options.temperature } : {}),
      ...(this.options.maxTokens !== undefined ? { ls_max_tokens: this.options.maxTokens } : {}),
      ...(options.stop ? { ls_stop: options.stop } : {}),
    };
  }

  /** The request body (without `messages`, `stream` and `stream_options`) for a call with these options. */
  invocationParams(options?: this["ParsedCallOptions"]): Omit<CreateParams, "messages"> {
    const o = this.options;
    if (options) checkCallOptions(options);
    const modelKwargs = this.bodyKwargs;
    const stop = [...(o.stop ?? []), ...(options?.stop ?? [])];
    const strict = options?.strict;
    const tools = options?.tools?.map(
      (tool) => convertToOpenAITool(ownCopy(tool), strict !== undefined ? { strict } : undefined) as OpenAI.Chat.ChatCompletionTool,
    );
    if (options?.tool_choice !== undefined) checkToolChoice(options.tool_choice, tools ?? []);
    const seed = options?.seed ?? o.seed;
    const parallel = options?.parallel_tool_calls ?? o.parallelToolCalls;
    return {
      ...modelKwargs,
      model: this.model,
      ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
      ...(o.topP !== undefined ? { top_p: o.topP } : {}),
      ...(o.maxTokens !== undefined ? { [isReasoningModel(this.model) ? "max_completion_tokens" : "max_tokens"]: o.maxTokens } : {}),
      ...(o.presencePenalty !== undefined ? { presence_penalty: o.presencePenalty } : {}),
      ...(o.frequencyPenalty !== undefined ? { frequency_penalty: o.frequencyPenalty } : {}),
      ...(seed !== undefined ? { seed } : {}),
      ...(stop.length ? { stop } : {}),
      ...(tools?.length ? { tools } : {}),
      ...(tools?.length && options?.tool_choice !== undefined ? { tool_choice: toToolChoice(options.tool_choice) } : {}),
      ...(tools?.length && parallel !== undefined ? { parallel_tool_calls: parallel } : {}),
      ...(o.reasoningEffort !== undefined ? { reasoning_effort: o.reasoningEffort } : {}),
      ...(options?.response_format ? { response_format: options.response_format } : {}),
    } as Omit<CreateParams, "messages">;
  }

  override async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    if (this.streaming) {
      const message = fromAggregate(await collectChunks(this._streamResponseChunks(messages, options, runManager)));
      return { generations: [{ text: message.text, message }], llmOutput: tokenUsage(message.usage_metadata) };
    }
    const body: CreateParams = { ...this.invocationParams(options), messages: this.toMessages(messages) };
    let completion: OpenAI.Chat.ChatCompletion;
    try {
      const { data, contentType } = await requestCompletion(body, this.requestSettings(options.signal));
      const problem = completionProblem(data, contentType);
      if (problem) throw responseError(problem, this.model, this.baseURL);
      completion = data as OpenAI.Chat.ChatCompletion;
    } catch (error) {
      throw this.toError(error, options.signal, undefined);
    }
    const message = toAIMessage(completion);
    return {
      generations: [{ text: message.text, message, generationInfo: { finish_reason: completion.choices[0]?.finish_reason } }],
      llmOutput: tokenUsage(message.usage_metadata),
    };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const body: OpenAI.Chat.ChatCompletionCreateParamsStreaming = {
      ...this.invocationParams(options),
      messages: this.toMessages(messages),
      stream: true,
      ...streamOptions(this.options),
    };
    let received: number | undefined;
    let finished = false;
    let release: (() => void) | undefined;
    // The last usage report and the stream's id: OpenAI reports usage once, in a chunk of its
    // own at the end; some servers (vLLM, LiteLLM, Gemini's) report the running total on every
    // chunk, which must not be added up.
    let usage: OpenAI.CompletionUsage | undefined;
    let id: string | undefined;
    const reasoning = new StreamReasoning();
    try {
      const started = await requestStream(body, this.requestSettings(options.signal));
      received = 0;
      let chunks: AsyncIterable<OpenAI.Chat.ChatCompletionChunk> | Iterable<OpenAI.Chat.ChatCompletionChunk>;
      if (started.kind === "stream") {
        const stream = started.stream;
        release = started.release;
        // Once the answer is complete (a finish_reason came), a server that keeps the connection open
        // after it (and after `[DONE]`, which the SDK reads past) ends the stream by going quiet.
        chunks = withIdleTimeout(stream, this.timeoutMs || undefined, () => stream.controller.abort(), () => (finished ? AFTER_FINISH_QUIET_MS : undefined));
      } else {
        // Not server-sent events: a whole completion (a server that ignores `stream`) reads as one chunk.
        chunks = [bodyAsChunk(started.text, started.contentType, { model: this.model, baseURL: this.baseURL })];
      }
      const headers = new ToolCallHeaders();
      for await (const raw of chunks) {
        const problem = chunkProblem(raw, received);
        if (problem) throw responseError(problem, this.model, this.baseURL);
        received++;
        id ??= raw.id || undefined;
        if (raw.usage) usage = raw.usage;
        const message = toMessageChunk(raw, headers, reasoning);
        if (!message) continue;
        const finishReason = message.response_metadata?.finish_reason;
        if (finishReason) finished = true;
        yield* this.emit(message, finishReason, runManager);
      }
    } catch (error) {
      throw this.toError(error, options.signal, received);
    } finally {
      release?.();
    }
    // The SDK ends the stream quietly when it is aborted, or when the body ends without [DONE].
    if (options.signal?.aborted) throw this.toError(options.signal.reason, options.signal, received);
    if (!finished) {
      throw new OpenAIConnectionError({
        model: this.model,
        baseURL: this.baseURL,
        midStream: true,
        message:
          `The stream from ${this.baseURL} for model "${this.model}" ended after ${received ?? 0} chunk(s) without a ` +
          "finish_reason: the response is incomplete (the connection was closed early, or the server does not " +
          "follow the Chat Completions streaming format).",
      });
    }
    const details = reasoning.assembled();
    if (details) yield* this.emit(toReasoningDetailsChunk(id, details), undefined, runManager);
    if (usage) yield* this.emit(toUsageChunk(id, usage), undefined, runManager);
  }

  /**
   * Yields one chunk and reports it to the callbacks, as every LangChain chat model does: a text
   * delta as its token, anything else (tool-call argument deltas, the finish and usage chunks) as
   * an empty token with the chunk, so a handler can start a tool call as soon as its arguments
   * are complete.
   */
  private async *emit(message: AIMessageChunk, finishReason: unknown, runManager: CallbackManagerForLLMRun | undefined) {
    const text = typeof message.content === "string" ? message.content : "";
    const chunk = new ChatGenerationChunk({ text, message, ...(finishReason ? { generationInfo: { finish_reason: finishReason } } : {}) });
    yield chunk;
    await runManager?.handleLLMNewToken(text, { prompt: 0, completion: 0 }, undefined, undefined, undefined, { chunk });
  }

  /**
   * Streams the response, as every `@langchain/core` chat model does; aborting `options.signal`
   * rejects the stream with an `AbortError` that carries the signal's reason (as `invoke` does).
   */
  override async stream(
    input: BaseLanguageModelInput,
    options?: Partial<OpenAIChatModelCallOptions>,
  ): Promise<IterableReadableStream<AIMessageChunk>> {
    const signal = options?.signal;
    if (!signal) return super.stream(input, options);
    let source: IterableReadableStream<AIMessageChunk>;
    try {
      source = await super.stream(input, options);
    } catch (error) {
      throw signal.aborted ? abortErrorOf(signal) : error;
    }
    return IterableReadableStream.fromAsyncGenerator(rethrowAborts(source, signal));
  }

  /** The model's `timeout`, or that of a client passed in. */
  private get timeoutMs(): number | undefined {
    return this.client.timeout ?? this.resolved.timeout;
  }

  private requestSettings(signal: AbortSignal | undefined): RequestSettings {
    return { client: this.client, timeoutMs: this.timeoutMs, maxRetries: this.retries, maxRetryDelayMs: this.resolved.maxRetryDelayMs, signal };
  }

  private toMessages(messages: BaseMessage[]): OpenAI.Chat.ChatCompletionMessageParam[] {
    return toOpenAIMessages(messages, { systemAsDeveloper: isReasoningModel(this.model) });
  }

  private toError(error: unknown, signal: AbortSignal | undefined, chunksReceived: number | undefined): Error {
    return toOpenAIChatModelError(error, {
      model: this.model,
      baseURL: this.baseURL,
      // The client's own settings: the SDK's default timeout, or those of a client passed in.
      timeoutMs: this.timeoutMs,
      maxRetries: this.retries,
      signal,
      chunksReceived,
      clientPassedIn: this.options.client !== undefined,
    });
  }
}

/**
 * A copy of an OpenAI-format tool (`convertToOpenAITool` writes `strict` into its `function` in
 * place, which would change the caller's definition and every later call that binds it); any
 * other tool as it is (it is converted into a new object).
 */
function ownCopy(tool: BindToolsInput): BindToolsInput {
  const fn = (tool as { type?: unknown; function?: unknown }).function;
  if (typeof fn !== "object" || fn === null) return tool;
  return { ...(tool as object), function: { ...fn } } as BindToolsInput;
}

function tokenUsage(usage: { input_tokens: number; output_tokens: number; total_tokens: number } | undefined) {
  return usage
    ? { tokenUsage: { promptTokens: usage.input_tokens, completionTokens: usage.output_tokens, totalTokens: usage.total_tokens } }
    : {};
}

/** `stream_options` of a streamed request: those of `modelKwargs`, with `include_usage` unless `streamUsage` is false. */
function streamOptions(options: OpenAIChatModelOptions): { stream_options?: OpenAI.Chat.ChatCompletionStreamOptions } {
  const given = options.modelKwargs?.stream_options as OpenAI.Chat.ChatCompletionStreamOptions | undefined;
  if (options.streamUsage === false) return given ? { stream_options: given } : {};
  return { stream_options: { ...given, include_usage: true } };
}
