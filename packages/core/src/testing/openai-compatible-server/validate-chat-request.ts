import type { LoopbackHttpError } from "./server-reply";

const ROLES = new Set(["system", "developer", "user", "assistant", "tool", "function"]);

/**
 * Checks a chat-completion request body the way the OpenAI API does for the mistakes a client
 * library can make (a missing model or messages, `stream_options` without `stream`, `tool_choice` or
 * `parallel_tool_calls` without tools, an unknown role, a tool message without `tool_call_id`, tool
 * calls left without a result, a content part its role does not take, such as an image in a tool
 * message, or without the fields its type requires, such as a `file` part with neither
 * `file_data` nor `file_id`), and returns the 400 OpenAI would answer, or
 * `undefined` when the request is acceptable. The messages mimic OpenAI's own.
 */
export function validateChatRequest(body: Record<string, unknown>): LoopbackHttpError | undefined {
  const bad = (message: string, param: string | null = null, code: string | null = null): LoopbackHttpError => ({
    status: 400,
    message,
    ...(param ? { param } : {}),
    code,
  });
  if (typeof body.model !== "string" || !body.model) return bad("you must provide a model parameter", "model");
  const messages = body.messages;
  if (!Array.isArray(messages)) return bad("Missing required parameter: 'messages'.", "messages", "missing_required_parameter");
  if (!messages.length) return bad("Invalid 'messages': empty array. Expected an array with minimum length 1.", "messages", "empty_array");
  if (body.stream_options != null && body.stream !== true) {
    return bad("The 'stream_options' parameter is only allowed when 'stream' is enabled.", "stream_options");
  }
  const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
  for (const param of ["tool_choice", "parallel_tool_calls"]) {
    if (body[param] != null && !hasTools) {
      return bad(`Invalid value for '${param}': '${param}' is only allowed when 'tools' are specified.`, param);
    }
  }
  const pending = new Map<string, number>();
  for (const [index, message] of messages.entries()) {
    const param = `messages.[${index}]`;
    if (typeof message !== "object" || message === null) return bad(`Invalid type for '${param}': expected an object.`, param);
    const { role, tool_call_id: toolCallId, tool_calls: toolCalls } = message as Record<string, unknown>;
    if (typeof role !== "string" || !ROLES.has(role)) {
      return bad(`Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`, `${param}.role`, "invalid_value");
    }
    const partError = contentPartsError((message as Record<string, unknown>).content, role, param, bad);
    if (partError) return partError;
    if (role !== "tool" && pending.size) return unanswered(pending, bad);
    if (role === "tool") {
      if (typeof toolCallId !== "string" || !toolCallId) {
        return bad(`Missing required parameter: '${param}.tool_call_id'.`, `${param}.tool_call_id`, "missing_required_parameter");
      }
      if (!pending.delete(toolCallId)) {
        return bad(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `${param}.role`,
        );
      }
    }
    if (role === "assistant" && Array.isArray(toolCalls)) {
      for (const call of toolCalls as { id?: unknown }[]) {
        if (typeof call?.id !== "string" || !call.id) {
          return bad(`Missing required parameter: '${param}.tool_calls.id'.`, `${param}.tool_calls`, "missing_required_parameter");
        }
        pending.set(call.id, index);
      }
    }
  }
  return pending.size ? unanswered(pending, bad) : undefined;
}

function unanswered(
  pending: Map<string, number>,
  bad: (message: string, param?: string | null) => LoopbackHttpError,
): LoopbackHttpError {
  const [index] = pending.values();
  return bad(
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
      `The following tool_call_ids did not have response messages: ${[...pending.keys()].join(", ")}`,
    `messages.[${index}].role`,
  );
}

/** The content part types each role takes (a user message also takes images, audio and files). */
const PART_TYPES: Record<string, readonly string[]> = {
  user: ["text", "image_url", "input_audio", "file"],
  assistant: ["text", "refusal"],
};

function contentPartsError(
  content: unknown,
  role: string,
  param: string,
  bad: (message: string, param?: string | null, code?: string | null) => LoopbackHttpError,
): LoopbackHttpError | undefined {
  if (!Array.isArray(content)) return undefined;
  const allowed = PART_TYPES[role] ?? ["text"];
  for (const [index, part] of content.entries()) {
    const type = (part as { type?: unknown } | null)?.type;
    if (type === "image_url" && role !== "user") {
      return bad(`Invalid '${param}'. Image URLs are only allowed for messages with role 'user', but this message with role '${role}' contains an image URL.`, param, "invalid_value");
    }
    if (typeof type !== "string" || !allowed.includes(type)) {
      const supported = allowed.map((name) => `'${name}'`).join(", ");
      return bad(`Invalid value: '${String(type)}'. Supported values are: ${supported}.`, `${param}.content[${index}].type`, "invalid_value");
    }
    const fieldError = partFieldsError(part as Record<string, unknown>, `${param}.content[${index}]`, bad);
    if (fieldError) return fieldError;
  }
  return undefined;
}

/**
 * The 400 for a content part without the fields its type requires: those of the `openai`
 * package's types (`text.text`, `image_url.url`, `input_audio.data` and a `format` of wav or mp3)
 * and, for a `file`, a `file_id` or a `file_data` with its `filename` (which OpenAI requires
 * too). So a part sent in another shape (a LangChain `file` block as it is) is refused as the API
 * refuses it.
 */
function partFieldsError(
  part: Record<string, unknown>,
  param: string,
  bad: (message: string, param?: string | null, code?: string | null) => LoopbackHttpError,
): LoopbackHttpError | undefined {
  const missing = (field: string) => bad(`Missing required parameter: '${param}.${field}'.`, `${param}.${field}`, "missing_required_parameter");
  const member = (name: string) => (typeof part[name] === "object" && part[name] !== null ? (part[name] as Record<string, unknown>) : undefined);
  const isText = (value: unknown) => typeof value === "string";
  switch (part.type) {
    case "text":
    case "refusal":
      return isText(part[part.type]) ? undefined : missing(part.type);
    case "image_url":
      return isText(member("image_url")?.url) ? undefined : missing("image_url.url");
    case "input_audio": {
      const audio = member("input_audio");
      if (!isText(audio?.data)) return missing("input_audio.data");
      if (audio?.format === "wav" || audio?.format === "mp3") return undefined;
      if (audio?.format === undefined) return missing("input_audio.format");
      return bad(`Invalid value: '${String(audio.format)}'. Supported values are: 'wav' and 'mp3'.`, `${param}.input_audio.format`, "invalid_value");
    }
    case "file": {
      const file = member("file");
      if (file === undefined) return missing("file");
      // OpenAI takes `file_data` only with a `filename`, and names the missing `file_id` when either is missing.
      if (isText(file.file_id) || (isText(file.file_data) && isText(file.filename))) return undefined;
      return missing("file.file_id");
    }
    default:
      return undefined;
  }
}
