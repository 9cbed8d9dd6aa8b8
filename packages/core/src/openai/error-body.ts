// The text of an error response, kept for OpenAIChatModel's error messages. The `openai` SDK 6
// keeps only the `error` member of a JSON error body: a compatible server that answers in another
// shape (vLLM's `{ object: "error", message }`, FastAPI's `{ detail }`) would lose its message.
// The SDK 7 keeps the whole body when it has no `error` member; both are read.
import type { APIError } from "openai";

/** Error bodies by the `Headers` of their response, which the SDK's `APIError` keeps as `headers`. */
const errorBodies = new WeakMap<Headers, string>();

/** The longest server message quoted in an error. */
const MAX_MESSAGE_CHARS = 500;

/**
 * A `fetch` for the `openai` client that keeps the text of every non-2xx response (read from a
 * clone, so the SDK reads the body as usual), for {@link serverMessageOf}. Calls the global
 * `fetch` as it is at the time of each request.
 */
export function keepingErrorBodies(): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!response.ok) {
      try {
        errorBodies.set(response.headers, await response.clone().text());
      } catch {
        // The body could not be read (the request was aborted): the SDK's own message stands.
      }
    }
    return response;
  };
}

/**
 * The server's own message for an HTTP error, ending with a full stop: OpenAI's `error.message`
 * (or an `error` that is a string, as Ollama sends), else, from the body (as the SDK 7 keeps a
 * body without an `error` member, or as {@link keepingErrorBodies} kept it), a top-level `message`
 * (vLLM) or `detail` (FastAPI, its validation errors too), else the SDK's message. The body of a
 * response to a client passed in (`clientPassedIn`) is not kept: where the SDK (6) found no
 * `error` member in it and says "no body", the message says why the server's message is missing
 * and how to see it.
 */
export function serverMessageOf(error: APIError, { clientPassedIn = false }: { clientPassedIn?: boolean } = {}): string {
  // `error.error` is the body's `error` member (openai 6), or the whole body when it has none (7).
  const own = messageOfBody(error.error) ?? bodyMessage(error.headers);
  if (own === undefined && clientPassedIn && error.error === undefined && /\(no body\)$/.test(error.message)) return LOST_BODY;
  const message = own ?? error.message;
  const text = message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS)}…` : message;
  return /[.!?…]$/.test(text) ? text : `${text}.`;
}

/** What stands for the server's message when a client passed in kept none. */
const LOST_BODY =
  "the server's message is not available (the `openai` client passed as `client` keeps only the `error` member of an " +
  "error body, and this one had none: vLLM's `{ message }` and FastAPI's `{ detail }` are lost); build the model with " +
  "`baseURL` and `apiKey` instead of `client` to see it.";

function ownMessage(body: unknown): string | undefined {
  if (typeof body === "string" && body.trim()) return body.trim();
  const message = (body as { message?: unknown } | null | undefined)?.message;
  return typeof message === "string" && message.trim() ? message.trim() : undefined;
}

function bodyMessage(headers: Headers | undefined): string | undefined {
  const text = headers ? errorBodies.get(headers) : undefined;
  if (text === undefined) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined; // Not JSON: the SDK puts the text itself in its message.
  }
  return messageOfBody(body);
}

/** The server's message in an error body: a string as it is, a top-level `message` (vLLM), an `error` string or `error.message`, or FastAPI's `detail`. */
function messageOfBody(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return ownMessage(body);
  const { message, detail, error } = body as { message?: unknown; detail?: unknown; error?: unknown };
  return ownMessage({ message }) ?? ownMessage(error) ?? detailMessage(detail);
}

/** FastAPI's `detail`: a string, or a list of validation errors (`{ loc, msg }`). */
function detailMessage(detail: unknown): string | undefined {
  if (typeof detail === "string") return detail.trim() || undefined;
  if (!Array.isArray(detail)) return undefined;
  const messages = detail.flatMap((item: { loc?: unknown; msg?: unknown } | null) => {
    if (typeof item?.msg !== "string") return [];
    return [Array.isArray(item.loc) ? `${item.loc.join(".")}: ${item.msg}` : item.msg];
  });
  return messages.length ? messages.join("; ") : undefined;
}
