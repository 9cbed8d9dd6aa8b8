// What travels on a run's Redis channel: JSON arrays of items, one PUBLISH per store write (or per
// live token). Recorded events carry their `seq`; live tokens carry where their text sits in the
// model call's text, so a client can tell what it has already shown. @internal
import { RECORD_ONLY_EVENT_TYPES, type JsonObject, type StoredRunEvent } from "@agentrx/executors";

/** A streamed token as it happened, before the record coalesces it. */
export interface LiveToken {
  /** The `seq` of the `start` event of the run segment the token belongs to. */
  segment: number;
  iteration: number;
  /** Characters of this model call's text before this token (in this segment). */
  offset: number;
  text: string;
  at: number;
}

/** A record-only entry (`model_call`, `decisions`): only its position matters to a client. */
export interface RecordOnlyStub {
  seq: number;
  type: string;
}

/**
 * A token of a sub-run (an executor the run called as a tool): emitted live, never recorded, so it
 * travels like a live token, without a `seq`. (The sub-run's other events are recorded by the
 * calling run and travel with their `seq`.)
 */
export interface SubRunEvent {
  /** The `subRun` path (tool names). */
  path: string[];
  /** The `subRunCallIds` path (the tool calls that started each sub-run), when the event has it. */
  callIds?: string[];
  /** The event in the record's JSON form (`encodeRunEvent`). */
  data: JsonObject;
}

/** A worker is done with the run for now (it finished, paused, failed, was cancelled or handed back). */
export interface RunSettled {
  status: string;
}

export type WireItem = StoredRunEvent | RecordOnlyStub | { live: LiveToken } | { sub: SubRunEvent } | { end: RunSettled };

/** Entries of the record that are not stream events. */
export const RECORD_ONLY_TYPES: ReadonlySet<string> = RECORD_ONLY_EVENT_TYPES;

export function encodeWire(items: readonly WireItem[]): string {
  return JSON.stringify(items);
}

/** The items of a message; anything malformed is dropped (the store, read again, has the truth). */
export function decodeWire(message: string): WireItem[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.filter(isWireItem);
}

export function isLive(item: WireItem): item is { live: LiveToken } {
  return "live" in item;
}

export function isSubRun(item: WireItem): item is { sub: SubRunEvent } {
  return "sub" in item;
}

export function isEnd(item: WireItem): item is { end: RunSettled } {
  return "end" in item;
}

/** A recorded event with its data (not a stub). */
export function isStored(item: WireItem): item is StoredRunEvent {
  return "seq" in item && "data" in item;
}

function isWireItem(value: unknown): value is WireItem {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const item = value as Record<string, unknown>;
  if ("live" in item) {
    const live = item["live"] as Partial<LiveToken> | null;
    return (
      live !== null &&
      typeof live === "object" &&
      typeof live.segment === "number" &&
      typeof live.iteration === "number" &&
      typeof live.offset === "number" &&
      typeof live.text === "string"
    );
  }
  if ("sub" in item) {
    const sub = item["sub"] as Partial<SubRunEvent> | null;
    return (
      sub !== null &&
      typeof sub === "object" &&
      Array.isArray(sub.path) &&
      (sub.callIds === undefined || (Array.isArray(sub.callIds) && sub.callIds.every((id) => typeof id === "string"))) &&
      sub.data !== null &&
      typeof sub.data === "object"
    );
  }
  if ("end" in item) return item["end"] !== null && typeof item["end"] === "object";
  if (typeof item["seq"] !== "number" || !Number.isInteger(item["seq"]) || item["seq"] < 1 || typeof item["type"] !== "string") return false;
  return !("data" in item) || (item["data"] !== null && typeof item["data"] === "object" && !Array.isArray(item["data"]));
}
