import { InvalidArgumentError, showValue } from "@agentrx/core";
import { RetryableToolError } from "../errors/retryable-tool-error";
import type { SafeHttpResponse } from "./safe-http-client";

const SHOWN_HEADERS = ["content-type", "location", "retry-after"];

/**
 * Renders a response as the model sees it: status line, a few useful headers, a blank line, the
 * body; or, for a body that is not text (an image, a PDF, an archive, or one still compressed by a
 * `content-encoding`, or one without a content-type whose bytes hold a NUL or are not UTF-8), a
 * note saying so, since its bytes read as text would only be noise. A response without a body but
 * with a content-length (the answer to a HEAD, a 304) shows that too: the size of what a GET gets.
 */
export function formatResponse(response: SafeHttpResponse): string {
  const lines = [`HTTP ${response.status} ${response.statusText}`.trimEnd()];
  for (const name of SHOWN_HEADERS) {
    const value = response.headers[name];
    if (value !== undefined) lines.push(`${name}: ${value}`);
  }
  const length = response.headers["content-length"];
  if (response.body === "" && length !== undefined && length.trim() !== "0") lines.push(`content-length: ${length}`);
  return `${lines.join("\n")}\n\n${unreadableBodyNote(response) ?? response.body}`;
}

// Media types whose bodies are text, beyond text/*: JSON, XML, YAML, JavaScript, forms, GraphQL...
const TEXT_TYPES = /^text\/|[/+](json|xml|yaml|x-yaml|javascript|ecmascript|x-www-form-urlencoded|graphql|csv|markdown|x-ndjson|ld\+json|problem\+json|sql)\b/;

/**
 * A body without a content-type is decoded as UTF-8: a NUL (no text holds one), or a U+FFFD that
 * stands for bytes that are not UTF-8, says it is binary data (or text in a charset it does not name).
 */
// eslint-disable-next-line no-control-regex
const UNTYPED_BINARY = /[\u0000\ufffd]/;

/** A note in place of a body that is not text, or undefined when the body is text (or empty). */
function unreadableBodyNote(response: SafeHttpResponse): string | undefined {
  if (response.body === "") return undefined;
  const encoding = response.headers["content-encoding"]?.trim().toLowerCase();
  if (encoding && encoding !== "identity") return `[The body is encoded with content-encoding "${encoding}", which this tool does not decode; it is not shown.]`;
  const type = response.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
  if (!type) return UNTYPED_BINARY.test(response.body) ? "[The body has no content-type and is not UTF-8 text (binary data, or text in another charset); it is not shown.]" : undefined;
  if (TEXT_TYPES.test(type)) return undefined;
  return `[The body is ${type}, which is not text; it is not shown.]`;
}

/**
 * Parses a Retry-After header into milliseconds from now: whole seconds ("120") or an HTTP date
 * (a date in the past is 0). Anything else ("0x10", "1e3", "-5") is not a Retry-After value: undefined.
 */
export function retryAfterMs(value: string | undefined): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its weekday or month ("Wed, 21 Oct 2015 07:28:00 GMT"); Date.parse alone would take "1.5" for a date.
  if (!/[a-z]{3}/i.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * The observation for a response, or a RetryableToolError for a status in `retryableStatuses` when
 * the request is `retrySafe` (its method is idempotent, or it carried an idempotency key the API
 * honours: `isRetrySafe`). A POST or PATCH without a key that got such a status is an observation:
 * a 502 or 504 does not say whether it was carried out, and a retry could carry it out twice.
 */
export function responseToObservation(response: SafeHttpResponse, retryableStatuses: readonly number[], retrySafe: boolean): string {
  if (retryableStatuses.includes(response.status) && retrySafe) {
    throw new RetryableToolError({
      message: `HTTP ${response.status} ${response.statusText} from ${response.url}; try again later.`,
      retryAfterMs: retryAfterMs(response.headers["retry-after"]),
    });
  }
  return formatResponse(response);
}

/** Throws an InvalidArgumentError naming `owner` unless `statuses` is a list of HTTP statuses (integers 100 to 599). */
export function checkRetryableStatuses(owner: string, statuses: unknown): readonly number[] {
  if (!Array.isArray(statuses) || !statuses.every((status) => Number.isInteger(status) && status >= 100 && status <= 599)) {
    throw new InvalidArgumentError({
      argument: "retryableStatuses",
      value: statuses,
      message: `${owner}: retryableStatuses must be a list of HTTP statuses (integers from 100 to 599) such as [429, 503], got ${showValue(statuses)}.`,
    });
  }
  return statuses as readonly number[];
}
