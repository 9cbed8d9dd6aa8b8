/** The `name=value` pairs of a `Cookie` header value (`a=1; b=2`), empty ones left out. */
function cookiePairs(header: string): string[] {
  return header
    .split(";")
    .map((pair) => pair.trim())
    .filter((pair) => pair !== "");
}

/** A cookie pair's name: the text before its first `=`. */
function nameOf(pair: string): string {
  const equals = pair.indexOf("=");
  return (equals === -1 ? pair : pair.slice(0, equals)).trim();
}

/** The names of the cookies a `Cookie` header value sets: `"a=1; b=2"` names `a` and `b`. */
export function cookieNames(header: string): Set<string> {
  return new Set(cookiePairs(header).map(nameOf));
}

/**
 * One `Cookie` header from a client's fixed cookie header and the caller's: the fixed cookies
 * first, then the caller's but those whose name a fixed cookie has (the fixed headers override
 * the caller's, cookie by cookie), joined with `; `.
 */
export function joinCookies(fixed: string, caller: string): string {
  const taken = cookieNames(fixed);
  return [...cookiePairs(fixed), ...cookiePairs(caller).filter((pair) => !taken.has(nameOf(pair)))].join("; ");
}
