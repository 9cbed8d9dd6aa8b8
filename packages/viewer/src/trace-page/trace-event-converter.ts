import { PausedCalls, RunEventDecoder, type StoredRunEvent } from "@agentrx/executors";
import { isBaseMessage, mapStoredMessagesToChatMessages, type BaseMessage, type StoredMessage, type UsageMetadata } from "@langchain/core/messages";
import { observationText } from "@agentrx/core";
import { CappedText } from "./capped-text";
import type { TraceEdit, TraceEvent, TraceImage, TraceMessage, TracePausedCall, TraceRequest, TraceUsage } from "./trace-data";
import { TraceImageCollector } from "./trace-images";
import { isUnreadableRunEvent, type ReadableRunEntry, type UnreadableRunEvent } from "./read-readable-events";
import { cutText } from "./cut-text";

/** A trace event whose texts are {@link CappedText}s (they serialize as `TraceText`). */
export type ServerTraceEvent = TraceEvent<CappedText>;

/**
 * Turns a run's recorded events into the trace page's events, in order (it decodes them with
 * `RunEventDecoder`, so feed it every event of a run from the first). Every long text it makes is
 * collected in `texts`, for {@link capTexts} to share the page's budget among them. An event it
 * cannot read (one the store could not give, see {@link readReadableEvents}, or one the decoder
 * rejects, such as a step whose action is unreadable) becomes an `other` event with an `error`
 * that says why, so one bad event does not hide the run.
 *
 * @internal
 */
export class TraceEventConverter {
  /** The texts made so far. */
  readonly texts: CappedText[] = [];
  /** The texts of the recorded requests (`recordPrompts`) made so far: they have a budget of their own. */
  readonly requestTexts: CappedText[] = [];
  /** The request parts recorded so far, by hash (each is recorded once, with the call that first sent it). */
  private readonly blobs = new Map<string, unknown>();
  /**
   * The page's form of each request part made so far, by its content (a message's or tool list's
   * hash, a settings text): the requests that repeat a part share one object, whose texts are in
   * `requestTexts` once.
   */
  private readonly requestParts = new Map<string, TraceMessage<CappedText> | CappedText>();
  /** The keys of `requestParts` in the order they were made (an event given up on takes its own back). */
  private readonly requestPartKeys: string[] = [];
  /** The images the page embeds share a budget. */
  private readonly images = new TraceImageCollector();
  /** The calls the pauses so far wait on, by run (`""`, or a sub-run's path): what a decision names. */
  private readonly pausedCalls = new Map<string, PausedCalls>();
  /** Where `text` puts the texts it makes. */
  private sink: CappedText[] = this.texts;
  private readonly decoder: RunEventDecoder;

  /**
   * @param options.tokenText Keep the text of `token` events (a live page shows the reply of the
   *   model call still streaming); without it a token event carries only its length.
   */
  constructor(
    runId: string,
    private readonly options: { tokenText?: boolean } = {},
  ) {
    this.decoder = new RunEventDecoder(runId);
  }

  /** The page's form of an entry of the record: an event, or one that cannot be read. */
  convert(entry: ReadableRunEntry): ServerTraceEvent {
    if (isUnreadableRunEvent(entry)) return this.unreadable(entry);
    const texts = this.texts.length;
    const requestTexts = this.requestTexts.length;
    const requestParts = this.requestPartKeys.length;
    try {
      return this.convertEvent(entry);
    } catch (error) {
      this.texts.length = texts; // the texts of an event given up on
      this.requestTexts.length = requestTexts;
      for (const key of this.requestPartKeys.splice(requestParts)) this.requestParts.delete(key);
      this.sink = this.texts;
      return { type: "other", seq: entry.seq, at: entry.at, name: String(entry.type), error: error instanceof Error ? error.message : String(error) };
    }
  }

  /** An event the store could not give: a row of its own, named by its `seq`. */
  private unreadable(entry: UnreadableRunEvent): ServerTraceEvent {
    return { type: "other", seq: entry.seq, at: entry.at, name: `event ${entry.seq}`, error: entry.error };
  }

