import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { BaseMessage, UsageMetadata } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import { replyModelName, replyUsage, wholeUsage } from "./model-params";

/**
 * The metadata key under which the run's middleware numbers each model attempt of an agent call
 * (each call of the agent its `wrapModelCall` chain makes) while a streamed run holds tokens: the
 * forwarder hands the number on with each token of the attempt's model calls.
 *
 * @internal
 */
export const MODEL_ATTEMPT_KEY = "agentrx_model_attempt";

/** Where the forwarder delivers what the agent's model reports. */
export interface TokenSink {
  /** The iteration of the agent call in progress (a model call belongs to the one it started in). */
  readonly iteration: number;
  /**
   * A non-empty text delta of the agent's model; `iteration` is the one its model call started in
   * (a call of an agent call the run halted may still stream during the "generate" call);
   * `attempt`, the model attempt its call was made for (see {@link MODEL_ATTEMPT_KEY}), when it has one.
   */
  onToken(text: string, iteration?: number, attempt?: number): void;
  /** The usage of one finished model call, the model's name when it is known, and the iteration its call started in. */
  onUsage(usage: UsageMetadata, model?: string, iteration?: number): void;
  /** Set when model calls are recorded: each finished chat-model call with what it was sent. */
  onModelCall?: (input: BaseMessage[], output: BaseMessage, startedAt: number, start: unknown) => void;
  /** Set with eager dispatch: a streamed tool call is complete (the stream moved on to the next one, or ended). */
  onToolCallComplete?: (modelRun: string, call: { id: string | undefined; name: string; args: string }) => void;
  /** Set with eager dispatch: a model call failed (its early tool calls must stop). */
  onModelError?: (modelRun: string) => void;
  /**
   * Fails the run: with what `onToolCallComplete` threw (an `eagerTools` function that threw),
   * once its model call ended and its usage and record went out. (A throw from a callback would
   * only be logged by `@langchain/core`.)
   */
  fail(error: unknown): void;
}

/** A tool call being streamed: its chunks so far. */
interface StreamingCall {
  id: string | undefined;
  name: string;
  args: string;
  done: boolean;
}

/**
 * A callback handler passed (inheritably) to the agent call only, so tool-internal models never
 * count. `lc_prefer_streaming` makes `BaseChatModel` stream through `_streamResponseChunks` even
 * under `invoke`; `awaitHandlers` runs the handler inline instead of through LangChain's
 * background queue, so a token reaches the subscriber before the model yields the next one.
 *
 * @internal
 */
export class TokenForwarder extends BaseCallbackHandler {
  name = "agentrx_token_forwarder";
  readonly lc_prefer_streaming: boolean;
  override awaitHandlers = true;
  override raiseError = false;
  override ignoreChain = true;
  override ignoreAgent = true;
  override ignoreRetriever = true;
  override ignoreCustomEvent = true;

  constructor(
    private readonly sink: TokenSink,
    streamTokens: boolean,
  ) {
    super();
    this.lc_prefer_streaming = streamTokens;
  }

  /** The tool calls of each streaming model call (eager dispatch only), by tool-call index. */
  private readonly streaming = new Map<string, StreamingCall[]>();

  /** When the latest model call's first chunk arrived (epoch ms). */
  private chunkAt: number | undefined;
  /** Model calls started and not ended yet. */
  private open = 0;
  /** Whether a model call started while another was open since the last call started alone. */
  private overlapped = false;

  /**
   * When the model call that just ended streamed its first chunk (epoch ms), for its span's time to
   * first chunk (docs/telemetry.md); undefined when it streamed none, while another call is open,
   * or when calls overlapped (a chunk could then be either call's).
   */
  get firstChunkAt(): number | undefined {
    return this.open === 0 && !this.overlapped ? this.chunkAt : undefined;
  }

  override handleLLMNewToken(token: string, _idx: unknown, runId: string, _parent?: string, _tags?: string[], fields?: { chunk?: unknown }): void {
    if (this.chunkAt === undefined) this.chunkAt = Date.now();
    // Tool-call argument deltas arrive as empty tokens: they are not text.
    if (token.length > 0 && this.lc_prefer_streaming) this.sink.onToken(token, this.iterations.get(runId), this.attempts?.get(runId));
    if (this.sink.onToolCallComplete === undefined) return;
    const chunks = (fields?.chunk as { message?: { tool_call_chunks?: { index?: number; id?: string; name?: string; args?: string }[] } } | undefined)?.message
      ?.tool_call_chunks;
    if (!chunks || chunks.length === 0) return;
    let calls = this.streaming.get(runId);
    if (calls === undefined) this.streaming.set(runId, (calls = []));
    for (const chunk of chunks) {
      const index = chunk.index ?? calls.length - 1;
      if (index < 0) continue;
      // A chunk of a later call: every call before it is complete. Indexes may be sparse (Anthropic
      // numbers a tool call by its content block, after thinking and text blocks).
      for (let i = 0; i < index && i < calls.length; i++) {
        const earlier = calls[i];
        if (earlier !== undefined) this.complete(runId, earlier);
      }
      const call = (calls[index] ??= { id: undefined, name: "", args: "", done: false });
      if (chunk.id) call.id = chunk.id;
      if (chunk.name) call.name += chunk.name;
      if (chunk.args) call.args += chunk.args;
    }
  }

