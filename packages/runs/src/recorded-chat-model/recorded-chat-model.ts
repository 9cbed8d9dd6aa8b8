import { InvalidArgumentError, checkOptionKeys } from "@agentrx/core";
import { digestMessages, leftOutOfMessage, type RecordedModelCall, type RunStore } from "@agentrx/executors";
import type { CallbackManagerForLLMRun, Callbacks } from "@langchain/core/callbacks/manager";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BaseChatModelParams,
  type BindToolsInput,
  type LangSmithParams,
} from "@langchain/core/language_models/chat_models";
import {
  AIMessage,
  AIMessageChunk,
  type AIMessageFields,
  type BaseMessage,
  type BaseMessageLike,
  type StoredMessage,
  mapStoredMessagesToChatMessages,
} from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult, type LLMResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { checkRunReference } from "../replay/check-run-reference";
import { asTracedMessages } from "./as-traced-messages";
import { loadRecording, type Recording } from "./load-recording";
import { ReplayDivergenceError, type MessageDifference } from "./replay-divergence-error";

const OWNER = "RecordedChatModel";

/** The options {@link RecordedChatModel} takes: its own and `@langchain/core`'s chat model parameters. */
const RECORDED_CHAT_MODEL_OPTION_KEYS = [
  "store",
  "runId",
  "callbacks",
  "callbackManager",
  "tags",
  "metadata",
  "verbose",
  "cache",
  "maxConcurrency",
  "maxRetries",
  "onFailedAttempt",
  "disableStreaming",
  "outputVersion",
];

/**
 * Options of {@link RecordedChatModel}.
 *
 * @example
 * ```ts
 * import { MemoryRunStore, RecordedChatModel, type RecordedChatModelOptions } from "@agentrx/runs";
 *
 * const options: RecordedChatModelOptions = { store: new MemoryRunStore(), runId: "run-1" };
 * const model = new RecordedChatModel(options);
 * ```
 */
export interface RecordedChatModelOptions extends BaseChatModelParams {
  /** The store the run is recorded in (any `RunStore`: memory, SQLite, PostgreSQL or your own). */
  store: RunStore;
  /** The recorded run whose model calls answer this model's calls. */
  runId: string;
}

/**
 * Call options of {@link RecordedChatModel}.
 *
 * @example
 * ```ts
 * import type { RecordedChatModelCallOptions } from "@agentrx/runs";
 *
 * const options: Partial<RecordedChatModelCallOptions> = { tool_choice: "auto" };
 * ```
 */
export interface RecordedChatModelCallOptions extends BaseChatModelCallOptions {
  /** The tools bound with `bindTools` (they do not change the recorded answers). */
  tools?: BindToolsInput[];
}

/**
 * A `@langchain/core` chat model that answers from a recorded run instead of a provider: call 0
 * gets the reply the run's first model call got, call 1 the second, and so on, so a recorded run
 * can be re-run offline, deterministically, with live tools (to test a change to a tool, or to
 * reproduce a bug). It checks each call against the recording: the number of messages and their
 * digest (`digestMessages`) must be those the recorded call was sent, else the call throws a
 * {@link ReplayDivergenceError} naming it (and, when the run was recorded with `recordPrompts`, the
 * first message that differs); so does a call past the end of the recording. A refused call takes
 * no position: the next call is checked against the same recorded call.
 *
 * The recording is read on the first call (and kept). Replies come back as recorded: text, tool
 * calls, ids, metadata and `usage_metadata`; when streamed, as one chunk whose text reaches
 * `handleLLMNewToken` (the executor's `token` events). Each call reports, as its LangSmith
 * `ls_model_name` (see `getLsParams`), the model name its recorded call was priced by, so an
 * executor's `prices` price the re-run as they priced the run, a reply that names no model
 * included. A tool-calling agent places the images its tools returned as it did for the model that
 * gave each recorded reply (see `nextRecordedReply`). `bindTools` binds the tools as call options
 * and changes nothing else. A run recorded through `stream()` can be re-run through `invoke()`
 * and the other way round.
 *
 * Errors of a call: `RunNotFoundError` when the store has no such run; a `RunStoreError` naming the
 * event when the recording cannot be read (a later call reads it again); `ReplayDivergenceError`
 * (reason `"incomplete"` for a recorded reply the record holds only in part, see docs/runs.md).
 *
 * @example
 * ```ts
 * import { createToolCallingAgent } from "@agentrx/agents";
 * import { AgentExecutor } from "@agentrx/executors";
 * import { MemoryRunStore, RecordedChatModel } from "@agentrx/runs";
 * import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
 * import type { StructuredToolInterface } from "@langchain/core/tools";
 * declare const store: MemoryRunStore; // holds run "run-1"
 * declare const tools: StructuredToolInterface[];
 *
 * const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]);
 * const llm = new RecordedChatModel({ store, runId: "run-1" });
 * const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools, prompt }), tools });
 * const { output } = await executor.invoke({ input: "Weather in Paris?" });
 * ```
 */