  private convertEvent(stored: StoredRunEvent): ServerTraceEvent {
    const decoded = this.decoder.decode(stored) as { type: string; at?: number; subRun?: unknown; subRunCallIds?: unknown };
    if (Array.isArray(decoded.subRun)) {
      // A sub-run's event or model call (an executor called as a tool): the page draws it under the tool call.
      const { subRun, subRunCallIds, ...own } = decoded;
      const path = (subRun as unknown[]).map(String);
      const event = this.convertDecoded({ ...stored, data: { ...stored.data, subRun: null, subRunCallIds: null } }, own, JSON.stringify(path));
      const out: ServerTraceEvent = { type: "sub_run", seq: stored.seq, at: event.at, path, event: event as Exclude<ServerTraceEvent, { type: "sub_run" }> };
      if (Array.isArray(subRunCallIds)) out.callIds = subRunCallIds.map(String);
      return out;
    }
    return this.convertDecoded(stored, decoded);
  }

  /** `scope` names the run the event is of (`""`, or a sub-run's path), for the pauses its decisions answer. */
  private convertDecoded(stored: StoredRunEvent, decoded: { type: string; at?: number }, scope = ""): ServerTraceEvent {
    const { seq } = stored;
    const at = typeof decoded.at === "number" ? decoded.at : stored.at;
    const event = decoded as Record<string, any>;
    switch (decoded.type) {
      case "start": {
        const images: TraceImage[] = [];
        return {
          type: "start",
          seq,
          at,
          runId: String(event["runId"]),
          ...(typeof event["threadId"] === "string" ? { threadId: event["threadId"] } : {}),
          inputs: this.text(jsonText(this.images.strip(plain(event["inputs"]), images))),
          ...withImages(images),
          resumed: event["resumed"] === true,
          ...forkOfStart(event["forkOf"]),
        };
      }
      case "model_call":
        return {
          type: "model_call",
          seq,
          at,
          iteration: Number(event["iteration"]),
          call: Number(event["call"]),
          durationMs: Number(event["durationMs"]),
          inputCount: Number(event["inputCount"]),
          inputDigest: String(event["inputDigest"]),
          reply: this.message(event["message"]),
          ...this.requestOf(stored),
        };
      case "token": {
        const text = String(event["text"] ?? "");
        return { type: "token", seq, at, iteration: Number(event["iteration"]), chars: text.length, ...(this.options.tokenText ? { text } : {}) };
      }
      case "usage":
        return { type: "usage", seq, at, iteration: Number(event["iteration"]), usage: usageOf(event["usage"]), ...(typeof event["model"] === "string" ? { model: event["model"] } : {}) };
      case "action": {
        // A sub-run's action without its position (an older record): the page places it, never by a guessed 0.
        const index = typeof stored.data["index"] === "number" ? stored.data["index"] : scope === "" ? 0 : null;
        const action = event["action"];
        const images: TraceImage[] = [];
        return {
          type: "action",
          seq,
          at,
          iteration: Number(event["iteration"]),
          index,
          tool: String(action.tool),
          ...toolCallIdOf(action),
          toolInput: this.text(inputText(this.images.strip(action.toolInput, images))),
          ...withImages(images),
          log: this.text(String(action.log ?? "")),
          ...(typeof event["idempotencyKey"] === "string" ? { idempotencyKey: event["idempotencyKey"] } : {}),
          ...(event["early"] === true ? { early: true } : {}),
        };
      }
      case "step": {
        const { action, observation } = event["step"];
        const standalone = typeof stored.data["index"] !== "number";
        const metadata = event["metadata"];
        const images: TraceImage[] = [];
        const toolInput = standalone ? this.text(inputText(this.images.strip(action.toolInput, images))) : undefined;
        // Images show as thumbnails or placeholders of their own; the text marks their places.
        const shown = observationText(this.images.strip(observation, images));
        return {
          type: "step",
          seq,
          at,
          iteration: Number(event["iteration"]),
          index: standalone ? null : (stored.data["index"] as number),
          tool: String(action.tool),
          ...toolCallIdOf(action),
          ...(toolInput !== undefined ? { toolInput } : {}),
          observation: this.text(shown),
          ...withImages(images),
          durationMs: Number(event["durationMs"]),
          ...(metadata !== undefined && metadata !== null ? { metadata: plain(metadata) as Record<string, unknown> } : {}),
        };
      }
      case "output": {
        const stoppedBy = event["stoppedBy"];
        return {
          type: "output",
          seq,
          at,
          // A damaged record's missing field shows as missing, not as the word "undefined".
          output: this.text(event["output"] === undefined || event["output"] === null ? "" : String(event["output"])),
          stopReason: typeof event["stopReason"] === "string" && event["stopReason"] !== "" ? event["stopReason"] : "(not recorded)",
          ...(event["usage"] !== undefined ? { usage: usageOf(event["usage"]) } : {}),
          ...(stoppedBy !== undefined ? { stoppedBy: typeof stoppedBy === "string" ? stoppedBy : jsonText(plain(stoppedBy)) } : {}),
        };
      }
      case "compaction":
        // The summary the agent saw in place of the run's first steps (compactSteps).
        return {
          type: "other",
          seq,
          at,
          name: "compaction",
          note: `${String(event["middleware"] || "a middleware")} summarized the first ${Number(event["steps"])} steps (iteration ${Number(event["iteration"])})`,
          summary: this.text(String(event["summary"])),
        };
      case "middleware":
        return { type: "other", seq, at, name: `middleware: ${String(event["name"])}`, note: jsonText(plain(event["data"])) };
      default: {
        const images: TraceImage[] = [];
        return {
          type: "other",
          seq,
          at,
          name: String(decoded.type),
          ...noteOf(event),
          ...this.otherSummary(stored, event, images),
          ...withImages(images),
          ...pausedOf(event),
          ...this.pauseOrEdits(event, scope),
        };
      }
    }
  }

