import type { AgentAction, AgentFinish, ToolAgentAction } from "@agentrx/core";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { InvalidToolArgumentsException } from "@agentrx/core";
import { AgentOutputParser } from "../shared/agent-output-parser";
import { lenientToolCalls } from "../shared/lenient-tool-calls";
import { parseLenientJson } from "../shared/parse-lenient-json";
import { unwrapSingleArgument } from "../shared/unwrap-single-argument";

/** An action of a function-calling agent: the message it came from, and its tool-call id if any. */
export type FunctionsAgentAction = AgentAction & { messageLog: BaseMessage[]; toolCallId?: string };

/**
 * Parses a chat model's message for a function-calling agent: one action per turn. The
 * function call is read from the message's first tool call (or OpenAI's legacy
 * `additional_kwargs.function_call`). Its arguments are the tool input; arguments of the form
 * `{"__arg1": value}` (LangChain's encoding of single-input tools) become `value`. A message that
 * asks for several tool calls acts on the first: its `messageLog` holds a copy of the message
 * with only that call, so the conversation stays valid. A message without a call is the final
 * answer (its text). Empty arguments are `{}` and raw newlines or tabs inside argument strings
 * are accepted (as LangChain Python accepts them). Arguments that are not valid JSON raise an
 * `InvalidToolArgumentsException` (an `OutputParserException`) naming the function, with `sendToLLM` set.
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
    const { toolCalls, invalidToolCalls, recovered } = lenientToolCalls(ai);
    const call = toolCalls[0];
    const invalid = invalidToolCalls[0];
    if (!call && invalid) throw badArguments(invalid.name ?? "", invalid.args ?? "", text);
    if (call) {
      const single =
        recovered || toolCalls.length > 1 || invalidToolCalls.length > 0 || ai.tool_calls?.length !== 1
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
      // OpenAI sends "" (or whitespace) for a function without arguments.
      const raw = functionCall.arguments?.trim() ? functionCall.arguments : "{}";
      let args: unknown;
      try {
        args = parseLenientJson(raw);
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

function badArguments(name: string, args: string, text: string): InvalidToolArgumentsException {
  const shown = args.length > 500 ? `${args.slice(0, 500)}…` : args;
  return new InvalidToolArgumentsException({
    toolName: name || undefined,
    rawArguments: shown,
    problem: "its arguments are not valid JSON",
    llmOutput: text || `Invoking "${name}" with ${shown}`,
    noun: "function",
  });
}
