import type { AgentFinish, ToolAgentAction } from "@agentrx/core";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { InvalidToolArgumentsException } from "@agentrx/core";
import { AgentOutputParser } from "../shared/agent-output-parser";
import { lenientToolCalls } from "../shared/lenient-tool-calls";
import { parseLenientJson } from "../shared/parse-lenient-json";
import { unwrapSingleArgument } from "../shared/unwrap-single-argument";

interface RawToolCall {
  name: string | undefined;
  args: unknown;
  id: string | undefined;
  /** Set when the arguments could not be read as a JSON object. */
  problem?: string;
  rawArgs?: string;
}

/**
 * Parses a chat model's message for a tool-calling agent. Every tool call becomes a
 * `ToolAgentAction` (with `toolCallId` and the message as `messageLog`), so one message with
 * several tool calls gives several actions, run in parallel. A message without tool calls is the
 * final answer: an `AgentFinish` whose `output` is the message's text. Arguments of the form
 * `{"__arg1": value}` (LangChain's encoding of a single-input tool) become `value`; empty
 * arguments are `{}`, and raw newlines or tabs inside argument strings are accepted (as LangChain
 * Python accepts them). A tool call whose arguments are not a valid JSON object (truncated ones
 * included) raises an `InvalidToolArgumentsException` (an `OutputParserException`) that names the tool and the problem, with
 * `sendToLLM` set so the model can retry.
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
    const { calls, recovered } = readToolCalls(message as AIMessage);
    if (calls.length === 0) return this.parseText(text);
    const bad = calls.find((call) => call.problem !== undefined || !call.name);
    if (bad) throw invalidToolCallError(bad, text);
    // A call without an id gets one, and the message sent back must carry the same id so that the
    // tool result answers it.
    let missingId = false;
    calls.forEach((call, index) => {
      if (call.id) return;
      call.id = `${message.id ?? "tool_call"}_${index}`;
      missingId = true;
    });
    // A recovered call is among the message's invalid tool calls: send back a copy that has it.
    const logged = recovered || missingId ? withToolCalls(message as AIMessage, calls) : message;
    return calls.map((call) => {
      const args = JSON.stringify(call.args);
      return {
        tool: call.name as string,
        toolInput: unwrapSingleArgument(call.args),
        toolCallId: call.id as string,
        log: `Invoking "${call.name}" with ${args}${text ? `\n${text}` : ""}`,
        messageLog: [logged],
      };
    });
  }
}

function withToolCalls(message: AIMessage, calls: RawToolCall[]): AIMessage {
  return new AIMessage({
    content: message.content,
    id: message.id,
    name: message.name,
    tool_calls: calls.map((call) => ({ id: call.id, name: call.name as string, args: call.args as Record<string, unknown>, type: "tool_call" })),
    invalid_tool_calls: [],
    additional_kwargs: {},
    response_metadata: message.response_metadata,
    ...(message.usage_metadata ? { usage_metadata: message.usage_metadata } : {}),
  });
}

function readToolCalls(message: AIMessage): { calls: RawToolCall[]; recovered: boolean } {
  const calls: RawToolCall[] = [];
  // Strictly parsed: a streamed message's truncated arguments are an invalid call, not "repaired".
  const { toolCalls, invalidToolCalls, recovered } = lenientToolCalls(message);
  for (const call of toolCalls) {
    calls.push({ name: call.name, args: call.args ?? {}, id: call.id });
  }
  for (const call of invalidToolCalls) {
    calls.push({
      name: call.name,
      args: undefined,
      id: call.id,
      rawArgs: call.args ?? "",
      problem: jsonProblem(call.args ?? "") ?? call.error ?? "the arguments are not a JSON object",
    });
  }
  if (calls.length > 0) return { calls, recovered };
  // Messages built by hand or by older integrations may carry OpenAI's raw tool calls only.
  const raw = (message.additional_kwargs as { tool_calls?: unknown } | undefined)?.tool_calls;
  if (!Array.isArray(raw)) return { calls, recovered };
  for (const entry of raw as Array<{ id?: string; function?: { name?: string; arguments?: string } }>) {
    // OpenAI sends "" (or whitespace) for a function without arguments.
    const rawArgs = entry.function?.arguments?.trim() ? entry.function.arguments : "{}";
    const problem = jsonProblem(rawArgs);
    calls.push({
      name: entry.function?.name,
      args: problem === undefined ? parseLenientJson(rawArgs) : undefined,
      id: entry.id,
      rawArgs,
      ...(problem === undefined ? {} : { problem }),
    });
  }
  return { calls, recovered };
}

/** Returns what is wrong with `text` as a JSON object, or undefined when it is one. */
function jsonProblem(text: string): string | undefined {
  let value: unknown;
  try {
    value = parseLenientJson(text);
  } catch (error) {
    return `invalid JSON: ${(error as Error).message}`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return `the arguments must be a JSON object, got ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}`;
  }
  return undefined;
}

function invalidToolCallError(call: RawToolCall, text: string): InvalidToolArgumentsException {
  const rawArguments = truncate(call.rawArgs ?? JSON.stringify(call.args) ?? "");
  return new InvalidToolArgumentsException({
    toolName: call.name || undefined,
    rawArguments,
    problem: call.name ? (call.problem ?? "") : "the tool call has no tool name",
    llmOutput: text || `Invoking "${call.name ?? ""}" with ${rawArguments}`,
    ...(call.id ? { toolCallId: call.id } : {}),
  });
}

function truncate(text: string, max = 500): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