  private text(text: string): CappedText {
    const capped = new CappedText(text);
    this.sink.push(capped);
    return capped;
  }

  /**
   * The exact request of a model call recorded with `recordPrompts`: its parts, by hash, from this
   * event's `blobs` or an earlier call's (as `readPrompts` of `@agentrx/runs` rebuilds them). A
   * part an earlier request had is the same object (see `requestParts`).
   */
  private requestOf(stored: StoredRunEvent): { request?: TraceRequest<CappedText> } {
    const blobs = stored.data["blobs"];
    if (blobs !== null && typeof blobs === "object" && !Array.isArray(blobs)) for (const [hash, value] of Object.entries(blobs)) this.blobs.set(hash, value);
    const ref = stored.data["prompt"] as Record<string, unknown> | null | undefined;
    if (ref === null || typeof ref !== "object" || Array.isArray(ref)) return {};
    const part = (hash: unknown): unknown => {
      const value = typeof hash === "string" ? this.blobs.get(hash) : undefined;
      if (value === undefined) throw new Error(`model call ${String(stored.data["call"])} refers to a prompt part ${JSON.stringify(hash)} that is not in the record`);
      return value;
    };
    const hashes = Array.isArray(ref["messages"]) ? ref["messages"] : [];
    const messages = hashes.map((hash) => [hash as string, part(hash)] as const);
    const tools = ref["tools"] !== undefined ? part(ref["tools"]) : undefined;
    this.sink = this.requestTexts;
    try {
      // A blob's hash is the hash of its JSON: the same hash, the same content.
      const request: TraceRequest<CappedText> = {
        hash: String(ref["hash"] ?? ""),
        messages: messages.map(([hash, message]) => this.requestPart(`message ${hash}`, () => this.message(revive(message)))),
      };
      if (tools !== undefined) {
        request.tools = this.requestPart(`tools ${String(ref["tools"])}`, () => this.text(jsonText(tools)));
        if (Array.isArray(tools)) request.toolCount = tools.length;
      }
      if (ref["settings"] !== undefined) {
        const settings = jsonText(ref["settings"]);
        request.settings = this.requestPart(`settings ${settings}`, () => this.text(settings));
      }
      return { request };
    } finally {
      this.sink = this.texts;
    }
  }

