import type { AgentStep } from "@agentrx/core";
import { AbortError, InvalidArgumentError, isMessageStep, isToolAgentAction, showValue } from "@agentrx/core";
import { formatToToolMessages } from "@agentrx/agents";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage, isBaseMessage } from "@langchain/core/messages";
import type { RestoredRun } from "../runs/restore-run-state";
import { onAbort } from "./shared-abort-listener";

/**
 * What the executor needs of a conversation memory: `ThreadMemory` from `@agentrx/runs` is one
 * (token-bounded windows over any run store); any object with these two methods works. What a
 * method gives back is checked (an `InvalidArgumentError` names the method); a method may return
 * its value itself rather than a promise of it. A call that never settles does not hang the run:
 * cancelling it (its `config.signal`, or unsubscribing) ends it, and `maxExecutionTime` ends the
 * reading of the history (see docs/memory.md).
 *
 * @example
 * ```ts
 * import type { ConversationMemory } from "@agentrx/executors";
 * import type { BaseMessage } from "@langchain/core/messages";
 *
 * // A memory without a bound, in a Map (ThreadMemory is what you want in practice).
 * const threads = new Map<string, BaseMessage[]>();
 * const memory: ConversationMemory = {
 *   getMessages: async (threadId) => threads.get(threadId) ?? [],
 *   addMessages: async (threadId, messages) => void threads.set(threadId, [...(threads.get(threadId) ?? []), ...messages]),
 * };
 * ```
 */
export interface ConversationMemory {
  /** The messages of the thread the prompt's history gets. */
  getMessages(threadId: string): Promise<BaseMessage[]>;
  /** Appends a finished run's messages to the thread. */
  addMessages(threadId: string, messages: readonly BaseMessage[], options?: { runId?: string }): Promise<void>;
  /**
   * Whether the thread holds messages appended for run `runId` (by `addMessages` with that
   * `runId`), looking no further back than messages appended at `since` (epoch ms; the run's
   * start). Optional. A run's answer is recorded before its messages are appended: a resume of a
   * run whose process stopped between the two appends them then, and asks this first so that they
   * are not appended twice (without it they are appended). See docs/memory.md.
   */
  hasRunMessages?(threadId: string, runId: string, options?: { since?: number }): Promise<boolean>;
}

/**
 * The `memory` option of the executor: runs with a `threadId` get the thread's history in the
 * prompt, and their messages are appended when they finish.
 *
 * @example
 * ```ts
 * import type { ConversationMemory, ExecutorMemoryOptions } from "@agentrx/executors";
 *
 * declare const memory: ConversationMemory; // e.g. new ThreadMemory({ store, maxTokens: 4000 }) from @agentrx/runs
 * const options: ExecutorMemoryOptions = { memory, historyKey: "chat_history" };
 * ```
 */
export interface ExecutorMemoryOptions {
  memory: ConversationMemory;
  /** The input (prompt variable) the history fills. @default "chat_history" */
  historyKey?: string | undefined;
  /** The input that holds the user's message, appended to the thread as a `HumanMessage`. @default "input" */
  inputKey?: string | undefined;
}

/** Resolved memory option. @internal */
export interface ResolvedMemory {
  memory: ConversationMemory;
  historyKey: string;
  inputKey: string;
}

/**
 * A finished run's messages for its thread: the user's input, each turn's tool calls and their
 * results (the memory decides whether it keeps those), and the final answer. Each turn's model
 * message goes in once, with only the calls that have a result: a turn cut short by a limit keeps
 * the calls that finished, and a provider refuses a thread with a call that has no result.
 *
 * @internal
 */
export function runMessages(inputs: Record<string, unknown>, inputKey: string, steps: readonly AgentStep[], output: string, answer?: readonly BaseMessage[]): BaseMessage[] {
  const messages: BaseMessage[] = [];
  const input = inputs[inputKey];
  if (input !== undefined) messages.push(...inputMessages(input));
  // Messages sent to the run (executor.send) are the user's; text agents' steps are scratchpad, not
  // conversation. Tool calls with their model message go in as the agent's scratchpad has them (a
  // turn's message once, with the answered calls); a call without one, as its result alone.
  let batch: AgentStep[] = [];
  for (const step of steps) {
    if (isMessageStep(step) || (isToolAgentAction(step.action) && Array.isArray(step.action.messageLog))) batch.push(step);
    else if (isToolAgentAction(step.action)) {
      if (batch.length > 0) messages.push(...formatToToolMessages(batch));
      batch = [];
      const { action } = step;
      messages.push(new ToolMessage({ content: step.observation as ToolMessage["content"], tool_call_id: action.toolCallId, name: action.tool }));
    }
  }
  if (batch.length > 0) messages.push(...formatToToolMessages(batch));
  messages.push(answerMessage(output, answer));
  return messages;
}

/**
 * The run's answer as the thread keeps it: the model's own message when it is the answer (one AI
 * message, no tool calls, its text the output), so what the provider sent with it (reasoning
 * content blocks, OpenRouter's `reasoning_details`, its metadata and usage) goes back with it, as
 * docs/memory.md says; else (a `returnDirect` tool's answer, a text agent's `Final Answer:`, an
 * early stop, a structured answer given through a tool call) a message of the output's text.
 */