  /** What `onToolCallComplete` threw, by model call (the first throw of each), until that call ends. */
  private failures: Map<string, { error: unknown }> | undefined;

  private readonly calls = new Map<string, { input: BaseMessage[]; startedAt: number; start: unknown }>();
  /** The model name LangChain's tracing metadata gives each chat-model call (`ls_model_name`). */
  private readonly models = new Map<string, string>();
  /** The iteration each chat-model call started in. */
  private readonly iterations = new Map<string, number>();
  /** The model attempt each chat-model call was made for (made when a call first has one: only under middleware). */
  private attempts: Map<string, number> | undefined;

  override handleChatModelStart(
    _llm: unknown,
    messages: BaseMessage[][],
    runId: string,
    _parent?: string,
    extra?: unknown,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ): void {
    if (this.open++ === 0) {
      this.chunkAt = undefined;
      this.overlapped = false;
    } else {
      this.overlapped = true;
    }
    this.iterations.set(runId, this.sink.iteration);
    if (this.sink.onModelCall) this.calls.set(runId, { input: messages[0] ?? [], startedAt: Date.now(), start: extra });
    const model = metadata?.["ls_model_name"];
    if (typeof model === "string" && model !== "") this.models.set(runId, model);
    const attempt = metadata?.[MODEL_ATTEMPT_KEY];
    if (typeof attempt === "number") (this.attempts ??= new Map()).set(runId, attempt);
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    this.ended();
    const streaming = this.streaming.get(runId);
    if (streaming) {
      this.streaming.delete(runId);
      for (const call of streaming) if (call !== undefined) this.complete(runId, call);
    }
    const usage = usageOf(output);
    const model = modelOf(output) ?? this.models.get(runId);
    this.models.delete(runId);
    const iteration = this.iterations.get(runId);
    this.iterations.delete(runId);
    this.attempts?.delete(runId);
    if (usage) this.sink.onUsage(usage, model, iteration);
    const call = this.calls.get(runId);
    if (call !== undefined) {
      this.calls.delete(runId);
      const message = (output.generations[0]?.[0] as { message?: BaseMessage } | undefined)?.message;
      if (message) this.sink.onModelCall?.(call.input, message, call.startedAt, call.start);
    }
    // The model call was made: its usage and record went out first, then the run fails.
    if (this.failures !== undefined) this.failIfThrew(runId);
  }

  override handleLLMError(_error: unknown, runId: string): void {
    this.ended();
    this.calls.delete(runId);
    this.models.delete(runId);
    this.iterations.delete(runId);
    this.attempts?.delete(runId);
    if (this.streaming.delete(runId)) this.sink.onModelError?.(runId);
    if (this.failures !== undefined) this.failIfThrew(runId);
  }

  /** Fails the run with what `onToolCallComplete` threw during the model call `runId`, if anything. */
  private failIfThrew(runId: string): void {
    const failure = this.failures?.get(runId);
    if (failure === undefined) return;
    this.failures?.delete(runId);
    this.sink.fail(failure.error);
  }

  /** A model call ended (answered or failed). */
  private ended(): void {
    if (this.open > 0) this.open--;
  }

  private complete(runId: string, call: StreamingCall): void {
    if (call.done || call.name === "") return;
    call.done = true;
    try {
      this.sink.onToolCallComplete?.(runId, { id: call.id, name: call.name, args: call.args });
    } catch (error) {
      // Held until the model call ends (`failIfThrew`): failing the run now would drop its usage and record.
      const failures = (this.failures ??= new Map());
      if (!failures.has(runId)) failures.set(runId, { error });
    }
  }

  /** One shared instance per run: copying would detach it from the run's sink. */
  override copy(): this {
    return this;
  }
}

function usageOf(output: LLMResult): UsageMetadata | undefined {
  const generation = output.generations[0]?.[0] as { message?: BaseMessage } | undefined;
  const usage = replyUsage(generation?.message, output.llmOutput?.["tokenUsage"]);
  return usage === undefined ? undefined : wholeUsage(usage);
}

/** The model name the provider reported in the reply (see `replyModelName`), else in the result's `llmOutput`. */
function modelOf(output: LLMResult): string | undefined {
  const generation = output.generations[0]?.[0] as { message?: BaseMessage } | undefined;
  const name = replyModelName(generation?.message) ?? output.llmOutput?.["model_name"];
  return typeof name === "string" && name !== "" ? name : undefined;
}