  /** The request part of `key`: the one made for an earlier request, else a new one (`make`). */
  private requestPart<P extends TraceMessage<CappedText> | CappedText>(key: string, make: () => P): P {
    const known = this.requestParts.get(key);
    if (known !== undefined) return known as P;
    const made = make();
    this.requestParts.set(key, made);
    this.requestPartKeys.push(key);
    return made;
  }

  private message(value: unknown): TraceMessage<CappedText> {
    if (!isBaseMessage(value)) return { role: "unknown", content: this.text(jsonText(plain(value))) };
    const message = value as BaseMessage & { tool_calls?: { id?: string; name: string; args: unknown }[] };
    const images: TraceImage[] = [];
    const hasCalls = Array.isArray(message.tool_calls) && message.tool_calls.length > 0;
    const out: TraceMessage<CappedText> = {
      role: message.getType(),
      content: this.text(replyText(this.images.strip(message.content, images), hasCalls)),
      ...withImages(images),
    };
    const reasoning = reasoningText(message);
    if (reasoning !== undefined) out.reasoning = this.text(reasoning);
    if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
      out.toolCalls = message.tool_calls.map((call) => ({
        ...(typeof call.id === "string" ? { id: call.id } : {}),
        name: String(call.name),
        args: this.text(jsonText(plain(call.args))),
      }));
    }
    return out;
  }

  /**
   * Remembers the calls a pause (`interrupt`) waits on; for a resume's `decisions`, the inputs its
   * edits gave those calls (they ran with them, not with what the model asked for).
   */
  private pauseOrEdits(event: Record<string, any>, scope: string): { edits?: TraceEdit<CappedText>[] } {
    if (event["type"] !== "interrupt" && event["type"] !== "decisions") return {};
    let paused = this.pausedCalls.get(scope);
    if (paused === undefined) this.pausedCalls.set(scope, (paused = new PausedCalls()));
    if (event["type"] === "interrupt") return (paused.paused(event["interrupts"]), {});
    const edits = paused.edits(event["decisions"]).map(({ iteration, index, toolInput }) => ({ iteration, index, toolInput: this.text(inputText(this.images.strip(toolInput, []))) }));
    return edits.length > 0 ? { edits } : {};
  }

  /**
   * What an event this page has no view for says: a summary of its data (an approval's tool calls,
   * ...); a message sent to the run, its whole text. Their images go to `images`, marked in the text.
   */
  private otherSummary(stored: StoredRunEvent, event: Record<string, any>, images: TraceImage[]): { summary?: CappedText } {
    if (event["type"] === "message" && isBaseMessage(event["message"])) return { summary: this.text(contentText(this.images.strip((event["message"] as BaseMessage).content, images))) };
    const { type: _type, at: _at, subRun: _subRun, subRunCallIds: _ids, ...rest } = stored.data;
    return Object.keys(rest).length > 0 ? { summary: this.text(jsonText(this.images.strip(rest, images))) } : {};
  }
}

/** `{ images }` when there are any. */
function withImages(images: TraceImage[]): { images?: TraceImage[] } {
  return images.length > 0 ? { images } : {};
}

/** A message in `@langchain/core`'s stored form as a message (the value itself when it is not one). */
function revive(value: unknown): unknown {
  try {
    const [message] = mapStoredMessagesToChatMessages([value as StoredMessage]);
    return message ?? value;
  } catch {
    return value;
  }
}

