import { InvalidArgumentError } from "@agentrx/core";
import type { AIMessage, BaseMessage } from "@langchain/core/messages";

// Small helpers of the built-in middleware. @internal

/** Throws the `InvalidArgumentError` of a built-in middleware's bad option. */
export function badOption(middleware: string, argument: string, value: unknown, message: string): never {
  throw new InvalidArgumentError({ argument, value, message: `${middleware}: ${message}` });
}

/** Whether `value` can be called like a @langchain/core runnable (a chat model). */
export function isInvokable(value: unknown): value is { invoke: (...args: never[]) => Promise<unknown> } {
  return typeof (value as { invoke?: unknown } | null)?.invoke === "function";
}

/** JSON with object keys sorted, so equal values give equal text whatever their key order. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== "object" || Array.isArray(inner)) return inner;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(inner as object).sort()) sorted[key] = (inner as Record<string, unknown>)[key];
    return sorted;
  }) ?? String(value);
}

/** The text of a chat model's reply (a message, its string content or its text blocks). */
export function replyText(reply: unknown): string {
  if (typeof reply === "string") return reply;
  const content = (reply as BaseMessage | AIMessage | null)?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((block) => (typeof block === "string" ? block : (block as { type?: string; text?: string }).type === "text" ? String((block as { text?: string }).text ?? "") : "")).join("");
  }
  return "";
}

/** A model's name for a record: its `model`/`modelName` field, else its class's name. */
export function modelName(model: unknown): string {
  const fields = model as { model?: unknown; modelName?: unknown; getName?: () => string } | null;
  if (typeof fields?.model === "string") return fields.model;
  if (typeof fields?.modelName === "string") return fields.modelName;
  return typeof fields?.getName === "function" ? fields.getName() : "model";
}
