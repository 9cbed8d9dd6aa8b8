import { isMessageStep, withoutUnansweredOutput, type AgentStep } from "@agentrx/core";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage, type MessageContentComplex } from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import { observationText } from "../shared/observation-text";

/**
 * Formats the steps of a tool-calling agent as chat messages for its `agent_scratchpad`: each
 * model message that asked for tools (an action's `messageLog`) once, followed by one
 * `ToolMessage` per tool call with its observation, in the order of the actions. A step whose
 * action is not a tool call (a handled parsing error, or a text action) becomes an `AIMessage`
 * with its log followed by a `HumanMessage` with its observation, so the model sees the fix. A
 * message sent to the run between turns (`executor.send`, see `messageStep`) is a `HumanMessage`.
 *
 * Each `ToolMessage` carries the tool's name both as `name` and in `additional_kwargs.name`, as
 * LangChain's formatters do (some providers read it there).
 *
 * Several actions of one turn share one `AIMessage` in their `messageLog`; it is emitted once.
 * When some of its tool calls have no step (trimmed away by `trimIntermediateSteps`), the message
 * is sent with only the answered calls, since providers reject a tool call without its result.
 *
 * @example
 * ```ts
 * import { formatToToolMessages } from "@agentrx/agents";
 * import { AIMessage } from "@langchain/core/messages";
 *
 * const message = new AIMessage({
 *   content: "",
 *   tool_calls: [{ id: "call_1", name: "search", args: { query: "Paris" } }],
 * });
 * const messages = formatToToolMessages([
 *   {
 *     action: { tool: "search", toolInput: { query: "Paris" }, log: "", toolCallId: "call_1", messageLog: [message] },
 *     observation: "Sunny",
 *   },
 * ]);
 * console.log(messages.map((m) => m.getType())); // ["ai", "tool"]
 * ```
 */
export function formatToToolMessages(steps: readonly AgentStep[]): BaseMessage[] {
  const answered = new Set<string>();
  for (const { action } of steps) {
    const toolCallId = (action as { toolCallId?: unknown }).toolCallId;
    if (typeof toolCallId === "string") answered.add(toolCallId);
  }
  const messages: BaseMessage[] = [];
  // The model messages of the turn being written: a turn's steps are consecutive and share them.
  // The same message may come back as another object (a run restored from its record) and without
  // an id (a model called without callbacks): its id and its tool calls' ids name it (a server may
  // give every message the same id, so the id alone does not). Only the current
  // turn is compared, and a call id seen again starts a new turn, so two turns whose messages have
  // the same ids (a scripted model restarted in another process, a model that reuses ids) both
  // keep their message.
  let turn = new Set<BaseMessage>();
  let turnIds = new Set<string>();
  let turnCalls = new Set<string>();
  const inTurn = (message: BaseMessage, id: string | undefined) => turn.has(message) || (id !== undefined && turnIds.has(id));
  const newTurn = () => {
    turn = new Set();
    turnIds = new Set();
    turnCalls = new Set();
  };
  for (const step of steps) {
    const { action, observation } = step;
    if (isMessageStep(step)) {
      // A message sent to the run (executor.send): the model sees it as the user's.
      messages.push(new HumanMessage({ content: observation as HumanMessage["content"] }));
      newTurn();
      continue;
    }
    const { messageLog, toolCallId } = action as { messageLog?: unknown; toolCallId?: unknown };
    if (Array.isArray(messageLog) && typeof toolCallId === "string") {
      const log = messageLog as BaseMessage[];
      const keys = log.map(messageKey);
      if (turnCalls.has(toolCallId) || !log.some((message, index) => inTurn(message, keys[index]))) newTurn();
      turnCalls.add(toolCallId);
      log.forEach((message, index) => {
        const id = keys[index];
        if (inTurn(message, id)) return;
        turn.add(message);
        if (id !== undefined) turnIds.add(id);
        messages.push(onlyAnsweredCalls(message, answered));
      });
      // Content with images (a chart, a screenshot) goes to the provider as content blocks.
      messages.push(toolResultMessage(toolCallId, calledName(log, toolCallId) ?? action.tool, Array.isArray(observation) ? observation : observationText(observation)));
    } else {
      messages.push(new AIMessage(action.log));
      messages.push(new HumanMessage(observationText(observation)));
      newTurn();
    }
  }
  return messages;
}

/**
 * The name of the tool the model called under `toolCallId` in its message log: the step's own
 * `action.tool` may be another (`_Exception`, a call the executor answered with a problem, such as
 * a final answer that did not fit), and a provider that matches results by name (Gemini's
 * `functionResponse`) must see the name the model used.
 */
function calledName(log: readonly BaseMessage[], toolCallId: string): string | undefined {
  for (const message of log) {
    const calls = (message as { tool_calls?: unknown }).tool_calls;
    if (!Array.isArray(calls)) continue;
    for (const call of calls as { id?: unknown; name?: unknown }[]) {
      if (call?.id === toolCallId && typeof call.name === "string" && call.name !== "") return call.name;
    }
  }
  return undefined;
}