export class RecordedChatModel extends BaseChatModel<RecordedChatModelCallOptions> {
  /** The recorded run this model answers from. */
  readonly runId: string;

  private readonly store: RunStore;
  private recording: Promise<Recording> | undefined;
  /** The recording, once read: what `getLsParams` reports from, synchronously. */
  private loaded: Recording | undefined;
  private nextCall = 0;

  static override lc_name(): string {
    return "RecordedChatModel";
  }

  /** @throws InvalidArgumentError naming `options`, `store` or `runId` when it cannot work */
  constructor(options: RecordedChatModelOptions) {
    if (options === null || typeof options !== "object") {
      throw new InvalidArgumentError({
        argument: "options",
        value: options,
        message: `RecordedChatModel: \`options\` must be an object such as { store, runId }, got ${options === null ? "null" : typeof options}.`,
      });
    }
    // A misspelt key (`runID`) would go to @langchain/core, which ignores it.
    checkOptionKeys(OWNER, options, RECORDED_CHAT_MODEL_OPTION_KEYS, "options.");
    const { store, runId, ...rest } = options;
    checkRunReference(OWNER, store, runId);
    super(rest);
    this.store = store;
    this.runId = runId;
  }

  _llmType(): string {
    return "agentrx-recorded";
  }

  /**
   * How many calls this model has answered: the 0-based index of its next call. A refused call
   * (a `ReplayDivergenceError`, a failed read of the record) takes no position.
   */
  get callCount(): number {
    return this.nextCall;
  }

  /**
   * The reply the recorded run got on the call this model's next call replays (a copy), or
   * undefined past the end of the recording; whether the next call matches it is checked when it
   * is made. Reads the recording as a call does, and rejects as a call would when it cannot
   * (`RunNotFoundError`, `RunStoreError`). A tool-calling agent with `toolImages: "auto"` reads its
   * metadata (`response_metadata.model_provider`) to place a tool's images as the recorded run
   * placed them for that model (see docs/runs.md).
   *
   * @example
   * ```ts
   * import { MemoryRunStore, RecordedChatModel } from "@agentrx/runs";
   * declare const store: MemoryRunStore; // holds run "run-1"
   *
   * const model = new RecordedChatModel({ store, runId: "run-1" });
   * const reply = await model.nextRecordedReply();
   * console.log(reply?.response_metadata["model_provider"]); // "openai", say
   * ```
   */
  async nextRecordedReply(): Promise<AIMessage | undefined> {
    const call = (await this.read()).calls[this.nextCall];
    return call === undefined ? undefined : replyOf(call, AIMessage);
  }

