// Replies of the OpenAI Responses loopback server: the scripted turn as a `response` object, or as
// the server-sent events the API streams (not exported from the package).

/** A tool call the Responses loopback server sends (a `function_call` item). */
export interface ResponsesLoopbackToolCall {
  /** The function's name. */
  name: string;
  /** Its arguments. @default {} */
  arguments?: Record<string, unknown>;
  /** The call's `call_id`. @default `call_loopback_<request>_<position>` */
  callId?: string;
}

/** One scripted turn of the Responses loopback server. */
export interface ResponsesLoopbackTurn {
  /**
   * The model's reasoning: a `reasoning` item first in the output (its summary carries this text when
   * the request asks for `reasoning.summary`), as a reasoning model sends one before its calls.
   */
  reasoning?: string;
  /** The assistant's text (a `message` item). */
  text?: string;
  /** Tool calls (`function_call` items), after the text. */
  toolCalls?: ResponsesLoopbackToolCall[];
}

/** Rough token count of a value: its JSON's characters / 4. */
export function tokensOf(value: unknown): number {
  return Math.ceil(JSON.stringify(value ?? "").length / 4);
}

/**
 * OpenAI's automatic prompt caching, simulated: a prompt of 1024 tokens or more reads from the
 * cache the longest prefix it shares with an earlier prompt, in steps of 128 tokens.
 */
export function cachedTokens(prompt: string, earlier: string[]): number {
  const total = Math.ceil(prompt.length / 4);
  if (total < 1024) return 0;
  let common = 0;
  for (const previous of earlier) {
    let at = 0;
    const end = Math.min(previous.length, prompt.length);
    while (at < end && previous.charCodeAt(at) === prompt.charCodeAt(at)) at++;
    common = Math.max(common, at);
  }
  const tokens = Math.floor(common / 4);
  return tokens < 1024 ? 0 : Math.floor(tokens / 128) * 128;
}

/** The output items of a scripted turn. */
export function outputItems(
  turn: ResponsesLoopbackTurn,
  request: number,
  options: { summary: boolean; encrypt: ((id: string) => string) | undefined },
): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  if (turn.reasoning !== undefined) {
    const id = `rs_loopback_${request}`;
    items.push({
      id,
      type: "reasoning",
      summary: options.summary ? [{ type: "summary_text", text: turn.reasoning }] : [],
      ...(options.encrypt ? { encrypted_content: options.encrypt(id) } : {}),
    });
  }
  if (turn.text) {
    items.push({
      id: `msg_loopback_${request}`,
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: turn.text, annotations: [] }],
    });
  }
  for (const [position, call] of (turn.toolCalls ?? []).entries()) {
    items.push({
      id: `fc_loopback_${request}_${position}`,
      type: "function_call",
      status: "completed",
      call_id: call.callId ?? `call_loopback_${request}_${position}`,
      name: call.name,
      arguments: JSON.stringify(call.arguments ?? {}),
    });
  }
  return items;
}

/** The server-sent events of a streamed response, as the Responses API sends them. */
export function responseEvents(response: Record<string, any>): { event: string; data: Record<string, unknown> }[] {
  const events: { event: string; data: Record<string, unknown> }[] = [];
  const push = (type: string, data: Record<string, unknown>) => events.push({ event: type, data: { type, sequence_number: events.length, ...data } });
  push("response.created", { response: { ...response, status: "in_progress", output: [], usage: null } });
  for (const [index, item] of (response["output"] as Record<string, any>[]).entries()) {
    const at = { item_id: item["id"], output_index: index };
    if (item["type"] === "reasoning") {
      push("response.output_item.added", { output_index: index, item: { ...item, summary: [] } });
      for (const [summaryIndex, part] of (item["summary"] as { text: string }[]).entries()) {
        push("response.reasoning_summary_part.added", { ...at, summary_index: summaryIndex, part: { type: "summary_text", text: "" } });
        for (const piece of pieces(part.text, 12)) push("response.reasoning_summary_text.delta", { ...at, summary_index: summaryIndex, delta: piece });
        push("response.reasoning_summary_part.done", { ...at, summary_index: summaryIndex, part });
      }
    } else if (item["type"] === "message") {
      push("response.output_item.added", { output_index: index, item: { ...item, status: "in_progress", content: [] } });
      const text = item["content"][0].text as string;
      push("response.content_part.added", { ...at, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
      for (const piece of pieces(text, 8)) push("response.output_text.delta", { ...at, content_index: 0, delta: piece });
      push("response.output_text.done", { ...at, content_index: 0, text });
      push("response.content_part.done", { ...at, content_index: 0, part: item["content"][0] });
    } else {
      push("response.output_item.added", { output_index: index, item: { ...item, status: "in_progress", arguments: "" } });
      for (const piece of pieces(item["arguments"], 7)) push("response.function_call_arguments.delta", { ...at, delta: piece });
      push("response.function_call_arguments.done", { ...at, arguments: item["arguments"] });
    }
    push("response.output_item.done", { output_index: index, item });
  }
  push("response.completed", { response });
  return events;
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}
