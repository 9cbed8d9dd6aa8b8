import { type BaseMessage, isBaseMessage, mapChatMessagesToStoredMessages, mapStoredMessagesToChatMessages } from "@langchain/core/messages";
import type { StoredMessage } from "@langchain/core/messages";
import { sha256 } from "@langchain/core/utils/hash";
import { contentBlockKind } from "@agentrx/core";
import type { JsonObject, JsonValue } from "./run-store";

// Values that runs record (inputs, tool inputs, return values) as JSON. Messages go through
// @langchain/core's own message serialization; everything else follows JSON.stringify's rules
// (undefined and functions are dropped, Dates become ISO strings), except that a circular
// reference is an error instead of a crash deep inside a driver, and a part nested more than
// MAX_RECORDED_DEPTH levels deep is kept as a text that says what it was (see docs/runs.md, "What
// a record keeps"), so no recursive step (message serialization, the stores' JSON) overflows.

const TAG = "$agentrx";

/**
 * The deepest nesting of objects and arrays a run's record keeps of a value (a tool input, a
 * message's tool-call arguments): a part nested deeper is recorded as a text that names its path
 * and this limit, so recording never fails on a value and never changes what the run does.
 */
export const MAX_RECORDED_DEPTH = 100;

/** Converts messages to `@langchain/core`'s stored form (a part nested too deeply: see {@link MAX_RECORDED_DEPTH}). */
export function encodeMessages(messages: readonly BaseMessage[]): JsonValue[] {
  const shallow = messages.map((message) => (recordedFields(message).some(([, field]) => deeperThan(field, MAX_RECORDED_DEPTH - 1)) ? capMessage(message) : message));
  return mapChatMessagesToStoredMessages(shallow as BaseMessage[]) as unknown as JsonValue[];
}

/** The text that stands in a record for a part of a value nested more than {@link MAX_RECORDED_DEPTH} levels deep. */
export function leftOutText(path: string): string {
  return `[${path} is nested more than ${MAX_RECORDED_DEPTH}${LEFT_OUT_END}`;
}

const LEFT_OUT_END = ` levels deep: left out of the run record]`;

/**
 * The first {@link leftOutText} in a value read back from a record (a tool input whose deepest
 * part the record does not hold), or `undefined` when it holds all of it.
 */