  /**
   * `@langchain/core`'s LangSmith parameters of a call, with `ls_model_name` the model name the
   * recorded call it replays was priced by (the `model` of its `usage` event), else (past the end
   * of the recording) the last name the recorded run priced a call by: an executor prices a reply
   * that names no model by it, as it priced the recorded call. None until the recording is read
   * (a call reads it before `@langchain/core` asks for these).
   */
  override getLsParams(options: this["ParsedCallOptions"]): LangSmithParams {
    const params = super.getLsParams(options);
    const model = this.loaded === undefined ? undefined : (this.loaded.models[this.nextCall] ?? this.loaded.lastModel);
    return model === undefined ? params : { ...params, ls_model_name: model };
  }

  /** Reads the recording first, so that `getLsParams`, which `@langchain/core` reads as the call starts, can report from it. */
  override async generate(messages: BaseMessageLike[][], options?: string[] | Partial<RecordedChatModelCallOptions>, callbacks?: Callbacks): Promise<LLMResult> {
    await this.preload();
    return super.generate(messages, options, callbacks);
  }

  /** Reads the recording first, as `generate` does. */
  override async *_streamIterator(input: BaseLanguageModelInput, options?: Partial<RecordedChatModelCallOptions>): AsyncGenerator<AIMessageChunk> {
    await this.preload();
    yield* super._streamIterator(input, options);
  }

  /** Binds tools (and call options such as `tool_choice`) to the model; the recorded answers stay the same. */
  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<RecordedChatModelCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, RecordedChatModelCallOptions> {
    return this.withConfig({ ...kwargs, tools } as Partial<RecordedChatModelCallOptions>);
  }

  override async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<ChatResult> {
    const message = replyOf(await this.answer(messages, options), AIMessage);
    return { generations: [{ text: message.text, message }] };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    // One chunk holding the whole recorded reply (text, tool calls, ids, metadata, usage): what
    // @langchain/core aggregates is then the recorded message itself.
    const message = replyOf(await this.answer(messages, options), AIMessageChunk);
    const chunk = new ChatGenerationChunk({ text: message.text, message });
    yield chunk;
    if (message.text !== "") {
      await runManager?.handleLLMNewToken(message.text, { prompt: 0, completion: 0 }, undefined, undefined, undefined, { chunk });
    }
  }

