import { lookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { AbortError, InvalidArgumentError, MAX_TIMER_DELAY_MS, checkOptionKeys, showValue } from "@agentrx/core";
import { RequestRefusedError, type RequestRefusedReason } from "../errors/request-refused-error";
import { ResponseTooLargeError } from "../errors/response-too-large-error";
import { RetryableToolError } from "../errors/retryable-tool-error";
import { ToolTimeoutError } from "../errors/tool-timeout-error";
import { checkNumberOption } from "../internal/check-number-option";
import { checkOptionsObject } from "../internal/check-options";
import { raceAbort } from "../internal/race-abort";
import { canonicalAddress, ipKind, parseAddressAllowlist, refusedRange } from "./address-allowlist";
import { hostAllowed, hostPatternProblem } from "./host-allowlist";
import { isIdempotentMethod } from "./idempotent-methods";
import { joinCookies } from "./join-cookies";
import { keepsFixedHeaders } from "./keeps-fixed-headers";

/** Resolves a host name to its IP addresses. */
export type HostResolver = (hostname: string) => Promise<readonly string[]>;

/** Options of {@link createSafeHttpClient}, shared by the HTTP request tool and the OpenAPI toolkit. */
export interface SafeHttpOptions {
  /** Hosts that may be called: exact names or IPs, or "*.example.com" for subdomains. Required, not empty. */
  allowedHosts: readonly string[];
  /**
   * Non-public addresses (loopback, private, link-local, ...) that may be connected to anyway, as IPs
   * or CIDR ranges, e.g. `["127.0.0.1"]` for a local test server. @default [] (only public addresses)
   */
  allowedAddresses?: readonly string[];
  /**
   * Ports that may be called on an allowed host, as integers from 1 to 65535; a URL without a port
   * uses its scheme's (80 for http:, 443 for https:). Checked on every redirect hop too.
   * E.g. `[443]` keeps a model from reaching another service (an admin port, a database) on an
   * allowed host. @default any port
   */
  allowedPorts?: readonly number[];
  /** URL schemes allowed. @default ["https:", "http:"] */
  allowedProtocols?: ReadonlyArray<"http:" | "https:">;
  /** HTTP methods allowed (upper case). @default ["GET"] */
  allowedMethods?: readonly string[];
  /** Request headers the caller (the model) may set, case-insensitive. @default ["accept", "content-type"] */
  allowedRequestHeaders?: readonly string[];
  /** Headers sent with every request, e.g. authorization; they override the caller's (a `cookie` is joined to the caller's cookies, overriding those of its names). Not sent after a redirect to another origin (host, port or scheme). */
  headers?: Readonly<Record<string, string>>;
  /**
   * The largest response body read, in bytes. A response without a body (to a HEAD, a 204, a 304)
   * is not held to it, whatever its content-length says. @default 1000000
   */
  maxResponseBytes?: number;
  /** The time limit of one request including redirects, in milliseconds. @default 10000 */
  timeoutMs?: number;
  /** Redirects followed (each hop checked like the first request). @default 0 */
  maxRedirects?: number;
  /** How host names are resolved; inject one in tests. @default node:dns lookup (all addresses) */
  resolver?: HostResolver;
  /**
   * The header that carries a request's idempotency key (`request(..., { idempotencyKey })`; the
   * HTTP tool and the OpenAPI toolkit pass the tool call's, `getIdempotencyKey(config)`) on a
   * request whose method is not idempotent (POST, PATCH), for an API that carries out a request
   * once per key (Stripe-style `"Idempotency-Key"`). Such a request becomes safe to send again: its
   * timeout and its retryable statuses are then retryable. Set it only for an API that honours it.
   * @default none: no key is sent, and a POST or PATCH is never retried
   */
  idempotencyKeyHeader?: string;
}

/** One request to a {@link SafeHttpClient}. */
export interface SafeHttpRequest {
  url: string;
  /** @default "GET" */
  method?: string;
  headers?: Readonly<Record<string, string>>;
  body?: string;
}

/** What came back. */
export interface SafeHttpResponse {
  /** The URL that answered (after redirects). */
  url: string;
  status: number;
  statusText: string;
  /** Response headers, names in lower case, repeated values joined with ", ". */
  headers: Record<string, string>;
  /** The body as text: decoded with the charset its content-type names, else (or when the runtime does not know that charset) as UTF-8. */
  body: string;
}

/** How one request of a {@link SafeHttpClient} is sent. */
export interface SafeHttpRequestOptions {
  /** Aborts the request. */
  signal?: AbortSignal;
  /**
   * The request's idempotency key, sent in the client's `idempotencyKeyHeader` when the method is
   * not idempotent (see {@link SafeHttpOptions.idempotencyKeyHeader}); ignored without that option.
   */
  idempotencyKey?: string;
}

/** An HTTP client that only talks to allowed hosts at vetted addresses; see {@link createSafeHttpClient}. */
export interface SafeHttpClient {
  request(request: SafeHttpRequest, options?: SafeHttpRequestOptions): Promise<SafeHttpResponse>;
}

/**
 * Whether a request may be sent again after a failure whose outcome is unknown (a timeout, a 502 or
 * 504): its method is idempotent, or it carries an idempotency key the API honours (the client's
 * `idempotencyKeyHeader` and a key). @internal
 */
export function isRetrySafe(method: string | undefined, idempotencyKeyHeader: string | undefined, idempotencyKey: string | undefined): boolean {
  return isIdempotentMethod(method) || (idempotencyKeyHeader !== undefined && idempotencyKey !== undefined && idempotencyKey !== "");
}

const FORBIDDEN_HEADERS = new Set(["host", "connection", "content-length", "transfer-encoding", "upgrade", "te", "trailer", "keep-alive", "expect", "proxy-authorization", "proxy-connection"]);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Control characters but tab, and anything outside Latin-1: Node refuses them, and CR/LF would split the header.
// eslint-disable-next-line no-control-regex
const BAD_HEADER_VALUE = /[\u0000-\u0008\u000a-\u001f\u007f]|[^\u0000-\u00ff]/;

async function defaultResolver(hostname: string): Promise<readonly string[]> {
  const results = await lookup(hostname, { all: true, verbatim: true });
  return results.map((result) => result.address);
}

/**
 * Creates an HTTP client for untrusted requests (a model's tool arguments). Before anything is
 * sent it checks the scheme, the method, the headers the caller set, and that the host is in
 * `allowedHosts`; it then resolves the host itself and refuses loopback, private, link-local and
 * other non-public addresses unless `allowedAddresses` holds them. It connects to the address it
 * vetted (so a DNS answer that changes between check and connect, "DNS rebinding", cannot move the
 * request), and limits the response size and the time taken. Refusals throw a
 * {@link RequestRefusedError}, oversized bodies a {@link ResponseTooLargeError}, timeouts a
 * {@link ToolTimeoutError} (retryable only for an idempotent method, or a request with an idempotency
 * key the API honours, `idempotencyKeyHeader`: a POST may have taken effect). Options that are not
 * an object, or that hold a bad value, throw an `InvalidArgumentError` naming it.
 *
 * @example
 * ```ts
 * import { createSafeHttpClient } from "@agentrx/tools";
 *
 * const client = createSafeHttpClient({ allowedHosts: ["api.example.com"], maxResponseBytes: 100_000 });
 * await client.request({ url: "http://169.254.169.254/latest/meta-data" }).catch((error) => console.log(error.reason)); // host_not_allowed
 * ```
 */
export function createSafeHttpClient(options: SafeHttpOptions): SafeHttpClient {
  checkOptionsObject("createSafeHttpClient", options, '{ allowedHosts: ["api.example.com"] }');
  checkOptionKeys("createSafeHttpClient", options, SAFE_HTTP_OPTION_KEYS);
  const settings = resolveOptions(options);
  return {
    async request(request, { signal, idempotencyKey } = {}) {
      if (signal?.aborted) throw new AbortError({ reason: signal.reason });
      if (idempotencyKey !== undefined && (typeof idempotencyKey !== "string" || BAD_HEADER_VALUE.test(idempotencyKey))) {
        throw new InvalidArgumentError({ argument: "idempotencyKey", value: idempotencyKey, message: "createSafeHttpClient: `idempotencyKey` must be a string without line breaks or control characters." });
      }
      const key = settings.idempotencyKeyHeader !== undefined && idempotencyKey !== undefined && idempotencyKey !== "" && !isIdempotentMethod(request.method) ? idempotencyKey : undefined;
      const controller = new AbortController();
      const timer = setTimeout(() => {
        // A POST that timed out may have been carried out: not retryable, so a retry policy does not
        // send it twice; unless it carries an idempotency key (the API carries it out once).
        const retryable = isRetrySafe(request.method, settings.idempotencyKeyHeader, key);
        controller.abort(new ToolTimeoutError({ toolName: "http", timeoutMs: settings.timeoutMs, retryable, message: `The HTTP request to ${request.url} timed out after ${settings.timeoutMs} ms.` }));
      }, settings.timeoutMs);
      const onAbort = () => controller.abort(new AbortError({ reason: signal?.reason }));
      signal?.addEventListener("abort", onAbort, { once: true });
      try {
        let current: SafeHttpRequest = request;
        for (let redirects = 0; ; redirects++) {
          const response = await sendOnce(current, redirects === 0 || keepsFixedHeaders(request.url, current.url), settings, controller.signal, key);
          const location = response.headers.location;
          if (!REDIRECTS.has(response.status) || !location || redirects >= settings.maxRedirects) return response;
          const keepsBody = response.status === 307 || response.status === 308;
          if (!URL.canParse(location, current.url)) {
            throw new RequestRefusedError({ reason: "invalid_url", url: current.url, message: `the redirect from ${current.url} points to "${location}", which is not a valid URL.` });
          }
          current = {
            url: new URL(location, current.url).toString(),
            method: keepsBody ? current.method : "GET",
            headers: current.headers,
            body: keepsBody ? current.body : undefined,
          };
        }
      } catch (error) {
        if (controller.signal.aborted && !RequestRefusedError.isInstance(error)) throw controller.signal.reason;
        throw error;
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      }
    },
  };
}

type Settings = Required<Omit<SafeHttpOptions, "allowedAddresses" | "allowedPorts" | "idempotencyKeyHeader">> & {
  /** Undefined: any port. */
  allowedPorts: readonly number[] | undefined;
  allowlist: Exclude<ReturnType<typeof parseAddressAllowlist>, string>;
  /** Lower case. */
  idempotencyKeyHeader: string | undefined;
};

/**
 * The options of the safe HTTP layer, by name: a misspelt one (`allowedHost`, `timeout`) would leave
 * its default in place, so the callers refuse it. @internal
 */
export const SAFE_HTTP_OPTION_KEYS: readonly string[] = Object.keys({
  allowedHosts: true, allowedAddresses: true, allowedPorts: true, allowedProtocols: true, allowedMethods: true, allowedRequestHeaders: true,
  headers: true, maxResponseBytes: true, timeoutMs: true, maxRedirects: true, resolver: true, idempotencyKeyHeader: true,
} satisfies Record<keyof SafeHttpOptions, true>);

function resolveOptions(options: SafeHttpOptions): Settings {
  const invalid = (argument: string, value: unknown, message: string) => new InvalidArgumentError({ argument, value, message });
  if (!options || !Array.isArray(options.allowedHosts) || options.allowedHosts.length === 0 || !options.allowedHosts.every((h) => typeof h === "string" && h.length > 0)) {
    throw invalid("allowedHosts", options?.allowedHosts, 'allowedHosts is required: a non-empty list of host names the tool may call, e.g. ["api.example.com"].');
  }
  for (const pattern of options.allowedHosts) {
    const problem = hostPatternProblem(pattern);
    if (problem) throw invalid("allowedHosts", pattern, `allowedHosts holds "${pattern}", which matches no request: ${problem}. Give host names or IPs, e.g. ["api.example.com", "*.example.org", "10.0.0.5"].`);
  }
  const allowlist = parseAddressAllowlist(options.allowedAddresses ?? []);
  if (typeof allowlist === "string") {
    throw invalid("allowedAddresses", allowlist, `allowedAddresses holds "${allowlist}", which is not an IP address or CIDR range such as "127.0.0.1" or "10.0.0.0/8".`);
  }
  const allowedPorts = options.allowedPorts;
  if (allowedPorts !== undefined && (!Array.isArray(allowedPorts) || allowedPorts.length === 0 || !allowedPorts.every(isPort))) {
    throw invalid("allowedPorts", allowedPorts, `allowedPorts must be a non-empty list of port numbers from 1 to 65535, such as [443] or [80, 443], got ${showValue(allowedPorts)}; leave it out to allow any port.`);
  }
  const allowedProtocols = options.allowedProtocols ?? ["https:", "http:"];
  if (!Array.isArray(allowedProtocols) || allowedProtocols.length === 0) {
    throw invalid("allowedProtocols", allowedProtocols, `allowedProtocols must be a non-empty list of "http:" and "https:", such as ["https:"], got ${showValue(allowedProtocols)}; leave it out to allow both.`);
  }
  const badProtocol = allowedProtocols.find((p) => p !== "http:" && p !== "https:");
  if (badProtocol !== undefined) throw invalid("allowedProtocols", badProtocol, `allowedProtocols may only hold "http:" and "https:", got "${badProtocol}".`);
  const checkTokens = (argument: string, list: unknown, example: string, allowEmpty: boolean) => {
    if (!Array.isArray(list) || (!allowEmpty && list.length === 0) || !list.every((item) => typeof item === "string" && HTTP_TOKEN.test(item))) {
      throw invalid(argument, list, `${argument} must be a ${allowEmpty ? "" : "non-empty "}list of HTTP tokens such as ${example}.`);
    }
  };
  if (options.allowedMethods !== undefined) checkTokens("allowedMethods", options.allowedMethods, '["GET", "POST"]', false);
  if (options.allowedRequestHeaders !== undefined) checkTokens("allowedRequestHeaders", options.allowedRequestHeaders, '["accept", "content-type"]', true);
  const fixed = options.headers;
  if (fixed !== undefined && (typeof fixed !== "object" || fixed === null || Array.isArray(fixed))) {
    throw invalid("headers", fixed, `headers must be an object of header values such as { authorization: "Bearer <token>" }, got ${Array.isArray(fixed) ? "an array" : showValue(fixed)}.`);
  }
  for (const [name, value] of Object.entries(fixed ?? {})) {
    if (!HTTP_TOKEN.test(name) || typeof value !== "string" || BAD_HEADER_VALUE.test(value)) {
      throw invalid("headers", name, `headers["${name}"] is not a valid header: the name must be an HTTP token and the value a string without line breaks or control characters.`);
    }
    // The client sets these itself (the host it vetted, the body's length): one of yours would be overridden or break the request.
    if (FORBIDDEN_HEADERS.has(name.toLowerCase())) {
      throw invalid("headers", name, `headers["${name}"] cannot be set: ${[...FORBIDDEN_HEADERS].join(", ")} are the client's own (the host comes from the URL, the length from the body).`);
    }
  }
  const keyHeader = options.idempotencyKeyHeader;
  if (keyHeader !== undefined && (typeof keyHeader !== "string" || !HTTP_TOKEN.test(keyHeader) || FORBIDDEN_HEADERS.has(keyHeader.toLowerCase()))) {
    throw invalid("idempotencyKeyHeader", keyHeader, `idempotencyKeyHeader must be a header name (an HTTP token that is not a connection header) such as "Idempotency-Key", got ${showValue(keyHeader)}.`);
  }
  const resolver = options.resolver ?? defaultResolver;
  if (typeof resolver !== "function") throw invalid("resolver", resolver, "resolver must be a function (hostname) => Promise<string[]>.");
  return {
    allowedHosts: options.allowedHosts,
    allowedPorts,
    allowlist,
    allowedProtocols,
    allowedMethods: (options.allowedMethods ?? ["GET"]).map((m) => m.toUpperCase()),
    allowedRequestHeaders: (options.allowedRequestHeaders ?? ["accept", "content-type"]).map((h) => h.toLowerCase()),
    headers: options.headers ?? {},
    maxResponseBytes: checkNumberOption("maxResponseBytes", options.maxResponseBytes ?? 1_000_000, { min: 1, integer: true }),
    timeoutMs: checkNumberOption("timeoutMs", options.timeoutMs ?? 10_000, { min: 1, max: MAX_TIMER_DELAY_MS }),
    maxRedirects: checkNumberOption("maxRedirects", options.maxRedirects ?? 0, { min: 0, max: 20, integer: true }),
    resolver,
    idempotencyKeyHeader: keyHeader?.toLowerCase(),
  };
}

function isPort(value: unknown): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= 65535;
}

