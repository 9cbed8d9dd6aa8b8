// Checks that what the server sent has the shape of a Chat Completions response before it is
// read, so that a malformed reply fails with an OpenAIResponseError that says what was wrong
// rather than with a TypeError (or as an empty answer).
import { valueToText } from "../agent/value-to-text";
import { OpenAIResponseError } from "./openai-chat-model-error";

/**
 * What is wrong with a non-streamed reply, or undefined when it is a usable completion.
 * `contentType` is the response's `content-type`, named when the body is not JSON at all.
 */
export function completionProblem(body: unknown, contentType: string | null): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    const type = contentType ? `a ${contentType.split(";")[0]} body` : "a body";
    return `${type} that is not a Chat Completions JSON object (${preview(body)})`;
  }
  const choices = (body as { choices?: unknown }).choices;
  if (!Array.isArray(choices)) return `a JSON object without a "choices" array (${preview(body)})`;
  if (choices.length === 0) return `an empty "choices" array: no answer at all`;
  const message = (choices[0] as { message?: unknown } | null)?.message;
  if (typeof message !== "object" || message === null) return `"choices[0]" without a "message" object (${preview(body)})`;
  return undefined;
}

/** What is wrong with a streamed chunk that came after `received` good ones, or undefined when it can be read. */
export function chunkProblem(chunk: unknown, received: number): string | undefined {
  const after = `after ${received} chunk(s)`;
  if (typeof chunk !== "object" || chunk === null || Array.isArray(chunk)) return `a streamed event that is not a JSON object ${after} (${preview(chunk)})`;
  if (!Array.isArray((chunk as { choices?: unknown }).choices)) return `a streamed chunk without a "choices" array ${after} (${preview(chunk)})`;
  return undefined;
}

/** The `OpenAIResponseError` for a reply with this problem. */
export function responseError(problem: string, model: string, baseURL: string): OpenAIResponseError {
  return new OpenAIResponseError({
    model,
    baseURL,
    message:
      `The server at ${baseURL} answered the request for model "${model}" with ${problem}: it is not a ` +
      "Chat Completions response. Check `baseURL` (it should end in /v1) and that the server implements the Chat Completions API.",
  });
}

/** The start of a body, as text, for an error message. */
function preview(value: unknown): string {
  const text = valueToText(value).replace(/\s+/g, " ").trim();
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}