export function leftOutPart(value: unknown, depth = 0): string | undefined {
  if (typeof value === "string") return value.startsWith("[") && value.endsWith(LEFT_OUT_END) ? value : undefined;
  if (typeof value !== "object" || value === null || depth > MAX_RECORDED_DEPTH) return undefined;
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    const found = leftOutPart(child, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The first {@link leftOutText} in a message read back from a record (its tool-call arguments or
 * content nested too deeply to record), or `undefined` when the record holds all of it.
 *
 * @internal
 */
export function leftOutOfMessage(message: BaseMessage): string | undefined {
  for (const [, value] of recordedFields(message)) {
    const found = leftOutPart(value, 2);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Whether `value` nests objects and arrays more than `max` levels deep (it looks no deeper than that). */
function deeperThan(value: unknown, max: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (max <= 0) return true;
  for (const child of Array.isArray(value) ? value : Object.values(value)) if (deeperThan(child, max - 1)) return true;
  return false;
}

/** A copy of `value` with every part nested deeper than `depth` levels replaced by {@link leftOutText}. */
function capDepth(value: unknown, path: string, depth: number): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (depth > MAX_RECORDED_DEPTH) return leftOutText(path);
  if (Array.isArray(value)) return value.map((item, index) => capDepth(item, `${path}[${index}]`, depth + 1));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = capDepth((value as Record<string, unknown>)[key], `${path}.${key}`, depth + 1);
  return out;
}

/**
 * The fields of a message that its stored form holds, with their values: its constructor's fields
 * (`lc_kwargs`), each as the message holds it now (a field set after construction), plus its parsed
 * tool calls. A chunk's streamed tool-call text is left out: it would be parsed into the same
 * arguments again.
 */
function recordedFields(message: BaseMessage): [string, unknown][] {
  const fields = (message as unknown as { lc_kwargs: Record<string, unknown> }).lc_kwargs;
  const own = message as unknown as Record<string, unknown>;
  const keys = new Set(Object.keys(fields));
  keys.delete("tool_call_chunks");
  for (const key of ["tool_calls", "invalid_tool_calls"]) if (Array.isArray(own[key])) keys.add(key);
  return [...keys].map((key) => [key, key in message ? own[key] : fields[key]]);
}

/** The message built anew from its fields with its too deeply nested parts left out (see {@link capDepth}). */
function capMessage(message: BaseMessage): BaseMessage {
  const capped: Record<string, unknown> = {};
  for (const [key, value] of recordedFields(message)) capped[key] = capDepth(value, `message.${key}`, 2);
  const Message = message.constructor as new (fields: Record<string, unknown>) => BaseMessage;
  return new Message(capped);
}

/** Converts messages back from `@langchain/core`'s stored form. */
export function decodeMessages(stored: unknown): BaseMessage[] {
  if (!Array.isArray(stored)) throw new TypeError("expected an array of stored messages");
  return mapStoredMessagesToChatMessages(stored as StoredMessage[]);
}

/**
 * A JSON value for `value`: messages become `{ $agentrx: "message", message }`, a plain object that
 * has a `$agentrx` key of its own is wrapped so it decodes as it was. A part nested more than
 * {@link MAX_RECORDED_DEPTH} levels deep is recorded as {@link leftOutText} of its path.
 *
 * @throws TypeError naming the path of a circular reference
 */
export function encodeValue(value: unknown, path = "value", seen: Set<object> = new Set(), depth = 1): JsonValue {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "bigint") return value.toString();
  if (typeof value !== "object") return null; // undefined, functions, symbols: as JSON.stringify in arrays
  if (isBaseMessage(value)) return { [TAG]: "message", message: encodeMessages([value])[0] as JsonValue };
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") return encodeValue(toJSON.call(value), path, seen, depth);
  if (depth > MAX_RECORDED_DEPTH) return leftOutText(path);
  if (seen.has(value)) throw new TypeError(`${path} contains a circular reference; a recorded run needs JSON-serializable values.`);
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item, index) => encodeValue(item, `${path}[${index}]`, seen, depth + 1));
    const out: JsonObject = {};
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key];
      if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
      setOwn(out, key, encodeValue(item, `${path}.${key}`, seen, depth + 1));
    }
    return TAG in out ? { [TAG]: "object", value: out } : out;
  } finally {
    seen.delete(value);
  }
}

/** The value {@link encodeValue} encoded. */
export function decodeValue(value: JsonValue): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(decodeValue);
  const tag = value[TAG];
  if (tag === "message") return decodeMessages([value["message"]])[0];
  if (tag === "object") return decodeObject(value["value"] as JsonObject);
  return decodeObject(value);
}

function decodeObject(value: JsonObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) setOwn(out, key, decodeValue(value[key] as JsonValue));
  return out;
}

/**
 * Sets `object[key]` as an own property: a key named `__proto__` (which `JSON.parse` makes an own
 * key of, from a user's JSON) would otherwise set the object's prototype and be lost.
 */
function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

/**
 * The most base64 characters of one image (or file, audio clip or video) in an observation that a
 * run's record keeps (about 384 KB); a larger one is recorded as a text block that says what it was.
 *
 * @example
 * ```ts
 * import { MAX_RECORDED_IMAGE_CHARS } from "@agentrx/executors";
 *
 * console.log(MAX_RECORDED_IMAGE_CHARS); // 524288
 * ```
 */
export const MAX_RECORDED_IMAGE_CHARS = 512 * 1024;

/**
 * An observation as a record keeps it: text as it is; content with its images, files, audio and
 * video kept up to {@link MAX_RECORDED_IMAGE_CHARS} of base64 each (a larger one is replaced by a text block that
 * says what it was), so no event carries unbounded base64.
 */