/** One line about an event the page shows as is: a pause for approval, the decisions that ended it. */
function noteOf(event: Record<string, any>): { note?: string } {
  if (event["type"] === "interrupt" && Array.isArray(event["interrupts"])) {
    const interrupts = event["interrupts"] as { tool?: unknown; reason?: unknown }[];
    const tools = (inDoubt: boolean) => interrupts.filter((interrupt) => (interrupt?.reason === "in_doubt") === inDoubt).map((interrupt) => String(interrupt?.tool));
    const [approval, doubt] = [tools(false), tools(true)];
    // A call in doubt started before a crash or a cancellation: it may have run, so it is not "waiting for approval".
    const notes = [
      ...(approval.length > 0 ? [`waiting for approval of ${approval.join(", ")}`] : []),
      ...(doubt.length > 0 ? [`in doubt (started, no recorded result: it may have run), waiting for a decision: ${doubt.join(", ")}`] : []),
    ];
    return { note: notes.join("; ") };
  }
  if (event["type"] === "message" && isBaseMessage(event["message"])) {
    // A message sent to the run (executor.send): it joined before this iteration's agent call.
    const text = oneLine(contentText(new TraceImageCollector(0).strip((event["message"] as BaseMessage).content, [])));
    // Unanswered: it came as the run was ending, after its last agent call.
    if (event["unanswered"] === true) return { note: `message sent to the run as it was ending (unanswered): ${text}` };
    return { note: `message sent to the run before iteration ${Number(event["iteration"]) + 1}: ${text}` };
  }
  if (event["type"] === "decisions" && event["decisions"] !== null && typeof event["decisions"] === "object") {
    const kinds = Object.values(event["decisions"] as Record<string, unknown>).map((decision) => (typeof decision === "string" ? decision : String((decision as { type?: unknown })?.type)));
    return { note: `resumed with ${kinds.length} decision${kinds.length === 1 ? "" : "s"}: ${kinds.join(", ")}` };
  }
  return {};
}

/** A pause's calls (an `interrupt` event's `interrupts`): where each is and why it waits. */
function pausedOf(event: Record<string, any>): { paused?: TracePausedCall[] } {
  if (event["type"] !== "interrupt" || !Array.isArray(event["interrupts"])) return {};
  const paused: TracePausedCall[] = [];
  for (const interrupt of event["interrupts"] as { iteration?: unknown; index?: unknown; reason?: unknown }[]) {
    if (typeof interrupt?.iteration !== "number" || typeof interrupt.index !== "number") continue;
    paused.push({ iteration: interrupt.iteration, index: interrupt.index, reason: interrupt.reason === "in_doubt" ? "in_doubt" : "approval" });
  }
  return paused.length > 0 ? { paused } : {};
}

/** The first line of a text, at most 200 characters. */
function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 200 ? `${cutText(line, 199)}…` : line;
}

/** A value with its `@langchain/core` messages as `{ role, content, toolCalls? }`, for reading. */
function plain(value: unknown, depth = 0): unknown {
  if (isBaseMessage(value)) {
    const message = value as BaseMessage & { tool_calls?: unknown[] };
    const out: Record<string, unknown> = { role: message.getType(), content: message.content };
    if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0) out["toolCalls"] = message.tool_calls;
    return out;
  }
  if (depth > 50 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => plain(item, depth + 1));
  if (value instanceof Date) return value.toISOString();
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = plain(item, depth + 1);
  return out;
}

