// How long OpenAIChatModel waits before a retry: what the server's `retry-after-ms` or
// `Retry-After` header asks for, capped, or else exponential backoff with jitter.

/** The default cap on one wait between two attempts. */
export const DEFAULT_MAX_RETRY_DELAY_MS = 60_000;

/**
 * The longest delay `setTimeout` and `setInterval` take, in ms (2^31 - 1, about 24.8 days): Node
 * fires a longer one after 1 ms. Options that become a timer's delay are checked against it.
 */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

/** Context of {@link retryDelayMs}. */
export interface RetryDelayContext {
  /** How many retries came before this one (0 for the first). */
  retry: number;
  /** The cap on the wait. */
  maxRetryDelayMs: number;
  /** The current time, for a `Retry-After` date. @default Date.now() */
  now?: number;
  /** A number in [0, 1) for the jitter. @default Math.random() */
  random?: number;
}

/**
 * The milliseconds to wait before a retry. A `retry-after-ms` or `Retry-After` header (seconds,
 * fractional or not, or an HTTP date) is obeyed up to `maxRetryDelayMs`; a value beyond the cap
 * (an hour, or a number too large for a timer) waits the cap. A header that is absent, does not
 * parse, is zero or negative, or names a date already past counts as absent (so a `retry-after-ms`
 * of 0 leaves a valid `Retry-After` to decide); with neither, the wait is the default backoff,
 * 0.5 s doubling with each retry up to 8 s, less up to 25% of jitter (and never more than the cap).
 */
export function retryDelayMs(headers: Headers | undefined, context: RetryDelayContext): number {
  const { retry, maxRetryDelayMs, now = Date.now(), random = Math.random() } = context;
  const asked = askedDelayMs(headers, now);
  if (asked !== undefined) return Math.min(asked, maxRetryDelayMs);
  const backoff = Math.min(500 * 2 ** retry, 8_000) * (1 - random * 0.25);
  return Math.min(backoff, maxRetryDelayMs);
}

/** The positive delay the headers ask for (possibly `Infinity`), or undefined. */
function askedDelayMs(headers: Headers | undefined, now: number): number | undefined {
  // A `retry-after-ms` of zero or less asks for nothing: `Retry-After` may still ask for a wait.
  const milliseconds = parseNumber(headers?.get("retry-after-ms"));
  if (milliseconds !== undefined && milliseconds > 0) return milliseconds;
  const header = headers?.get("retry-after")?.trim();
  if (!header) return undefined;
  const seconds = parseNumber(header);
  if (seconds !== undefined) return seconds > 0 ? seconds * 1000 : undefined;
  const date = Date.parse(header);
  return Number.isNaN(date) || date <= now ? undefined : date - now;
}

function parseNumber(text: string | null | undefined): number | undefined {
  if (!text || !/^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(text)) return undefined;
  return Number(text);
}
