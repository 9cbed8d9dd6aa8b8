import type { JsonObject, StoredThreadMessage } from "@agentrx/executors";

/** Reads the thread's messages with a seq below `before` (all when undefined), newest first, at most `limit`. */
export type ReadOlder = (before: number | undefined, limit: number) => Promise<StoredThreadMessage[]>;

/** What the window selection needs to know about a stored message, read from its JSON. */
interface MessageShape {
  type: string | undefined;
  /** A chat message's `role` (a `ChatMessage`, stored with type `generic`). */
  role: string | undefined;
  /** The ids of an AI message's tool calls (`undefined` for a call without one); empty when it has none. */
  toolCallIds: (string | undefined)[];
  /** A tool message's `tool_call_id`. */
  toolCallId: string | undefined;
}

/** The ids of the calls in a stored list of tool calls (`undefined` for one without an id). */
function callIds(calls: unknown): (string | undefined)[] {
  if (!Array.isArray(calls)) return [];
  return calls.map((call: unknown) => {
    const id = call !== null && typeof call === "object" && !Array.isArray(call) ? (call as JsonObject).id : undefined;
    return typeof id === "string" && id !== "" ? id : undefined;
  });
}

function shapeOf(stored: StoredThreadMessage): MessageShape {
  const { type, data } = stored.message as { type?: unknown; data?: unknown };
  const fields = (data !== null && typeof data === "object" ? data : {}) as JsonObject;
  // A model sends the calls it could not parse (`invalid_tool_calls`) and the provider's raw ones
  // (`additional_kwargs.tool_calls`) back as calls too: their answers belong with the message.
  const extra = fields.additional_kwargs;
  const raw = extra !== null && typeof extra === "object" && !Array.isArray(extra) ? (extra as JsonObject).tool_calls : undefined;
  const ids = callIds(fields.tool_calls);
  for (const id of [...callIds(fields.invalid_tool_calls), ...callIds(raw)]) if (id === undefined || !ids.includes(id)) ids.push(id);
  return {
    type: typeof type === "string" ? type : undefined,
    role: typeof fields.role === "string" ? fields.role : undefined,
    toolCallIds: ids,
    toolCallId: typeof fields.tool_call_id === "string" ? fields.tool_call_id : undefined,
  };
}

const isToolResult = (shape: MessageShape) => shape.type === "tool" || shape.type === "function";

/** A user's message: a `HumanMessage`, or a `ChatMessage` whose role is `user` or `human`. */
const isHuman = (shape: MessageShape) => shape.type === "human" || (shape.type === "generic" && (shape.role === "user" || shape.role === "human"));

/**
 * Which message a window the budget cut may start on: `"human"`, a user's message (the question
 * of its first turn is there); `"any"`, any message but a tool result.
 */
export type WindowStart = "human" | "any";

/** How {@link selectWindow} moves the start of a window the budget cut. */
export interface WindowOptions {
  /** Move the start in steps of this many messages (an integer >= 1). @default 1 */
  cutEvery?: number;
  /** Which message the window may start on. @default "human" */
  startOn?: WindowStart;
}

/**
 * The tool messages (oldest first) that answer an AI message's tool calls, or `undefined` when some
 * call has no answer. `following` are the tool messages right after it. When every call has an id,
 * only messages answering one of those ids belong to it (the others are orphans); otherwise the
 * calls are answered by position, one tool message each, and the tool messages past them are
 * orphans.
 */
function resultsOf(ids: (string | undefined)[], following: StoredThreadMessage[]): StoredThreadMessage[] | undefined {
  if (ids.every((id): id is string => id !== undefined)) {
    const answered = new Set<string | undefined>(following.map((message) => shapeOf(message).toolCallId));
    return ids.every((id) => answered.has(id)) ? following.filter((message) => ids.includes(shapeOf(message).toolCallId!)) : undefined;
  }
  // By position: the first tool message answers the first call, and so on; those past the calls answer none.
  return following.length >= ids.length ? following.slice(0, ids.length) : undefined;
}

/** Page sizes of the backward read: the first page, doubling up to the last. */
export const FIRST_PAGE = 50;
const LAST_PAGE = 1000;

/**
 * The newest messages of a thread whose stored token counts fit in `maxTokens`, oldest first:
 * read newest first, a page at a time, and stopped at the first message (or tool-call group) that
 * does not fit, so a long thread costs what its window costs. An AI message with tool calls and
 * the tool messages that answer them go in together or not at all; tool messages that answer no
 * call right before them, and AI messages whose calls are not all answered, are left out (chat
 * APIs reject both). The thread's first message, when it is a system message, is always kept, and
 * its tokens are counted first. When the budget cut the thread, the start then moves forward: to a
 * multiple of `cutEvery`, and (with `startOn: "human"`) to the first user's message at or after it,
 * leaving only the leading system message when there is none.
 */
