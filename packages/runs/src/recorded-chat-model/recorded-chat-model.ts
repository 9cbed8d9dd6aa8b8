import { InvalidArgumentError, checkOptionKeys } from "@agentrx/core";
import { RunEventDecoder, digestMessages, leftOutOfMessage, type RecordedModelCall, type RunStore, corruptEventError as corrupt, errorMessageOf as messageOf, readRecordedEvents } from "@agentrx/executors";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BaseChatModelParams,
  type BindToolsInput,
} from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, type AIMessageFields, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { checkRunReference } from "../replay/check-run-reference";
import { asTracedMessages } from "./as-traced-messages";
import { ReplayDivergenceError } from "./replay-divergence-error";

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
 * {@link ReplayDivergenceError} naming it; so does a call past the end of the recording.
 *
 * The recording is read on the first call (and kept). Replies come back as recorded: text, tool
 * calls, ids, metadata and `usage_metadata`; when streamed, as one chunk whose text reaches
 * `handleLLMNewToken` (the executor's `token` events). `bindTools` binds the tools as call options
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
  private recording: Promise<RecordedModelCall[]> | undefined;
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

  /** How many calls this model has answered (or refused): the 0-based index of its next call. */
  get callCount(): number {
    return this.nextCall;
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
    // The call takes its position once the record is read: a read that failed (and is retried) or
    // an aborted call leaves it to the next call.
    const recorded = await this.load();
    options.signal?.throwIfAborted();
    const call = this.nextCall++;
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
      throw new ReplayDivergenceError({
        runId: this.runId,
        call,
        iteration: expected.iteration,
        expected: { inputCount: expected.inputCount, inputDigest: expected.inputDigest },
        actual,
        recordedCalls: recorded.length,
        ...(leftOut === undefined ? {} : { leftOut }),
      });
    }
    return expected;
  }

  private load(): Promise<RecordedModelCall[]> {
    if (this.recording === undefined) {
      const loading = loadModelCalls(this.store, this.runId);
      this.recording = loading;
      loading.catch(() => {
        if (this.recording === loading) this.recording = undefined; // the next call reads it again
      });
    }
    return this.recording;
  }
}

/** The run's recorded model calls, in the order they were recorded (over every segment of a resumed run). */
async function loadModelCalls(store: RunStore, runId: string): Promise<RecordedModelCall[]> {
  const decoder = new RunEventDecoder(runId);
  const calls: RecordedModelCall[] = [];
  for await (const page of readRecordedEvents(store, runId, OWNER)) {
    for (const stored of page) {
      // A sub-run's model call (an executor called as a tool) is not one of this run's calls.
      if (stored.data["type"] !== "model_call" || stored.data["subRun"] !== undefined) continue;
      let call: RecordedModelCall;
      try {
        call = decoder.decode(stored) as RecordedModelCall;
      } catch (cause) {
        throw corrupt(OWNER, runId, stored.seq, `the model call cannot be decoded (${messageOf(cause)})`, cause);
      }
      if (!Number.isInteger(call.inputCount) || call.inputCount < 0 || call.inputDigest === "") {
        throw corrupt(OWNER, runId, stored.seq, "the model call has no input count or digest");
      }
      if (call.message.getType() !== "ai") {
        throw corrupt(OWNER, runId, stored.seq, `the model call's reply is a "${call.message.getType()}" message, not an AI message`);
      }
      calls.push(call);
    }
  }
  return calls;
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