function answerMessage(output: string, answer: readonly BaseMessage[] | undefined): BaseMessage {
  const message = answer?.length === 1 ? answer[0] : undefined;
  if (message !== undefined && AIMessage.isInstance(message) && (message.tool_calls ?? []).length === 0 && (message.invalid_tool_calls ?? []).length === 0) {
    const raw = (message.additional_kwargs as { tool_calls?: unknown[] } | undefined)?.tool_calls;
    if ((raw === undefined || raw.length === 0) && message.text === output) {
      // As a whole message (a streamed reply is a chunk), with what the provider sent with it.
      const { content, additional_kwargs, response_metadata, usage_metadata, id } = message;
      return new AIMessage({ content, additional_kwargs, response_metadata, ...(usage_metadata === undefined ? {} : { usage_metadata }), ...(id === undefined ? {} : { id }) });
    }
  }
  return new AIMessage(output);
}

/**
 * The thread's messages for a run's input: a string as a `HumanMessage`; a message (or a list of
 * messages, as a `MessagesPlaceholder` takes them) as it is; a list of content blocks (text and
 * images) as one `HumanMessage` with that content; anything else as a `HumanMessage` holding its
 * JSON text. (Also what `createAgentExecutor`'s prompt sends the model for the user's message.)
 *
 * @internal
 */
export function inputMessages(input: unknown): BaseMessage[] {
  if (typeof input === "string") return [new HumanMessage(input)];
  if (isBaseMessage(input)) return [input];
  if (Array.isArray(input) && input.length > 0) {
    if (input.every((item) => isBaseMessage(item))) return input;
    if (input.every(isContentBlock)) return [new HumanMessage({ content: input as HumanMessage["content"] })];
  }
  return [new HumanMessage(JSON.stringify(input))];
}

/**
 * The `type`s of message content blocks a provider takes from a user: LangChain's standard blocks,
 * OpenAI's and Anthropic's. A list of objects with other types (`[{ type: "bug", ... }]`) is data,
 * kept as JSON text: sent as content, a provider would refuse it, and the thread with it.
 */
const CONTENT_BLOCK_TYPES: ReadonlySet<string> = new Set(["text", "image_url", "image", "file", "audio", "video", "input_audio", "input_image", "input_file", "input_text", "document", "media"]);

/** A message content block: an object whose `type` is one of {@link CONTENT_BLOCK_TYPES}. */
function isContentBlock(value: unknown): boolean {
  const type = typeof value === "object" && value !== null ? (value as { type?: unknown }).type : undefined;
  return typeof type === "string" && CONTENT_BLOCK_TYPES.has(type);
}

/**
 * The thread's history as `getMessages` gave it (a promise of it, or the value itself), checked:
 * an array of `@langchain/core` messages, else an `InvalidArgumentError` naming the method, the
 * thread, and what it gave.
 *
 * @internal
 */
export function checkedHistory(value: unknown, threadId: string): BaseMessage[] {
  const refuse = (got: string) =>
    new InvalidArgumentError({
      argument: "memory.getMessages",
      value,
      message: `AgentExecutor: the conversation memory's getMessages(${JSON.stringify(threadId)}) must resolve with an array of @langchain/core messages (BaseMessage), got ${got}.`,
    });
  if (!Array.isArray(value)) throw refuse(showValue(value));
  for (let i = 0; i < value.length; i++) if (!isBaseMessage(value[i])) throw refuse(`${showValue(value[i])} at index ${i}`);
  return value;
}

/**
 * Appends the messages of a recorded run whose answer is in its record but whose process stopped
 * before the thread had them (see `openResumedRun`): the run's input, steps and recorded answer,
 * unless the memory says it holds them already (`hasRunMessages`, from `startedAt`, the run's
 * start; an answer other than true or false is refused with an `InvalidArgumentError` naming it).
 * Nothing for a run without a thread. When `signal` aborts, rejects at once with an `AbortError`
 * (a memory call that never settles is not waited for) and calls the memory no more.
 *
 * @internal
 */
export async function rememberRecordedRun(memory: ResolvedMemory, restored: RestoredRun, startedAt: number, signal?: AbortSignal): Promise<void> {
  const { state, output } = restored;
  const threadId = state.threadId;
  if (output === undefined || threadId === undefined) return;
  const conversation = memory.memory;
  if (typeof conversation.hasRunMessages === "function") {
    const has = await untilAborted(() => conversation.hasRunMessages?.(threadId, state.runId, { since: startedAt }), signal);
    if (typeof has !== "boolean") {
      throw new InvalidArgumentError({
        argument: "memory.hasRunMessages",
        value: has,
        message: `AgentExecutor.resume: the conversation memory's hasRunMessages(${JSON.stringify(threadId)}, ${JSON.stringify(state.runId)}) must resolve with true or false, got ${showValue(has)}; the run's messages were not appended.`,
      });
    }
    if (has) return;
  }
  await untilAborted(() => conversation.addMessages(threadId, runMessages(state.inputs, memory.inputKey, state.steps, output.output, output.messages), { runId: state.runId }), signal);
}

/**
 * What `call` returns (a promise, or a value), unless `signal` aborts first: then an `AbortError`
 * at once, without waiting for a call that ignores it (and without making it, when it had aborted).
 */
function untilAborted<T>(call: () => T | Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return Promise.resolve(call());
  if (signal.aborted) return Promise.reject(new AbortError({ reason: signal.reason }));
  const promise = Promise.resolve(call());
  return new Promise<T>((resolve, reject) => {
    const unwatch = onAbort(signal, () => reject(new AbortError({ reason: signal.reason })));
    promise.then(
      (value) => {
        unwatch();
        resolve(value);
      },
      (error: unknown) => {
        unwatch();
        reject(error);
      },
    );
  });
}