/** @internal A tool's result for the scratchpad, named in `name` and `additional_kwargs.name`. */
export function toolResultMessage(toolCallId: string, tool: string, content: string | MessageContentComplex[]): ToolMessage {
  return new ToolMessage({ tool_call_id: toolCallId, content: content as ToolMessage["content"], name: tool, additional_kwargs: { name: tool } });
}

/** Keys by message (null: none): a run's steps keep their messages, so each is keyed once a run, not once a turn. */
const messageKeys = new WeakMap<BaseMessage, string | null>();

/**
 * A key for a model message: its id and its tool calls' ids, either alone when the other is missing
 * (undefined when both are).
 */
function messageKey(message: BaseMessage): string | undefined {
  let key = messageKeys.get(message);
  if (key === undefined) {
    const calls = toolCallsKey(message);
    key = (message.id === undefined ? calls : calls === undefined ? `id:${message.id}` : `id:${message.id}\u0000${calls}`) ?? null;
    messageKeys.set(message, key);
  }
  return key ?? undefined;
}

/** A key for an AI message by its tool calls' ids (undefined when it has none, or one without an id). */
function toolCallsKey(message: BaseMessage): string | undefined {
  const calls = AIMessage.isInstance(message) ? message.tool_calls : undefined;
  if (calls === undefined || calls.length === 0 || calls.some((call) => call.id === undefined)) return undefined;
  return `tool_calls:${calls.map((call) => call.id).join("\u0000")}`;
}

function onlyAnsweredCalls(message: BaseMessage, answered: ReadonlySet<string>): BaseMessage {
  const calls = AIMessage.isInstance(message) ? (message.tool_calls ?? []) : [];
  if (calls.every((call) => call.id !== undefined && answered.has(call.id))) return message;
  return withKeptCalls(message as AIMessage, (id) => typeof id === "string" && answered.has(id));
}

/**
 * A copy of an AI message with only the tool calls `kept` (by id) keeps, wherever the provider
 * wrote them (`tool_calls`, the content's tool-call blocks, the raw calls, the Responses API's
 * output items, Gemini's signatures); `toolCalls` replaces the parsed calls when given. Everything
 * else the provider sent stays as it came (thinking blocks and their signatures must go back
 * unchanged), but a Responses API reasoning item, which cannot come back without every item it
 * led to. Keys of `additional_kwargs` named in `omit` leave too.
 *
 * @internal Shared with the OpenAI functions agent's parser, which keeps one call of several.
 */
export function withKeptCalls(ai: AIMessage, kept: (id: unknown) => boolean, toolCalls?: ToolCall[], omit: readonly string[] = []): AIMessage {
  const calls = ai.tool_calls ?? [];
  const { tool_calls: rawCalls, ...kwargs } = ai.additional_kwargs as Record<string, unknown>;
  for (const key of ["reasoning", "__openai_function_call_ids__", ...omit]) delete kwargs[key];
  const signatures = kwargs[GEMINI_SIGNATURES];
  if (typeof signatures === "object" && signatures !== null) kwargs[GEMINI_SIGNATURES] = keptSignatures(calls, signatures as Record<string, unknown>, kept);
  const content = Array.isArray(ai.content)
    ? ai.content.filter((block) => !(isToolCallBlock(block) && !kept((block as { id?: unknown }).id)))
    : ai.content;
  return new AIMessage({
    content: content as AIMessage["content"],
    id: ai.id,
    name: ai.name,
    tool_calls: toolCalls ?? calls.filter((call) => kept(call.id)),
    invalid_tool_calls: [],
    additional_kwargs: {
      ...kwargs,
      ...(Array.isArray(rawCalls) ? { tool_calls: rawCalls.filter((call: { id?: unknown }) => kept(call.id)) } : {}),
    },
    response_metadata: withoutUnansweredOutput(ai.response_metadata, kept),
    ...(ai.usage_metadata ? { usage_metadata: ai.usage_metadata } : {}),
  });
}

/** Where `@langchain/google-genai` keeps the thought signatures of a message's function calls, by call id. */
const GEMINI_SIGNATURES = "__gemini_function_call_thought_signatures__";

/**
 * The thought signatures of the answered calls. Gemini signs a step on its first function call and
 * refuses a step sent back whose first call has no signature, so when that call is trimmed away its
 * signature moves to the first call that remains.
 */
function keptSignatures(calls: { id?: string }[], signatures: Record<string, unknown>, kept: (id: unknown) => boolean): Record<string, unknown> {
  const result = Object.fromEntries(Object.entries(signatures).filter(([id]) => kept(id)));
  const first = calls.find((call) => kept(call.id));
  const stepSignature = calls.map((call) => (call.id !== undefined ? signatures[call.id] : undefined)).find((signature) => signature !== undefined);
  if (first?.id !== undefined && result[first.id] === undefined && stepSignature !== undefined) result[first.id] = stepSignature;
  return result;
}

/** A content block that is a tool call (Anthropic's `tool_use`, LangChain's `tool_call`). */
function isToolCallBlock(block: unknown): boolean {
  const type = (block as { type?: unknown } | null)?.type;
  return type === "tool_use" || type === "tool_call" || type === "function_call";
}
