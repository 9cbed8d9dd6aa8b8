/**
 * Matches a host name against allowlist patterns: an exact name ("api.example.com", "127.0.0.1"),
 * or "*.example.com" for any subdomain (not example.com itself). Case-insensitive; a trailing dot
 * is ignored; names and IPs are compared in the URL parser's canonical form (IDN as punycode, one
 * spelling per IP); ports are not part of the pattern.
 */
export function hostAllowed(hostname: string, patterns: readonly string[]): boolean {
  const host = normalise(hostname);
  return patterns.some((pattern) => {
    const wanted = normalise(pattern);
    if (wanted.startsWith("*.")) return host.endsWith(wanted.slice(1)) && host.length > wanted.length - 1;
    return host === wanted;
  });
}

function normalise(host: string): string {
  const wildcard = host.startsWith("*.");
  const bare = stripDot(unbracket(host.slice(wildcard ? 2 : 0).toLowerCase()));
  // Canonical form as the URL parser writes hosts: IDN as punycode, IPs in their one spelling
  // ("::ffff:127.0.0.1" is "::ffff:7f00:1"), so a pattern matches however the model spells the URL.
  let canonical = bare;
  try {
    canonical = stripDot(unbracket(new URL(`http://${bare.includes(":") ? `[${bare}]` : bare}/`).hostname));
  } catch {
    // not a valid host: compared as written, so it matches nothing a URL can hold
  }
  return wildcard ? `*.${canonical}` : canonical;
}

function unbracket(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

function stripDot(host: string): string {
  return host.endsWith(".") ? host.slice(0, -1) : host;
}

/**
 * Says what is wrong with an allowlist pattern, or returns undefined when it is a host name, an IP
 * (IPv6 with or without brackets) or "*." and a host name. A URL, a port, a path or credentials in
 * a pattern would never match a request's host, so they are refused rather than left to refuse
 * every request.
 */
export function hostPatternProblem(pattern: string): string | undefined {
  const host = unbracket(pattern.startsWith("*.") ? pattern.slice(2) : pattern);
  if (host === "") return "it has no host name";
  if (host.includes("*")) return 'a "*" may only open the pattern, as in "*.example.com"';
  if (host.includes("://")) return "it is a URL; give only its host name";
  const bracketed = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  let url: URL;
  try {
    url = new URL(`http://${bracketed}/`);
  } catch {
    return host.includes(":") ? "it is not a host name or an IP; ports are not part of a pattern (limit them with allowedPorts)" : "it is not a valid host name or IP";
  }
  if (url.port || url.username || url.password || url.pathname !== "/" || url.search || url.hash) {
    return "it holds more than a host name (a port, a path, a query or credentials); limit ports with allowedPorts";
  }
  return undefined;
}
