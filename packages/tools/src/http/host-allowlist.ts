/**
 * Matches a host name against allowlist patterns: an exact name ("api.example.com", "127.0.0.1"),
 * or "*.example.com" for any subdomain (not example.com itself). Case-insensitive; a trailing dot
 * is ignored; ports are not part of the pattern.
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
  const lower = host.toLowerCase();
  const bare = lower.startsWith("[") && lower.endsWith("]") ? lower.slice(1, -1) : lower;
  return bare.endsWith(".") ? bare.slice(0, -1) : bare;
}
