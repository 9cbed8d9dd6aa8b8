// Replies of the Anthropic Messages loopback server: the scripted turn as a `message` object, or
// as the stream of server-sent events the API sends (not exported from the package).
import { createHash } from "node:crypto";
import { blocksOf } from "./validate-anthropic-request";

/** A tool call the Anthropic loopback server sends (a `tool_use` block). */
export interface AnthropicLoopbackToolCall {
  /** The tool's name. */
  name: string;
  /** Its input. @default {} */
  input?: Record<string, unknown>;
  /** The block's id. @default `toolu_loopback_<request>_<position>` */
  id?: string;
}

/** One scripted assistant turn of the Anthropic loopback server. */
export interface AnthropicLoopbackTurn {
  /**
   * The model's thinking, sent as a `thinking` block signed by the server when the request turns
   * thinking on (left out otherwise, as the API does).
   */
  thinking?: string;
  /** The assistant's text. */
  text?: string;
  /** Tool calls (`tool_use` blocks), after the text. */
  toolCalls?: AnthropicLoopbackToolCall[];
  /** @default "tool_use" with tool calls, else "end_turn" */
  stopReason?: "end_turn" | "tool_use" | "max_tokens" | "stop_sequence";
}

/** An HTTP error the Anthropic loopback server answers with, in Anthropic's error format. */
export interface AnthropicLoopbackError {
  status: number;
  /** `error.type`. @default from the status (`invalid_request_error`, `rate_limit_error`, `overloaded_error`, ...) */
  type?: string;
  message?: string;
}

/** Token counts of one request (Anthropic's `usage`, cache fields included). */
export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** Rough token count of a value: its JSON's characters / 4. */
export function tokensOf(value: unknown): number {
  return Math.ceil(JSON.stringify(value ?? "").length / 4);
}

/**
 * Anthropic's prompt cache, simulated: the prompt (tools, then system, then messages) is hashed
 * block by block (without the `cache_control` markers); at each `cache_control` breakpoint the
 * longest prefix already cached, at that block or up to 20 blocks before it, is read from the
 * cache, and the prefix up to the breakpoint is written to it. Returns the input usage.
 */
export function cacheUsage(body: Record<string, any>, cache: Map<string, number>): Omit<AnthropicUsage, "output_tokens"> {
  const system = body["system"];
  const items: { block: Record<string, unknown>; role?: string }[] = [
    ...((body["tools"] as Record<string, unknown>[]) ?? []).map((block) => ({ block })),
    ...blocksOf(system).map((block) => ({ block })),
  ];
  for (const message of body["messages"] as { role: string; content: unknown }[]) {
    for (const block of blocksOf(message.content)) items.push({ block, role: message.role });
  }
  const hash = createHash("sha256");
  const boundaries: { key: string; tokens: number }[] = [];
  let tokens = 0;
  let read = 0;
  let written = 0;
  for (const { block, role } of items) {
    const { cache_control: marker, ...content } = block;
    hash.update(JSON.stringify([role ?? null, content]));
    tokens += tokensOf(content);
    boundaries.push({ key: hash.copy().digest("hex"), tokens });
    if (marker === undefined) continue;
    for (let back = boundaries.length - 1; back >= Math.max(0, boundaries.length - 21); back--) {
      const hit = boundaries[back] as { key: string; tokens: number };
      if (cache.has(hit.key)) {
        read = Math.max(read, hit.tokens);
        break;
      }
    }
    const here = boundaries[boundaries.length - 1] as { key: string; tokens: number };
    if (!cache.has(here.key)) {
      cache.set(here.key, here.tokens);
      written = Math.max(written, here.tokens);
    }
  }
  const creation = Math.max(0, written - read);
  return { input_tokens: Math.max(0, tokens - read - creation), cache_read_input_tokens: read, cache_creation_input_tokens: creation };
}

/** The content blocks of a scripted turn for one request. */
export function turnBlocks(turn: AnthropicLoopbackTurn, requestIndex: number, thinkingOn: boolean, sign: (thinking: string) => string): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  if (thinkingOn && turn.thinking !== undefined) blocks.push({ type: "thinking", thinking: turn.thinking, signature: sign(turn.thinking) });
  if (turn.text) blocks.push({ type: "text", text: turn.text });
  for (const [position, call] of (turn.toolCalls ?? []).entries()) {
    blocks.push({ type: "tool_use", id: call.id ?? `toolu_loopback_${requestIndex}_${position}`, name: call.name, input: call.input ?? {} });
  }
  return blocks;
}

/** The server-sent events of a streamed message, as the Messages API sends them. */
export function messageEvents(message: Record<string, any>): { event: string; data: unknown }[] {
  const usage = message["usage"] as AnthropicUsage;
  const events: { event: string; data: unknown }[] = [
    { event: "message_start", data: { type: "message_start", message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } } },
  ];
  for (const [index, block] of (message["content"] as Record<string, any>[]).entries()) {
    const delta = (payload: object) => events.push({ event: "content_block_delta", data: { type: "content_block_delta", index, delta: payload } });
    if (block["type"] === "thinking") {
      events.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } } });
      for (const piece of pieces(block["thinking"], 12)) delta({ type: "thinking_delta", thinking: piece });
      delta({ type: "signature_delta", signature: block["signature"] });
    } else if (block["type"] === "text") {
      events.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: { type: "text", text: "" } } });
      for (const piece of pieces(block["text"], 8)) delta({ type: "text_delta", text: piece });
    } else {
      events.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: { ...block, input: {} } } });
      for (const piece of pieces(JSON.stringify(block["input"]), 7)) delta({ type: "input_json_delta", partial_json: piece });
    }
    events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
  }
  events.push({
    event: "message_delta",
    data: { type: "message_delta", delta: { stop_reason: message["stop_reason"], stop_sequence: null }, usage: { output_tokens: usage.output_tokens } },
  });
  events.push({ event: "message_stop", data: { type: "message_stop" } });
  return events;
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out.length ? out : [""];
}