export async function selectWindow(readOlder: ReadOlder, maxTokens: number, options: WindowOptions = {}): Promise<StoredThreadMessage[]> {
  const { cutEvery = 1, startOn = "human" } = options;
  const { window, cut } = await newestThatFit(readOlder, maxTokens);
  // A window that reaches the thread's start keeps it: its beginning cannot move yet.
  if (!cut) return window;
  const snapped = cutEvery > 1 ? snapStart(window, cutEvery) : window;
  return startOn === "human" ? startOnHuman(snapped) : snapped;
}

/** The leading system message of a window (the thread's first message), if any, and the rest. */
function splitSystem(window: StoredThreadMessage[]): { system: StoredThreadMessage | undefined; rest: StoredThreadMessage[] } {
  const system = window[0] !== undefined && window[0].seq === 1 && shapeOf(window[0]).type === "system" ? window[0] : undefined;
  return { system, rest: system === undefined ? window : window.slice(1) };
}

/**
 * The window from its first user's message (a leading system message stays): a cut window does not
 * open on an answer whose question was cut off. Without a user's message, the system message alone
 * (or nothing).
 */
function startOnHuman(window: StoredThreadMessage[]): StoredThreadMessage[] {
  const { system, rest } = splitSystem(window);
  let start = rest.findIndex((message) => isHuman(shapeOf(message)));
  if (start === -1) start = rest.length;
  if (start === 0) return window;
  const kept = rest.slice(start);
  return system === undefined ? kept : [system, ...kept];
}

/**
 * The window from its first message whose seq is past a multiple of `cutEvery` (a leading system
 * message stays), never starting on a tool result: the start moves only when the budget passes a
 * boundary, so consecutive windows of a growing thread share their beginning. Only for a window
 * the budget cut: one that holds the whole thread is kept whole.
 */
function snapStart(window: StoredThreadMessage[], cutEvery: number): StoredThreadMessage[] {
  const { system, rest } = splitSystem(window);
  const first = rest[0];
  if (first === undefined) return window;
  const boundary = Math.ceil((first.seq - 1) / cutEvery) * cutEvery + 1;
  let start = rest.findIndex((message) => message.seq >= boundary);
  if (start === -1) start = rest.length;
  while (start < rest.length && isToolResult(shapeOf(rest[start] as StoredThreadMessage))) start++;
  const kept = rest.slice(start);
  return system === undefined ? kept : [system, ...kept];
}

/** The newest messages that fit, and whether the budget left older ones out (`cut`). */
interface Fitted {
  window: StoredThreadMessage[];
  cut: boolean;
}

async function newestThatFit(readOlder: ReadOlder, maxTokens: number): Promise<Fitted> {
  let page = await readOlder(undefined, FIRST_PAGE);
  if (page.length === 0) return { window: [], cut: false };
  let first = page.at(-1)!.seq === 1 ? page.at(-1) : undefined;
  first ??= (await readOlder(2, 1))[0];
  const system = first !== undefined && first.seq === 1 && shapeOf(first).type === "system" ? first : undefined;
  let budget = maxTokens - (system?.tokens ?? 0);
  const selected: StoredThreadMessage[] = []; // newest first
  let pending: StoredThreadMessage[] = []; // tool messages not yet matched to their call, newest first
  let size = FIRST_PAGE;
  while (budget >= 0) {
    for (const message of page) {
      if (message.seq === system?.seq) return finish(system, selected, false);
      const shape = shapeOf(message);
      if (isToolResult(shape)) {
        pending.push(message);
        continue;
      }
      const following = pending.reverse();
      pending = [];
      let unit: StoredThreadMessage[] = [message];
      if (shape.type === "ai" && shape.toolCallIds.length > 0) {
        const results = resultsOf(shape.toolCallIds, following);
        if (results === undefined) continue; // calls without all their answers: left out, answers too
        unit = [message, ...results];
      }
      const cost = unit.reduce((sum, part) => sum + part.tokens, 0);
      if (cost > budget) return finish(system, selected, true);
      budget -= cost;
      for (let index = unit.length - 1; index >= 0; index--) selected.push(unit[index]!);
    }
    const oldest = page.at(-1)!.seq;
    if (oldest <= 1) break;
    size = Math.min(size * 2, LAST_PAGE);
    page = await readOlder(oldest, size);
    if (page.length === 0) break;
  }
  // Out of budget before the first message (a system message larger than maxTokens), or past it.
  return finish(system, selected, budget < 0);
}

function finish(system: StoredThreadMessage | undefined, selected: StoredThreadMessage[], cut: boolean): Fitted {
  selected.reverse();
  return { window: system === undefined ? selected : [system, ...selected], cut };
}