  /** The recorded call that answers this call, once the conversation is checked against it. */
  private async answer(messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<RecordedModelCall> {
    // The call takes its position once the record is read and the conversation matches: a read
    // that failed (and is retried), an aborted call or a refused one leaves it to the next call
    // (a retry of a refused call is checked against the same recorded call). From the read on,
    // nothing waits, so calls made at the same time take their positions in turn.
    const recorded = (await this.read()).calls;
    options.signal?.throwIfAborted();
    const call = this.nextCall;
    // The recording digests the messages as callbacks saw them; those as sent differ only when
    // they hold data blocks, and match too, should @langchain/core stop reformatting those.
    const traced = asTracedMessages(messages);
    const actual = { inputCount: messages.length, inputDigest: digestMessages(traced) };
    const expected = recorded[call];
    if (expected === undefined) throw new ReplayDivergenceError({ runId: this.runId, call, actual, recordedCalls: recorded.length });
    const sameContent = expected.inputDigest === actual.inputDigest || (traced !== messages && expected.inputDigest === digestMessages(messages));
    const diverged = expected.inputCount !== actual.inputCount || !sameContent;
    // A matching call whose recorded reply the record holds only in part cannot be answered either.
    const leftOut = diverged ? undefined : leftOutOfMessage(expected.message);
    if (diverged || leftOut !== undefined) {
      const sent = diverged ? recordedPromptOf(recorded, call) : undefined;
      const firstDifference = sent === undefined ? undefined : firstDifferenceOf(sent, messages, traced);
      throw new ReplayDivergenceError({
        runId: this.runId,
        call,
        iteration: expected.iteration,
        expected: { inputCount: expected.inputCount, inputDigest: expected.inputDigest },
        actual,
        recordedCalls: recorded.length,
        ...(leftOut === undefined ? {} : { leftOut }),
        ...(diverged ? { promptRecorded: expected.prompt !== undefined } : {}),
        ...(firstDifference === undefined ? {} : { firstDifference }),
      });
    }
    this.nextCall++;
    return expected;
  }

  /** The recording, read once and kept; a read that failed is forgotten, and the next one reads it again. */
  private async read(): Promise<Recording> {
    const loading = this.load();
    try {
      return await loading;
    } catch (error) {
      if (this.recording === loading) this.recording = undefined;
      throw error;
    }
  }

  /** The read of the recording, started unless it is under way or done (a failed one is kept until `read` forgets it). */
  private load(): Promise<Recording> {
    if (this.recording === undefined) {
      const loading = loadRecording(OWNER, this.store, this.runId);
      this.recording = loading;
      loading.then((recording) => {
        if (this.recording === loading) this.loaded = recording;
      }, noop);
    }
    return this.recording;
  }

  /** Reads the recording unless it is read; a failure is left to the call, whose `read` fails with it. */
  private async preload(): Promise<void> {
    if (this.loaded === undefined) await this.load().then(noop, noop);
  }
}

function noop(): void {}

/**
 * The messages recorded call `call` was sent, from the prompt it recorded with `recordPrompts`
 * (its parts are in the `blobs` of the calls that first sent them); undefined when it recorded
 * none, or a part is missing or cannot be read.
 */
function recordedPromptOf(calls: readonly RecordedModelCall[], call: number): BaseMessage[] | undefined {
  const hashes = calls[call]?.prompt?.messages;
  if (!Array.isArray(hashes)) return undefined;
  const wanted = new Set(hashes);
  const parts = new Map<string, unknown>();
  for (const earlier of calls.slice(0, call + 1)) {
    for (const [hash, value] of Object.entries(earlier.blobs ?? {})) if (wanted.has(hash)) parts.set(hash, value);
  }
  const stored = hashes.map((hash) => parts.get(hash));
  if (stored.some((part) => part === undefined)) return undefined;
  try {
    return mapStoredMessagesToChatMessages(stored as StoredMessage[]);
  } catch {
    // A part that is not a stored message: the error says only what the digests say.
    return undefined;
  }
}

/** The first message where `sent` (as `messages`, or as callbacks saw them, `traced`) and the recorded ones differ. */
function firstDifferenceOf(recorded: readonly BaseMessage[], messages: readonly BaseMessage[], traced: readonly BaseMessage[]): MessageDifference | undefined {
  const length = Math.max(recorded.length, messages.length);
  for (let index = 0; index < length; index++) {
    const was = recorded[index];
    const is = messages[index];
    if (was !== undefined && is !== undefined) {
      const digest = digestMessages([was]);
      if (digest === digestMessages([traced[index] as BaseMessage]) || digest === digestMessages([is])) continue;
    }
    return { index, actual: is === undefined ? undefined : described(is), recorded: was === undefined ? undefined : described(was) };
  }
  return undefined;
}

function described(message: BaseMessage): { role: string; text: string } {
  return { role: message.getType(), text: message.text };
}

/**
 * The recorded reply as a new `Kind`, whose stored form (`toDict()`) is the recorded one: a later
 * call's conversation includes this reply, and must digest as the recorded conversation did,
 * whether the run was recorded through `stream()` (a chunk) or `invoke()` (a message).
 */
function replyOf<T extends AIMessage | AIMessageChunk>(call: RecordedModelCall, Kind: new (fields: AIMessageFields) => T): T {
  const data = call.message.toDict().data as unknown as AIMessageFields;
  const message = new Kind(structuredClone(data));
  // The constructor adds fields of its own (a chunk's empty `tool_call_chunks`): keep the recorded ones.
  message.lc_kwargs = structuredClone(data) as unknown as typeof message.lc_kwargs;
  return message;
}
