import { valueToText } from "@agentrx/core";
import type { BaseMessage } from "@langchain/core/messages";

// LangChain messages in the shape the GenAI semantic conventions give `gen_ai.input.messages` and
// `gen_ai.output.messages`: `{ role, parts: [{ type: "text" | "tool_call" | "tool_call_response", ... }] }`,
// serialised to JSON. @internal

type Part =
  | { type: "text"; content: string }
  | { type: "tool_call"; id?: string; name: string; arguments: unknown }
  | { type: "tool_call_response"; id?: string; response: unknown };

interface GenAIMessage {
  role: string;
  parts: Part[];
  finish_reason?: string;
}

const ROLES: Record<string, string> = { human: "user", ai: "assistant", system: "system", tool: "tool", function: "tool", developer: "system" };

function roleOf(message: BaseMessage): string {
  const type = message.getType();
  return ROLES[type] ?? type;
}

function toGenAIMessage(message: BaseMessage): GenAIMessage {
  const parts: Part[] = [];
  const type = message.getType();
  if (type === "tool") {
    const id = (message as { tool_call_id?: string }).tool_call_id;
    parts.push({ type: "tool_call_response", ...(id ? { id } : {}), response: message.text });
    return { role: "tool", parts };
  }
  const text = message.text;
  if (text.length > 0) parts.push({ type: "text", content: text });
  const calls = (message as { tool_calls?: { id?: string; name: string; args: unknown }[] }).tool_calls ?? [];
  for (const call of calls) parts.push({ type: "tool_call", ...(call.id ? { id: call.id } : {}), name: call.name, arguments: call.args });
  return { role: roleOf(message), parts };
}

/** The messages sent to a model call, as `gen_ai.input.messages` wants them. */
export function inputMessagesJson(messages: readonly BaseMessage[]): string {
  return JSON.stringify(messages.map(toGenAIMessage));
}

/**
 * A model's reply (with its finish reason), as `gen_ai.output.messages` wants it. Every output
 * message has a `finish_reason`: a reply that names none finished with its tool calls
 * (`tool_call`) or its text (`stop`).
 */
export function outputMessagesJson(messages: readonly BaseMessage[], finishReason: string | undefined): string {
  return JSON.stringify(
    messages.map((message) => {
      const converted = toGenAIMessage(message);
      return { ...converted, finish_reason: finishReason ?? (converted.parts.some((part) => part.type === "tool_call") ? "tool_call" : "stop") };
    }),
  );
}

/** A run's input or answer as one text message. */
export function textMessageJson(role: string, text: string, finishReason?: string): string {
  return JSON.stringify([{ role, parts: [{ type: "text", content: text }], ...(finishReason ? { finish_reason: finishReason } : {}) }]);
}

/** A value as an attribute string: strings as they are, anything else as JSON. */
export function attributeText(value: unknown): string {
  return valueToText(value);
}