/** The port a request to `url` goes to: its own, else its scheme's (80 for http:, 443 for https:). @internal */
export function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}

async function sendOnce(request: SafeHttpRequest, sameOrigin: boolean, settings: Settings, signal: AbortSignal, idempotencyKey: string | undefined): Promise<SafeHttpResponse> {
  const refuse = (reason: RequestRefusedReason, message: string, cause?: unknown): never => {
    throw new RequestRefusedError({ reason, url: request.url, message, cause });
  };
  let url: URL;
  try {
    url = new URL(request.url);
  } catch (error) {
    return refuse("invalid_url", `"${request.url}" is not an absolute URL.`, error);
  }
  if (url.username || url.password) refuse("invalid_url", "URLs with credentials are not allowed.");
  if (!settings.allowedProtocols.includes(url.protocol as "http:")) {
    refuse("protocol_not_allowed", `the scheme "${url.protocol}" is not allowed; use ${settings.allowedProtocols.join(" or ")}.`);
  }
  const method = (request.method ?? "GET").toUpperCase();
  if (!settings.allowedMethods.includes(method)) refuse("method_not_allowed", `the method ${method} is not allowed; use ${settings.allowedMethods.join(", ")}.`);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    const lower = name.toLowerCase();
    if (FORBIDDEN_HEADERS.has(lower) || !settings.allowedRequestHeaders.includes(lower)) {
      refuse("header_not_allowed", `the header "${name}" may not be set; allowed: ${settings.allowedRequestHeaders.join(", ") || "none"}.`);
    }
    if (/[\r\n]/.test(value)) refuse("header_not_allowed", `the header "${name}" has a line break in its value.`);
    if (BAD_HEADER_VALUE.test(value)) refuse("header_not_allowed", `the header "${name}" has a control character or a character outside Latin-1 in its value.`);
    headers[lower] = value;
  }
  if (sameOrigin) {
    for (const [name, value] of Object.entries(settings.headers)) {
      const lower = name.toLowerCase();
      // A fixed cookie is joined to the caller's cookies (an OpenAPI tool's cookie parameters), overriding theirs of its name.
      headers[lower] = lower === "cookie" && headers.cookie !== undefined ? joinCookies(value, headers.cookie) : value;
    }
  }
  // Ours, not the caller's: it overrides one the caller set, and follows the request's redirects.
  if (idempotencyKey !== undefined && settings.idempotencyKeyHeader !== undefined) headers[settings.idempotencyKeyHeader] = idempotencyKey;
  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  if (!hostAllowed(hostname, settings.allowedHosts)) {
    refuse("host_not_allowed", `the host "${hostname}" is not in allowedHosts (${settings.allowedHosts.join(", ")}).`);
  }
  const port = portOf(url);
  if (settings.allowedPorts !== undefined && !settings.allowedPorts.includes(port)) {
    refuse("port_not_allowed", `the port ${port} is not in allowedPorts (${settings.allowedPorts.join(", ")}).`);
  }
  let addresses: readonly string[];
  try {
    // The resolver may ignore cancellation: stop waiting for it when the request is aborted or times out.
    addresses = ipKind(hostname) ? [hostname] : await raceAbort(Promise.resolve().then(() => settings.resolver(hostname)), signal, () => true);
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    return refuse("dns_failed", `the host "${hostname}" could not be resolved.`, error);
  }
  if (!Array.isArray(addresses) || !addresses.every((address) => typeof address === "string")) {
    return refuse("dns_failed", `the resolver gave ${showValue(addresses)} for "${hostname}", not a list of IP addresses.`);
  }
  if (addresses.length === 0) refuse("dns_failed", `the host "${hostname}" has no addresses.`);
  for (const address of addresses) {
    const range = refusedRange(address, settings.allowlist);
    if (range) {
      refuse("address_not_allowed", `the host "${hostname}" resolves to ${address} (${range}), which is not a public address; add it to allowedAddresses to allow it.`);
    }
  }
  if (signal.aborted) throw signal.reason;
  // Connect to the vetted address in its canonical spelling: another spelling ("0x7f.1") is no IP
  // to Node, which would look it up in DNS again, and the connection could land elsewhere.
  const retrySafe = isRetrySafe(method, settings.idempotencyKeyHeader, idempotencyKey);
  return send(url, canonicalAddress(addresses[0]!), method, headers, request.body, settings.maxResponseBytes, signal, retrySafe);
}

