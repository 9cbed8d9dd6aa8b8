import type { Artifact, Message, Part, TaskState, TaskStatusUpdateEvent } from "@a2a-js/sdk";

// Builders and readers of the SDK's protobuf-shaped values (every field present). @internal

/** `TaskState` values (the SDK's enum, without importing it at run time). */
export const TASK_STATE = {
  submitted: 1 as TaskState,
  working: 2 as TaskState,
  completed: 3 as TaskState,
  failed: 4 as TaskState,
  canceled: 5 as TaskState,
  inputRequired: 6 as TaskState,
  rejected: 7 as TaskState,
  authRequired: 8 as TaskState,
} as const;

/** `Role.ROLE_USER` and `Role.ROLE_AGENT`. */
export const ROLE_USER = 1;
export const ROLE_AGENT = 2;

export function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" };
}

export function dataPart(value: unknown): Part {
  return { content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "application/json" };
}

export function message(role: number, parts: Part[], ids: { taskId?: string; contextId?: string } = {}): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: ids.contextId ?? "",
    taskId: ids.taskId ?? "",
    role: role as Message["role"],
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export function statusUpdate(taskId: string, contextId: string, state: TaskState, statusMessage?: Message, metadata?: Record<string, unknown>): TaskStatusUpdateEvent {
  return { taskId, contextId, status: { state, message: statusMessage, timestamp: new Date().toISOString() }, metadata };
}

export function artifact(artifactId: string, parts: Part[]): Artifact {
  return { artifactId, name: artifactId, description: "", parts, metadata: undefined, extensions: [] };
}

/** The text of some parts: text parts as they are, data parts as JSON, URL parts' URLs, one per line (a file's bytes, a `raw` part, have none). */
export function partsText(parts: readonly Part[] | undefined): string {
  return (parts ?? [])
    .map((part) => partText(part, false))
    .filter((text) => text !== "")
    .join("\n");
}

/**
 * The text of an answer's parts, as {@link partsText} has it, with a one-line note in place of each
 * file's bytes (a `raw` part), naming the file, its media type and size: a text answer cannot carry
 * the bytes, but its reader learns that the file was sent.
 */
export function answerText(parts: readonly Part[] | undefined): string {
  return (parts ?? [])
    .map((part) => partText(part, true))
    .filter((text) => text !== "")
    .join("\n");
}

function partText(part: Part, noteFiles: boolean): string {
  const content = part.content;
  switch (content?.$case) {
    case "text":
      return content.value;
    case "data":
      return JSON.stringify(content.value);
    case "url":
      return content.value;
    case "raw":
      return noteFiles ? fileNote(part, content.value) : "";
    default:
      return "";
  }
}

/** `[File "report.pdf" (application/pdf, 12.0 KB): its bytes are not shown.]` */
function fileNote(part: Part, bytes: Uint8Array | undefined): string {
  const about = [part.mediaType, formatBytes(bytes?.byteLength ?? 0)].filter((text) => text !== "").join(", ");
  return `[File${part.filename ? ` ${JSON.stringify(part.filename)}` : ""} (${about}): its bytes are not shown.]`;
}

function formatBytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * LangChain's standard content blocks for some parts, as a steering message carries them to a run:
 * one `text` block with their text ({@link partsText}: text parts, data parts as JSON, URL parts'
 * URLs), left out when blank, then a block for each file's bytes (a `raw` part) by its media type:
 * `image` (`image/*`), `audio` (`audio/*`), `video` (`video/*`), else `file` (no media type:
 * `application/octet-stream`), its bytes base64-encoded in `data` and its filename, if any, in
 * `metadata.filename`. An empty array for parts with neither text nor a file.
 */
export function partsContent(parts: readonly Part[] | undefined): ContentBlock[] {
  const text = partsText(parts);
  const blocks: ContentBlock[] = text.trim() === "" ? [] : [{ type: "text", text }];
  for (const part of parts ?? []) {
    if (part.content?.$case !== "raw") continue;
    const mimeType = part.mediaType || "application/octet-stream";
    const kind = /^(image|audio|video)\//i.exec(mimeType)?.[1]?.toLowerCase() ?? "file";
    blocks.push({ type: kind, mimeType, data: toBase64(part.content.value), ...(part.filename ? { metadata: { filename: part.filename } } : {}) });
  }
  return blocks;
}

/** A LangChain content block (`text`, or a file's: `image`, `audio`, `video`, `file`). */
export type ContentBlock = { type: "text"; text: string } | { type: string; mimeType: string; data: string; metadata?: { filename: string } };

/** `bytes` as base64 text (in slices: no call gets more arguments than an engine takes). */
function toBase64(bytes: Uint8Array | undefined): string {
  let binary = "";
  const data = bytes ?? new Uint8Array();
  for (let start = 0; start < data.length; start += 0x8000) binary += String.fromCharCode(...data.subarray(start, start + 0x8000));
  return btoa(binary);
}

/** The value of the first data part that is an object, if any. */
export function dataOf(parts: readonly Part[] | undefined): Record<string, unknown> | undefined {
  for (const part of parts ?? []) {
    const value = part.content?.$case === "data" ? (part.content.value as unknown) : undefined;
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  }
  return undefined;
}
