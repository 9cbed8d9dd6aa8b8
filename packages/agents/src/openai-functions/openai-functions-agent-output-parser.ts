import { unwrapSingleArgument, type AgentAction, type AgentFinish, type ToolAgentAction } from "@agentrx/core";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { OutputParserException } from "@langchain/core/output_parsers";
import { AgentOutputParser } from "../shared/agent-output-parser";
import { fromText, readToolCalls, toolCallError, type ReadToolCall } from "../shared/read-tool-calls";
import { withKeptCalls } from "../tool-calling/format-to-tool-messages";

/**
 * An action of a function-calling agent: the message it came from, and its tool-call id if any.
 * An action read from a legacy `function_call` (no tool-call id) has `resultMessageType:
 * "function"`: its result goes back to the model as a `FunctionMessage`, not a `ToolMessage`.
 */
export type FunctionsAgentAction = AgentAction & { messageLog: BaseMessage[]; toolCallId?: string; resultMessageType?: "function" };

/**
 * Parses a chat model's message for a function-calling agent: one action per turn. The
 * function call is read from the message's first tool call (or OpenAI's legacy
 * `additional_kwargs.function_call`). Its arguments are the tool input; arguments of the form
 * `{"__arg1": value}` (LangChain's encoding of single-input tools) become `value`. A message that
 * asks for several tool calls acts on the first: its `messageLog` holds a copy of the message
 * with only that call, so the conversation stays valid. A message without a call is the final
 * answer (its text). Empty arguments are `{}` and raw newlines or tabs inside argument strings
 * are accepted (as LangChain Python accepts them). A call without a name, or whose arguments are
 * not a valid JSON object or are nested more than 100 levels deep, raises an
 * `InvalidToolArgumentsException` (an `OutputParserException`) naming the function and the
 * problem, with `sendToLLM` set, as the tool-calling parser does. A chat message that is not an AI
 * message (a system, human or tool message) is an `OutputParserException` too, never a final
 * answer; plain text (a generation without a message) is the final answer.
 *
 * @example
 * ```ts
 * import { OpenAIFunctionsAgentOutputParser } from "@agentrx/agents";
 * import { AIMessage } from "@langchain/core/messages";
 *
 * const parser = new OpenAIFunctionsAgentOutputParser();
 * const action = await parser.invoke(
 *   new AIMessage({ content: "", additional_kwargs: { function_call: { name: "search", arguments: '{"query":"Paris"}' } } }),
 * );
 * console.log(action); // { tool: "search", toolInput: { query: "Paris" }, log: "...", messageLog: [...] }
 * ```
 */
export class OpenAIFunctionsAgentOutputParser extends AgentOutputParser<FunctionsAgentAction | AgentFinish> {
  static override lc_name(): string {
    return "OpenAIFunctionsAgentOutputParser";
  }

  override getFormatInstructions(): string {
    return "Call one function through the model's native function calling; answer in plain text when done.";
  }

  protected parseText(text: string): AgentFinish {
    return { returnValues: { output: text }, log: text };
  }

  protected override parseMessage(message: BaseMessage, text: string): FunctionsAgentAction | AgentFinish {
    if (!AIMessage.isInstance(message)) {
      const type = messageType(message);
      throw new OutputParserException(
        `OpenAIFunctionsAgentOutputParser expected an AI message from the model, got a ${type} message: ${text}. ` +
          "Pass the chat model's reply (an AIMessage), or plain text for a final answer.",
        text,
      );
    }
    const ai = message;
    // Strictly parsed: a streamed message's truncated arguments are an invalid call, not "repaired".
    const calls = readToolCalls(ai);
    const call = calls[0];
    if (call) {
      if (!call.name || call.problem !== undefined) throw toolCallError(call, text, "function");
      const id = call.id ?? `${typeof ai.id === "string" && ai.id ? ai.id : "call"}_0`;
      const single =
        call.recovered || !call.id || calls.length > 1 || !Array.isArray(ai.tool_calls) || ai.tool_calls.length !== 1
          ? withOnlyCall(ai, { id, name: call.name, args: call.args ?? {} }, calls)
          : message;
      const action: ToolAgentAction = {
        tool: call.name,
        toolInput: unwrapSingleArgument(call.args),
        toolCallId: id,
        log: invocationLog(call.name, call.argsText, text),
        messageLog: [single],
      };
      return action;
    }
    const functionCall = (ai.additional_kwargs as { function_call?: unknown } | undefined)?.function_call;
    if (typeof functionCall === "object" && functionCall !== null) {
      const { name, arguments: raw } = functionCall as { name?: unknown; arguments?: unknown };
      const blank = (value: unknown) => value === undefined || value === null || (typeof value === "string" && value.trim() === "");
      // An empty function call (no name, no arguments) is no call at all.
      if (!(blank(name) && blank(raw))) {
        const read = fromText(typeof name === "string" && name ? name : undefined, undefined, raw, false);
        if (!read.name || read.problem !== undefined) throw toolCallError(read, text, "function");
        // The log keeps the arguments as the model wrote them, as LangChain's does.
        const written = typeof raw === "string" && raw.trim() ? raw : "{}";
        return {
          tool: read.name,
          toolInput: unwrapSingleArgument(read.args),
          log: invocationLog(read.name, written, text),
          messageLog: [message],
          resultMessageType: "function",
        };
      }
    }
    return this.parseText(text);
  }
}

/**
 * A copy of the message with `call` as its only tool call. Everything else the provider sent stays
 * as it came (reasoning such as `reasoning_content`, thinking blocks and their signatures), since a
 * provider may refuse the turn back without it; the other calls leave, from the content, the raw
 * calls and the Responses API's output items too (sent back with a call it never answers, the
 * turn is a 400).
 */
function withOnlyCall(message: AIMessage, call: { id: string; name: string; args: Record<string, unknown> }, calls: ReadToolCall[]): AIMessage {
  const others = new Set(calls.flatMap((other) => (other.id !== undefined && other.id !== call.id ? [other.id] : [])));
  return withKeptCalls(message, (id) => !(typeof id === "string" && others.has(id)), [{ ...call, type: "tool_call" }], ["function_call"]);
}

/** The message's type for an error message (`"system"`, `"human"`, ...), never throwing. */
function messageType(message: BaseMessage): string {
  try {
    const type = message.getType();
    return typeof type === "string" ? type : "non-AI";
  } catch {
    return "non-AI";
  }
}

function invocationLog(name: string, args: string, text: string): string {
  return `Invoking "${name}" with ${args}${text ? `\n${text}` : ""}`;
}