function send(url: URL, address: string, method: string, headers: Record<string, string>, body: string | undefined, maxBytes: number, signal: AbortSignal, retrySafe: boolean): Promise<SafeHttpResponse> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === "https:" ? https : http;
    const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
    const request = transport.request({
      host: address, // the vetted address: no second DNS lookup
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method,
      headers: { ...headers, host: url.host, ...(body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) }) },
      servername: ipKind(hostname) ? undefined : hostname,
      agent: false,
    });
    const fail = (error: unknown) => {
      signal.removeEventListener("abort", onAbort);
      request.destroy();
      reject(error);
    };
    const onAbort = () => fail(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    request.on("error", fail);
    request.on("response", (response) => {
      // `readBytes`: what was read before stopping (none when the content-length alone is past the limit).
      const tooLarge = (readBytes = 0) => fail(new ResponseTooLargeError({ url: url.toString(), maxResponseBytes: maxBytes, readBytes }));
      // A HEAD's answer, a 204 and a 304 have no body, whatever their content-length says (for a HEAD,
      // the size of what a GET gets): nothing to limit, and nothing to read.
      const bodiless = method === "HEAD" || response.statusCode === 204 || response.statusCode === 304;
      if (!bodiless && Number(response.headers["content-length"] ?? 0) > maxBytes) return tooLarge();
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) tooLarge(size);
        else chunks.push(chunk);
      });
      // The connection closed before the body was complete ("aborted"): say so, rather than pass
      // on a bare "aborted"; retryable when sending the request again is safe.
      response.on("error", (error) => {
        if (signal.aborted) return fail(signal.reason);
        const message = `The response from ${url.toString()} was cut off after ${size} bytes: the connection closed before the body was complete${retrySafe ? "; try again" : ""}.`;
        fail(retrySafe ? new RetryableToolError({ message, cause: error }) : new Error(message, { cause: error }));
      });
      response.on("end", () => {
        signal.removeEventListener("abort", onAbort);
        const responseHeaders: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) responseHeaders[name] = Array.isArray(value) ? value.join(", ") : value;
        }
        resolve({
          url: url.toString(),
          status: response.statusCode ?? 0,
          statusText: response.statusMessage ?? "",
          headers: responseHeaders,
          body: decodeBody(Buffer.concat(chunks), responseHeaders["content-type"]),
        });
      });
    });
    request.end(body);
  });
}

/** `bytes` as text in the charset `contentType` names ("text/plain; charset=iso-8859-1"); UTF-8 when it names none, or one the runtime does not know. */
function decodeBody(bytes: Buffer, contentType: string | undefined): string {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? "")?.[1];
  if (charset !== undefined) {
    try {
      return new TextDecoder(charset).decode(bytes);
    } catch {
      // an unknown charset: read as UTF-8 below
    }
  }
  return bytes.toString("utf8");
}
