import type { BaseMessage, MessageContent } from "@langchain/core/messages";
import type OpenAI from "openai";

type MessageParam = OpenAI.Chat.ChatCompletionMessageParam;
type UserContentPart = OpenAI.Chat.ChatCompletionContentPart;

/** Converts `@langchain/core` messages to Chat Completions messages. */
export function toOpenAIMessages(messages: BaseMessage[]): MessageParam[] {
  return messages.map(toOpenAIMessage);
}

function toOpenAIMessage(message: BaseMessage): MessageParam {
  const type = message.getType();
  switch (type) {
    case "system":
      return { role: "system", content: message.text };
    case "developer":
      return { role: "developer", content: message.text };
    case "human":
      return { role: "user", content: userContent(message.content) };
    case "ai": {
      const ai = message as BaseMessage & {
        tool_calls?: { id?: string; name: string; args: unknown }[];
        invalid_tool_calls?: { id?: string; name?: string; args?: string }[];
      };
      const toolCalls = [
        ...(ai.tool_calls ?? []).map((call) => ({ id: call.id ?? "", name: call.name, args: JSON.stringify(call.args ?? {}) })),
        ...(ai.invalid_tool_calls ?? []).map((call) => ({ id: call.id ?? "", name: call.name ?? "", args: call.args ?? "" })),
      ];
      const functionCall = message.additional_kwargs?.function_call as { name: string; arguments: string } | undefined;
      return {
        role: "assistant",
        content: message.text || (toolCalls.length || functionCall ? null : ""),
        ...(toolCalls.length
          ? {
              tool_calls: toolCalls.map((call) => ({
                id: call.id,
                type: "function" as const,
                function: { name: call.name, arguments: call.args },
              })),
            }
          : {}),
        ...(functionCall ? { function_call: { name: functionCall.name, arguments: functionCall.arguments } } : {}),
      };
    }
    case "tool":
      return { role: "tool", tool_call_id: (message as BaseMessage & { tool_call_id: string }).tool_call_id, content: message.text };
    case "function":
      return { role: "function", name: message.name ?? "", content: message.text };
    case "generic": {
      const role = (message as BaseMessage & { role?: string }).role;
      if (role === "system" || role === "developer") return { role, content: message.text };
      if (role === "assistant" || role === "ai") return { role: "assistant", content: message.text };
      return { role: "user", content: userContent(message.content) };
    }
    default:
      return { role: "user", content: message.text };
  }
}

function userContent(content: MessageContent): string | UserContentPart[] {
  if (typeof content === "string") return content;
  return content.flatMap((block): UserContentPart[] => {
    const part = block as Record<string, any>;
    if (part.type === "text" && typeof part.text === "string") return [{ type: "text", text: part.text }];
    if (part.type === "image_url") {
      const image = typeof part.image_url === "string" ? { url: part.image_url } : part.image_url;
      return [{ type: "image_url", image_url: image }];
    }
    if (part.type === "image" && typeof part.url === "string") return [{ type: "image_url", image_url: { url: part.url } }];
    if (part.type === "image" && typeof part.data === "string") {
      const mime = part.mimeType ?? part.mime_type ?? "image/png";
      return [{ type: "image_url", image_url: { url: `data:${mime};base64,${part.data}` } }];
    }
    return [part as UserContentPart];
  });
}
