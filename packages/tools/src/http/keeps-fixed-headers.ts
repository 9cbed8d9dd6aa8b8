/**
 * Whether a request to `hopUrl`, reached by redirects from `firstUrl`, still gets the client's fixed
 * `headers` (authorization and the like): only when it goes to the same origin, that is the same
 * scheme, host and port. So a redirect to another host, another port, or from https down to http
 * (where the header would cross the network in clear text) does not carry them.
 */
export function keepsFixedHeaders(firstUrl: string, hopUrl: string): boolean {
  if (!URL.canParse(firstUrl) || !URL.canParse(hopUrl)) return false;
  return new URL(firstUrl).origin === new URL(hopUrl).origin;
}
