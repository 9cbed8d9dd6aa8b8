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
 * problem, with `sendToLLM` set so the model can retry.
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
    if (calls.length === 0) return this.parseText(text);
    const bad = calls.find((call) => call.problem !== undefined || !call.name);
    if (bad) throw toolCallError(bad, text, "tool");
    // A call without an id gets one, and the message sent back must carry the same id so that the
    // tool result answers it.
    const prefix = typeof message.id === "string" && message.id ? message.id : "tool_call";
    let missingId = false;
    const ids = calls.map((call, index) => {
      if (call.id) return call.id;
      missingId = true;
      return `${prefix}_${index}`;
    });
    // A recovered call is among the message's invalid tool calls, and raw or malformed calls are
    // not in its tool_calls as read here: send back a copy whose tool_calls are exactly these.
    const listed = (message as AIMessage).tool_calls;
    const exact = !missingId && !calls.some((call) => call.recovered) && Array.isArray(listed) && listed.length === calls.length;
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

function withToolCalls(message: AIMessage, calls: ReadToolCall[], ids: string[]): AIMessage {
  return new AIMessage({
    content: message.content,
    id: message.id,
    name: message.name,
    tool_calls: calls.map((call, index) => ({ id: ids[index], name: call.name as string, args: call.args ?? {}, type: "tool_call" })),
    invalid_tool_calls: [],
    additional_kwargs: {},
    response_metadata: message.response_metadata,
    ...(message.usage_metadata ? { usage_metadata: message.usage_metadata } : {}),
  });
}