function jsonText(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, (_key, item: unknown) => (typeof item === "bigint" ? item.toString() : item), 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A tool input as a person reads it: a string as it is, anything else as JSON. */
function inputText(value: unknown): string {
  return typeof value === "string" ? value : jsonText(plain(value));
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return jsonText(content);
  return content
    .map((part: unknown) => {
      const text = (part as { type?: unknown; text?: unknown } | null)?.text;
      return typeof text === "string" ? text : jsonText(part);
    })
    .join("");
}

/** A content block's `type`, if it has one. */
function blockType(part: unknown): unknown {
  return part !== null && typeof part === "object" ? (part as { type?: unknown }).type : undefined;
}

/** The blocks that carry a model's reasoning: Anthropic's and Gemini's `thinking`, the Responses API's `reasoning`. */
const REASONING_BLOCKS = new Set(["thinking", "redacted_thinking", "reasoning"]);
/** The blocks that repeat a reply's tool calls (shown as its tool calls). */
const TOOL_CALL_BLOCKS = new Set(["tool_use", "tool_call", "input_json_delta", "function_call"]);

/**
 * A model reply's text: its content without the reasoning blocks (see {@link reasoningText}) and,
 * when it has tool calls, without the blocks that repeat them.
 */
function replyText(content: unknown, hasCalls: boolean): string {
  if (!Array.isArray(content)) return contentText(content);
  return contentText(content.filter((part: unknown) => !REASONING_BLOCKS.has(blockType(part) as string) && !(hasCalls && TOOL_CALL_BLOCKS.has(blockType(part) as string))));
}

/**
 * The reasoning a model reply carries, as text: its `thinking` blocks (Anthropic with extended
 * thinking, Gemini with thoughts), its `reasoning` blocks (the Responses API's summaries), else its
 * `additional_kwargs.reasoning_content` (DeepSeek's thinking mode and other Chat Completions
 * servers) or the Responses API's `additional_kwargs.reasoning` summary; a redacted block is named
 * as such. `undefined` when there is none.
 */
function reasoningText(message: BaseMessage): string | undefined {
  const parts: string[] = [];
  if (Array.isArray(message.content)) {
    for (const part of message.content as unknown[]) {
      const type = blockType(part);
      const block = part as { thinking?: unknown; reasoning?: unknown };
      if (type === "thinking" && typeof block.thinking === "string") parts.push(block.thinking);
      else if (type === "reasoning" && typeof block.reasoning === "string") parts.push(block.reasoning);
      else if (type === "redacted_thinking") parts.push("[redacted thinking]");
    }
  }
  if (parts.length > 0) return parts.join("\n\n");
  const kwargs = (message.additional_kwargs ?? {}) as { reasoning_content?: unknown; reasoning?: { summary?: unknown } };
  if (typeof kwargs.reasoning_content === "string" && kwargs.reasoning_content !== "") return kwargs.reasoning_content;
  const summary = kwargs.reasoning?.summary;
  if (Array.isArray(summary)) {
    const text = summary.map((item: { text?: unknown }) => (typeof item?.text === "string" ? item.text : "")).join("");
    if (text !== "") return text;
  }
  return undefined;
}

/** A fork's `start` event's `forkOf`: the run it was forked from and after which iteration. */
function forkOfStart(value: unknown): { forkOf?: { runId: string; iteration: number } } {
  const forkOf = value as { runId?: unknown; iteration?: unknown } | undefined;
  return typeof forkOf?.runId === "string" && typeof forkOf.iteration === "number" ? { forkOf: { runId: forkOf.runId, iteration: forkOf.iteration } } : {};
}

function toolCallIdOf(action: unknown): { toolCallId?: string } {
  const id = (action as { toolCallId?: unknown }).toolCallId;
  return typeof id === "string" ? { toolCallId: id } : {};
}

/** The page's view of a recorded usage: counts, the cache and reasoning details when reported, its cost and unpriced calls. @internal */
export function usageOf(value: unknown): TraceUsage {
  const usage = (value ?? {}) as Partial<UsageMetadata>;
  const input = Number(usage.input_tokens ?? 0) || 0;
  const output = Number(usage.output_tokens ?? 0) || 0;
  const out: TraceUsage = { input, output, total: Number(usage.total_tokens ?? input + output) || 0 };
  const detail = (group: unknown, key: string): number | undefined => {
    const count = (group as Record<string, unknown> | undefined)?.[key];
    return typeof count === "number" && Number.isFinite(count) ? count : undefined;
  };
  const cacheRead = detail(usage.input_token_details, "cache_read");
  const cacheCreation = detail(usage.input_token_details, "cache_creation");
  const reasoning = detail(usage.output_token_details, "reasoning");
  if (cacheRead !== undefined) out.cacheRead = cacheRead;
  if (cacheCreation !== undefined) out.cacheCreation = cacheCreation;
  if (reasoning !== undefined) out.reasoning = reasoning;
  const cost = (value as { cost?: { total?: unknown } } | undefined)?.cost?.total;
  if (typeof cost === "number" && Number.isFinite(cost)) out.cost = cost;
  const unpriced = (value as { unpricedCalls?: unknown } | undefined)?.unpricedCalls;
  if (typeof unpriced === "number" && Number.isFinite(unpriced) && unpriced >= 0) out.unpricedCalls = unpriced;
  return out;
}