export function encodeObservation(observation: unknown): JsonValue {
  if (!Array.isArray(observation)) return typeof observation === "string" ? observation : String(observation ?? "");
  return observation.map((block: Record<string, unknown>, index) => {
    const kind = contentBlockKind(block);
    const size = kind === "image" || kind === "file" || kind === "audio" || kind === "video" ? (inlineData(block)?.length ?? 0) : 0;
    if (size <= MAX_RECORDED_IMAGE_CHARS) return encodeValue(block, `observation[${index}]`);
    return { type: "text", text: `[${mediaType(block, kind as string)} ${kind} of ${kilobytes(size)} KB, left out of the run record: too large to keep]` };
  });
}

/**
 * A run's inputs as a record keeps them (see {@link encodeValue}), with every image block of their
 * messages' content (a `HumanMessage` with a photo in the history) kept up to
 * {@link MAX_RECORDED_IMAGE_CHARS} of base64; a larger one is replaced by a text block that gives
 * its type, its size and the SHA-256 of its base64, so the record stays small and still names the
 * image the run was given.
 */
export function encodeInputs(inputs: unknown): JsonValue {
  return capImages(encodeValue(inputs, "inputs"));
}

function capImages(value: JsonValue): JsonValue {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(capImages);
  const data = value["type"] === "image" || value["type"] === "image_url" ? inlineData(value) : undefined;
  if (data !== undefined && data.length > MAX_RECORDED_IMAGE_CHARS) {
    return { type: "text", text: `[${mediaType(value, "image")} image of ${kilobytes(data.length)} KB, sha256 ${sha256(data)}, left out of the run record: too large to keep]` };
  }
  const out: JsonObject = {};
  for (const key of Object.keys(value)) out[key] = capImages(value[key] as JsonValue);
  return out;
}

/**
 * A media block's media type: its `mimeType` (v0: `mime_type`; Anthropic: `source.media_type`),
 * that of its `data:` URL, or `<kind>/<format>` for OpenAI's `input_audio`; else `kind`.
 */
function mediaType(block: Record<string, unknown>, kind: string): string {
  const declared = block["mimeType"] ?? block["mime_type"] ?? nested(block, "source")?.["media_type"];
  if (typeof declared === "string" && declared !== "") return declared;
  const fromUrl = dataUrlOf(block)?.match(/^data:([^;,]+)/)?.[1];
  if (fromUrl !== undefined) return fromUrl;
  const format = nested(block, "input_audio")?.["format"];
  return typeof format === "string" ? `${kind}/${format}` : kind;
}

function kilobytes(base64Chars: number): number {
  return Math.round((base64Chars * 3) / 4 / 1024);
}

/** The observation {@link encodeObservation} encoded. */
export function decodeObservation(value: JsonValue | undefined): string | Record<string, unknown>[] {
  if (Array.isArray(value)) return value.map((block) => decodeValue(block) as Record<string, unknown>);
  return typeof value === "string" ? value : String(value ?? "");
}

/**
 * A media block's inline data, as the record would carry it: base64 (`data`; Anthropic's
 * `source.data`; OpenAI's `input_audio.data`) or a `data:` URL (`url`, `image_url`, OpenAI's
 * `file.file_data`); undefined for one known by an `https:` URL or an id.
 */
function inlineData(block: Record<string, unknown>): string | undefined {
  const data = block["data"] ?? nested(block, "source")?.["data"] ?? nested(block, "input_audio")?.["data"];
  return typeof data === "string" ? data : dataUrlOf(block);
}

/** A block's `data:` URL: its `url`, its `image_url` (a string or `{ url }`), or OpenAI's `file.file_data`. */
function dataUrlOf(block: Record<string, unknown>): string | undefined {
  const imageUrl = block["image_url"];
  const candidates = [block["url"], typeof imageUrl === "string" ? imageUrl : nested(block, "image_url")?.["url"], nested(block, "file")?.["file_data"]];
  return candidates.find((value): value is string => typeof value === "string" && value.startsWith("data:"));
}

function nested(block: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const value = block[key];
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
}
