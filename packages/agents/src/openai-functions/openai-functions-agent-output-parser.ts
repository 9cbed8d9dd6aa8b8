import type { AgentAction, AgentFinish, ToolAgentAction } from "@agentrx/core";
import { strictToolCalls } from "@agentrx/core";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { OutputParserException } from "@langchain/core/output_parsers";
import { AgentOutputParser } from "../shared/agent-output-parser";

/** An action of a function-calling agent: the message it came from, and its tool-call id if any. */
export type FunctionsAgentAction = AgentAction & { messageLog: BaseMessage[]; toolCallId?: string };

/**
 * Parses a chat model's message for a function-calling agent: one action per turn. The
 * function call is read from the message's first tool call (or OpenAI's legacy
 * `additional_kwargs.function_call`). Its arguments are the tool input; arguments of the form
 * `{"__arg1": value}` (LangChain's encoding of single-input tools) become `value`. A message that
 * asks for several tool calls acts on the first: its `messageLog` holds a copy of the message
 * with only that call, so the conversation stays valid. A message without a call is the final
 * answer (its text). Arguments that are not valid JSON raise an `OutputParserException` naming
 * the function, with `sendToLLM` set.
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
    const ai = message as AIMessage;
    // Strictly parsed: a streamed message's truncated arguments are an invalid call, not "repaired".
    const { toolCalls, invalidToolCalls } = strictToolCalls(ai);
    const call = toolCalls[0];
    const invalid = invalidToolCalls[0];
    if (!call && invalid) throw badArguments(invalid.name ?? "", invalid.args ?? "", text);
    if (call) {
      const single =
        toolCalls.length > 1 || invalidToolCalls.length > 0 || ai.tool_calls?.length !== 1
          ? new AIMessage({ content: ai.content, id: ai.id, tool_calls: [call], response_metadata: ai.response_metadata })
          : message;
      const action: ToolAgentAction = {
        tool: call.name,
        toolInput: unwrapSingleArgument(call.args),
        toolCallId: call.id ?? `${message.id ?? "call"}_0`,
        log: invocationLog(call.name, JSON.stringify(call.args ?? {}), text),
        messageLog: [single],
      };
      return action;
    }
    const functionCall = (ai.additional_kwargs as { function_call?: { name?: string; arguments?: string } } | undefined)
      ?.function_call;
    if (functionCall?.name) {
      const raw = functionCall.arguments || "{}";
      let args: unknown;
      try {
        args = JSON.parse(raw);
      } catch {
        throw badArguments(functionCall.name, raw, text);
      }
      return {
        tool: functionCall.name,
        toolInput: unwrapSingleArgument(args),
        log: invocationLog(functionCall.name, raw, text),
        messageLog: [message],
      };
    }
    return this.parseText(text);
  }
}

function invocationLog(name: string, args: string, text: string): string {
  return `Invoking "${name}" with ${args}${text ? `\n${text}` : ""}`;
}

function unwrapSingleArgument(args: unknown): AgentAction["toolInput"] {
  if (typeof args === "object" && args !== null && !Array.isArray(args)) {
    const record = args as Record<string, unknown>;
    const keys = Object.keys(record);
    if (keys.length === 1 && keys[0] === "__arg1") return record.__arg1 as AgentAction["toolInput"];
    return record;
  }
  return args as AgentAction["toolInput"];
}

function badArguments(name: string, args: string, text: string): OutputParserException {
  const shown = args.length > 500 ? `${args.slice(0, 500)}…` : args;
  return new OutputParserException(
    `Could not parse the arguments of function "${name}": they are not valid JSON. Arguments: ${shown}`,
    text || `Invoking "${name}" with ${shown}`,
    `Your call to function "${name}" could not be read: its arguments are not valid JSON. Call it again with one valid JSON object.`,
    true,
  );
}
