/** The methods RFC 9110 calls idempotent: sending such a request twice has the effect of sending it once. */
const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]);

/**
 * Whether a request with `method` may be sent again after a failure whose outcome is unknown (a
 * timeout, a 502 or 504 from a gateway): only when repeating it cannot repeat an effect. A POST or
 * PATCH that timed out may have been carried out, so it is not retried.
 */
export function isIdempotentMethod(method: string | undefined): boolean {
  return IDEMPOTENT_METHODS.has((method ?? "GET").toUpperCase());
}
