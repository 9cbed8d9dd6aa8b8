import { isImageBlock, observationText } from "../agent/observation-text";
import type { BaseMessage } from "@langchain/core/messages";
import type OpenAI from "openai";
import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { strictToolCalls } from "../messages/strict-tool-calls";
import { reasoningParams } from "./reasoning-fields";
import { toOpenAIUserContent } from "./to-openai-user-content";

type MessageParam = OpenAI.Chat.ChatCompletionMessageParam;

/** How messages are converted for one model. */
export interface ToOpenAIMessagesOptions {
  /** Send system messages with the `developer` role (what OpenAI's reasoning models expect). */
  systemAsDeveloper?: boolean;
}

/**
 * Converts `@langchain/core` messages to Chat Completions messages; an assistant message with tool
 * calls keeps its `additional_kwargs.reasoning_content` (as `reasoning_content`, or as `reasoning`
 * when `reasoning_field` says it came in that field), and any assistant message its
 * `additional_kwargs.reasoning_details`, unchanged. Throws an
 * `InvalidArgumentError` for a message the API would reject for want of an id (a tool message
 * without `tool_call_id`, a tool call without `id`), so the caller learns which message is at fault
 * instead of getting a 400.
 */
export function toOpenAIMessages(messages: BaseMessage[], options: ToOpenAIMessagesOptions = {}): MessageParam[] {
  return messages.map((message, index) => withName(toOpenAIMessage(message, index, options), message));
}

/** Keeps the message's `name` (a participant's name) on the roles that take one. */
function withName(param: MessageParam, message: BaseMessage): MessageParam {
  const name = message.name;
  if (typeof name !== "string" || !name || param.role === "tool" || "name" in param) return param;
  return { ...param, name } as MessageParam;
}

function missingId(index: number, message: BaseMessage, what: string): never {
  throw new InvalidArgumentError({
    argument: `messages[${index}]`,
    value: message,
    message:
      `OpenAIChatModel: messages[${index}] (${message.getType()}) ${what}. The Chat Completions API pairs every ` +
      "tool result with its tool call by id: give each AIMessage tool call an `id` and each ToolMessage the " +
      "`tool_call_id` of the call it answers.",
  });
}

function toOpenAIMessage(message: BaseMessage, index: number, options: ToOpenAIMessagesOptions): MessageParam {
  const type = message.getType();
  switch (type) {
    case "system": {
      const developer = options.systemAsDeveloper || message.additional_kwargs?.__openai_role__ === "developer";
      return { role: developer ? "developer" : "system", content: message.text };
    }
    case "human":
      return { role: "user", content: toOpenAIUserContent(message, index) };
    case "ai": {
      // A message concatenated from streamed chunks has its calls rebuilt from the chunks: its own
      // `tool_calls` hold arguments "repaired" from partial JSON, not what the model produced.
      const { toolCalls: valid, invalidToolCalls: invalid } = strictToolCalls(message);
      const toolCalls = [
        ...valid.map((call) => ({ id: call.id, name: call.name, args: JSON.stringify(call.args ?? {}) })),
        ...invalid.map((call) => ({ id: call.id, name: call.name ?? "", args: call.args ?? "" })),
      ];
      const unnamed = toolCalls.find((call) => !call.id);
      if (unnamed) missingId(index, message, `has a tool call ("${unnamed.name}") without an \`id\``);
      const functionCall = message.additional_kwargs?.function_call as { name: string; arguments: string } | undefined;
      // A reasoning model behind a compatible API (DeepSeek's thinking mode, Kimi, OpenRouter)
      // needs the reasoning of a turn that called tools back with it, as it came.
      return {
        role: "assistant",
        content: message.text || (toolCalls.length || functionCall ? null : ""),
        ...(toolCalls.length
          ? {
              tool_calls: toolCalls.map((call) => ({
                id: call.id as string,
                type: "function" as const,
                function: { name: call.name, arguments: call.args },
              })),
            }
          : {}),
        ...(functionCall ? { function_call: { name: functionCall.name, arguments: functionCall.arguments } } : {}),
        ...reasoningParams(message.additional_kwargs, toolCalls.length > 0),
      } as MessageParam;
    }
    case "tool": {
      const id = (message as BaseMessage & { tool_call_id?: unknown }).tool_call_id;
      if (typeof id !== "string" || !id) missingId(index, message, "has no `tool_call_id`");
      // Chat Completions takes text only in a tool message: an image a tool returned becomes a note.
      const content = Array.isArray(message.content) && message.content.some(isImageBlock) ? observationText(message.content) : message.text;
      return { role: "tool", tool_call_id: id as string, content };
    }
    case "function":
      return { role: "function", name: message.name ?? "", content: message.text };
    case "generic": {
      const role = (message as BaseMessage & { role?: string }).role;
      if (role === "system" || role === "developer") return { role: options.systemAsDeveloper ? "developer" : role, content: message.text };
      if (role === "assistant" || role === "ai") return { role: "assistant", content: message.text };
      return { role: "user", content: toOpenAIUserContent(message, index) };
    }
    default:
      return { role: "user", content: message.text };
  }
}
