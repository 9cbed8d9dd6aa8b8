import { unwrapSingleArgument, type AgentFinish, type ToolAgentAction } from "@agentrx/core";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { AgentOutputParser } from "../shared/agent-output-parser";
import { readToolCalls, toolCallError, type ReadToolCall } from "../shared/read-tool-calls";

/**
 * Parses a chat model's message for a tool-calling agent. Every tool call becomes a
 * `ToolAgentAction` (with `toolCallId` and the message as `messageLog`), so one message with
 * several tool calls gives several actions, run in parallel. A message without tool calls is the
 * final answer: an `AgentFinish` whose `output` is the message's text. Arguments of the form
 * `{"__arg1": value}` (LangChain's encoding of a single-input tool) become `value`; empty
 * arguments are `{}`, and raw newlines or tabs inside argument strings are accepted (as LangChain
 * Python accepts them). A tool call without a name, or whose arguments are not a valid JSON object
 * (truncated ones included) or are nested more than 100 levels deep, raises an
 * `InvalidToolArgumentsException` (an `OutputParserException`) that names the tool and the
 * problem, with `sendToLLM` set so the model can retry. The message is one turn: none of its
 * calls gets a result then, and with several calls the observation says so.
 *
 * @example
 * ```ts
 * import { ToolCallingAgentOutputParser } from "@agentrx/agents";
 * import { AIMessage } from "@langchain/core/messages";
 *
 * const parser = new ToolCallingAgentOutputParser();
 * const actions = await parser.invoke(
 *   new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "search", args: { query: "Paris" } }] }),
 * );
 * console.log(actions); // [{ tool: "search", toolInput: { query: "Paris" }, toolCallId: "call_1", ... }]
 * ```
 */
export class ToolCallingAgentOutputParser extends AgentOutputParser<ToolAgentAction[] | AgentFinish> {
  static override lc_name(): string {
    return "ToolCallingAgentOutputParser";
  }

  override getFormatInstructions(): string {
    return "Call tools through the model's native tool calling; answer in plain text when done.";
  }

  /** Plain text has no tool calls: it is the final answer. */
  protected parseText(text: string): AgentFinish {
    return { returnValues: { output: text }, log: text };
  }

  protected override parseMessage(message: BaseMessage, text: string): ToolAgentAction[] | AgentFinish {
    const calls = readToolCalls(message);
    if (calls.length === 0) {
      // The model's message goes with the answer (not enumerable: the answer is still
      // `{ returnValues, log }` to see and to compare), so the thread's memory keeps it whole, its
      // reasoning and metadata with it, as the steps keep each tool-calling turn's.
      return Object.defineProperty(this.parseText(text), "messageLog", { value: [message], enumerable: false });
    }
    const bad = calls.find((call) => call.problem !== undefined || !call.name);
    if (bad) throw toolCallError(bad, text, "tool", calls.length);
    const ids = toolCallIds(calls, message.id);
    const renamed = ids.some((id, index) => id !== calls[index]?.id);
    // A recovered call is among the message's invalid tool calls, and raw or malformed calls are
    // not in its tool_calls as read here: send back a copy whose tool_calls are exactly these.
    const listed = (message as AIMessage).tool_calls;
    const exact = !renamed && !calls.some((call) => call.recovered) && Array.isArray(listed) && listed.length === calls.length;
    const logged = exact ? message : withToolCalls(message as AIMessage, calls, ids);
    return calls.map((call, index) => ({
      tool: call.name as string,
      toolInput: unwrapSingleArgument(call.args),
      toolCallId: ids[index] as string,
      log: `Invoking "${call.name}" with ${call.argsText}${text ? `\n${text}` : ""}`,
      messageLog: [logged],
    }));
  }
}

/**
 * An id for each call, unique within the message: its own, unless it has none or an earlier call
 * of the message has the same (some compatible servers number every call `call_0`); then one made
 * from the message id and the call's position. The message sent back carries these ids, so each
 * tool result answers its own call.
 */
function toolCallIds(calls: ReadToolCall[], messageId: string | undefined): string[] {
  const prefix = typeof messageId === "string" && messageId ? messageId : "tool_call";
  const used = new Set<string>();
  return calls.map((call, index) => {
    let id = call.id && !used.has(call.id) ? call.id : `${prefix}_${index}`;
    while (used.has(id)) id = `${id}_`;
    used.add(id);
    return id;
  });
}

/**
 * A copy of the message whose tool calls are exactly the calls read, with their ids. Everything
 * else the provider sent stays as it came (reasoning such as `reasoning_content`, thought
 * signatures), since a provider may refuse the turn back without it; only the raw OpenAI
 * `tool_calls` leave, as they may lack the ids given here or hold the arguments as written.
 */
function withToolCalls(message: AIMessage, calls: ReadToolCall[], ids: string[]): AIMessage {
  const { tool_calls: _rawCalls, ...kwargs } = (message.additional_kwargs ?? {}) as Record<string, unknown>;
  return new AIMessage({
    content: message.content,
    id: message.id,
    name: message.name,
    tool_calls: calls.map((call, index) => ({ id: ids[index], name: call.name as string, args: call.args ?? {}, type: "tool_call" })),
    invalid_tool_calls: [],
    additional_kwargs: kwargs,
    response_metadata: message.response_metadata,
    ...(message.usage_metadata ? { usage_metadata: message.usage_metadata } : {}),
  });
}
