import { RetryableToolError } from "../errors/retryable-tool-error";
import type { SafeHttpResponse } from "./safe-http-client";

const SHOWN_HEADERS = ["content-type", "location", "retry-after"];

/** Renders a response as the model sees it: status line, a few useful headers, a blank line, the body. */
export function formatResponse(response: SafeHttpResponse): string {
  const lines = [`HTTP ${response.status} ${response.statusText}`.trimEnd()];
  for (const name of SHOWN_HEADERS) {
    const value = response.headers[name];
    if (value !== undefined) lines.push(`${name}: ${value}`);
  }
  return `${lines.join("\n")}\n\n${response.body}`;
}

/** Parses a Retry-After header (seconds or an HTTP date) into milliseconds from now. */
export function retryAfterMs(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The observation for a response, or a RetryableToolError for a status in `retryableStatuses`. */
export function responseToObservation(response: SafeHttpResponse, retryableStatuses: readonly number[]): string {
  if (retryableStatuses.includes(response.status)) {
    throw new RetryableToolError({
      message: `HTTP ${response.status} ${response.statusText} from ${response.url}; try again later.`,
      retryAfterMs: retryAfterMs(response.headers["retry-after"]),
    });
  }
  return formatResponse(response);
}
