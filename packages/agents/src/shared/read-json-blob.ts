import { parseLenientJson } from "./parse-lenient-json";
import { skipSpace } from "./scan";

const FENCE = "```";

/** What {@link readJsonBlob} found in a model's text. */
export type JsonBlobRead =
  /** No fenced JSON block, and the text is not JSON itself. */
  | { kind: "none" }
  /** A fenced JSON block that is never closed. */
  | { kind: "unclosed" }
  /** JSON that does not parse; `error` says why. */
  | { kind: "invalid"; source: string; error: string }
  /**
   * Parsed JSON (the first element of a list), with the text it came from; `start` and `end` bound
   * the blob in the text, fences included.
   */
  | { kind: "json"; source: string; value: unknown; start: number; end: number };

/**
 * Reads the JSON blob of a model's text: the first fenced block tagged `json` (any case), or
 * untagged with content that starts with `{` or `[` (other fenced blocks, such as code tagged
 * `python` or `js` in an answer even when it starts with `{` or `[`, are skipped; a fence inside a
 * JSON string does not close the block);
 * else, with `bare`, the whole text when it starts with `{` or `[`. Raw newlines and tabs inside
 * strings are accepted; a list stands for its first element. Linear in the length of the text.
 *
 * @internal Shared by the JSON agent parsers.
 */
export function readJsonBlob(text: string, { bare = true }: { bare?: boolean } = {}): JsonBlobRead {
  const fence = findBlobFence(text);
  if (fence !== undefined) {
    if (fence.close === -1) return { kind: "unclosed" };
    return parse(text.slice(fence.bodyStart, fence.close).trim(), fence.open, fence.close + FENCE.length);
  }
  const trimmed = text.trim();
  if (bare && (trimmed.startsWith("{") || trimmed.startsWith("["))) return parse(trimmed, 0, text.length);
  return { kind: "none" };
}

/** An action blob that starts a line after other text (after `Action:` or a thought), not fenced. */
const LINE_BLOB = /(?:^|\n)[^\S\n]*(?:Action:[^\S\n]*\n?[^\S\n]*)?(\{\s*"action"\s*:)/;

/**
 * The action blob a model wrote without a fence after other text (`Thought: ...\nAction:\n{"action":
 * ...}`): the JSON from the `{` that starts a line (or follows `Action:`) and opens with an
 * `"action"` key, to the end of the text; undefined when there is none. Read as {@link readJsonBlob}
 * reads a bare blob, so a blob followed by more text is `invalid`.
 *
 * @internal Shared by the JSON agent parsers.
 */
export function readLineBlob(text: string): JsonBlobRead | undefined {
  const match = LINE_BLOB.exec(text);
  if (match === null || match[1] === undefined) return undefined;
  const start = match.index + match[0].length - match[1].length;
  return parse(text.slice(start).trim(), start, text.length);
}

/** A JSON blob with a string `action`. */
export interface ActionBlob {
  action: string;
  action_input?: unknown;
}

/** Whether `value` is an object with a string `action`. */
export function isActionBlob(value: unknown): value is ActionBlob {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && typeof (value as { action?: unknown }).action === "string"
  );
}

function parse(source: string, start: number, end: number): JsonBlobRead {
  try {
    const value = parseLenientJson(source);
    return { kind: "json", source, value: Array.isArray(value) ? value[0] : value, start, end };
  } catch (error) {
    return { kind: "invalid", source, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The first fenced block that holds the blob: one tagged `json` (any case), or untagged whose
 * content starts with `{` or `[`. A block with another tag (`python`, `js`, ...) is code, skipped
 * whatever it starts with.
 */
function findBlobFence(text: string): { open: number; bodyStart: number; close: number } | undefined {
  for (let open = text.indexOf(FENCE); open !== -1; ) {
    const bodyStart = skipLanguageTag(text, open + FENCE.length);
    const tag = text.slice(open + FENCE.length, bodyStart).toLowerCase();
    const first = text[skipSpace(text, bodyStart)];
    if (tag === "json" || (tag === "" && (first === "{" || first === "["))) {
      return { open, bodyStart, close: closingFence(text, bodyStart) };
    }
    const close = text.indexOf(FENCE, bodyStart);
    if (close === -1) return undefined;
    open = text.indexOf(FENCE, close + FENCE.length);
  }
  return undefined;
}

/**
 * The fence that closes a JSON block: the first one outside a JSON string, so a fence written
 * inside a string value (code in an `action_input`) does not end the block. When the strings never
 * close, the first fence at all.
 */
function closingFence(text: string, from: number): number {
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 92 /* \ */) i++;
      else if (code === 34 /* " */) inString = false;
    } else if (code === 34) {
      inString = true;
    } else if (code === 96 /* ` */ && text.startsWith(FENCE, i)) {
      return i;
    }
  }
  return text.indexOf(FENCE, from);
}

function skipLanguageTag(text: string, at: number): number {
  let i = at;
  while (i < text.length && /[\w-]/.test(text[i] as string)) i++;
  return i;
}
