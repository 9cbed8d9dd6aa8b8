import dns from "node:dns";
import { gzipSync } from "node:zlib";
import { InvalidArgumentError } from "@agentrx/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RequestRefusedError } from "../errors/request-refused-error";
import { ResponseTooLargeError } from "../errors/response-too-large-error";
import { ToolTimeoutError } from "../errors/tool-timeout-error";
import { createSafeHttpClient, type SafeHttpOptions } from "./safe-http-client";
import { startTestServer, type TestServer } from "./test-server";

let server: TestServer;
let other: TestServer | undefined;
let onRequest: () => void = () => undefined;

beforeEach(async () => {
  onRequest = () => undefined;
  server = await startTestServer((request, response) => {
    onRequest();
    const path = request.url ?? "/";
    if (path === "/hang") return; // never answers
    if (path === "/big") return void response.end("x".repeat(5000));
    if (path === "/stream") {
      response.writeHead(200, { "content-type": "text/plain" }); // no content-length: chunked
      for (let i = 0; i < 10; i++) response.write("y".repeat(1000));
      return void response.end();
    }
    if (path === "/gzip-bomb") {
      // 10 MB of zeros, about 10 kB on the wire
      response.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
      return void response.end(gzipSync(Buffer.alloc(10_000_000)));
    }
    if (path === "/trickle") {
      response.writeHead(200, { "content-type": "text/plain" });
      return void response.write("a"); // then nothing, never the end
    }
    if (path === "/cross-redirect") return void response.writeHead(302, { location: `http://127.0.0.1:${other?.port}/echo` }).end();
    if (path === "/redirect") return void response.writeHead(302, { location: "http://10.0.0.1/secret" }).end();
    if (path === "/local-redirect") return void response.writeHead(302, { location: "/echo" }).end();
    if (path === "/broken-redirect") return void response.writeHead(302, { location: "http://[oops/" }).end();
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ method: request.method, host: request.headers.host, auth: request.headers.authorization ?? null, accept: request.headers.accept ?? null }));
  });
});
afterEach(async () => {
  vi.useRealTimers();
  await server.close();
});

const local = (extra: Partial<SafeHttpOptions> = {}): SafeHttpOptions => ({ allowedHosts: ["127.0.0.1"], allowedAddresses: ["127.0.0.1"], ...extra });
const refusal = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as RequestRefusedError);

describe("createSafeHttpClient", () => {
  it("sends allowed requests to an explicitly allowed loopback server, with fixed headers", async () => {
    const client = createSafeHttpClient(local({ headers: { Authorization: "Bearer t" } }));
    const response = await client.request({ url: `${server.origin}/echo`, headers: { Accept: "application/json" } });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ method: "GET", host: `127.0.0.1:${server.port}`, auth: "Bearer t", accept: "application/json" });
  });

  it("refuses loopback and private addresses unless allowed, before connecting", async () => {
    const client = createSafeHttpClient({ allowedHosts: ["127.0.0.1", "10.1.2.3", "169.254.169.254", "[::1]", "::ffff:127.0.0.1", "::", "0.0.0.0"] });
    const sneaky = ["http://[::ffff:7f00:1]/", `http://[::ffff:127.0.0.1]:${server.port}/`, "http://[::]/", "http://0/", "http://2130706433/", "http://0177.0.0.1/", "http://0x7f.1/", "http://127.1/"];
    for (const url of [`${server.origin}/echo`, "http://10.1.2.3/", "http://169.254.169.254/latest/meta-data", "http://[::1]/", ...sneaky]) {
      const error = await refusal(client.request({ url }));
      expect(error?.reason).toBe("address_not_allowed");
      expect(error?.message).toMatch(/is not a public address; add it to allowedAddresses/);
    }
    expect(server.requests).toHaveLength(0);
  });

  it("refuses a public name that resolves to a private address (also IPv4-mapped IPv6, also one of many)", async () => {
    for (const addresses of [["10.0.0.5"], ["93.184.216.34", "192.168.1.1"], ["::ffff:127.0.0.1"], ["fe80::1"]]) {
      const resolver = vi.fn(async () => addresses);
      const client = createSafeHttpClient({ allowedHosts: ["api.example.com"], resolver });
      const error = await refusal(client.request({ url: "https://api.example.com/v1" }));
      expect(error?.reason).toBe("address_not_allowed");
      expect(error?.message).toContain('the host "api.example.com" resolves to');
      expect(resolver).toHaveBeenCalledWith("api.example.com");
    }
  });

  it("connects to the address it vetted, resolving the name only once (no DNS rebinding)", async () => {
    const resolver = vi.fn().mockResolvedValueOnce(["127.0.0.1"]).mockResolvedValue(["10.9.9.9"]);
    const client = createSafeHttpClient({ allowedHosts: ["service.internal.test"], allowedAddresses: ["127.0.0.1/32"], resolver });
    const response = await client.request({ url: `http://service.internal.test:${server.port}/echo` });
    expect(JSON.parse(response.body).host).toBe(`service.internal.test:${server.port}`);
    expect(resolver).toHaveBeenCalledTimes(1);
  });

  it("refuses hosts, schemes, methods, headers and URLs it does not allow", async () => {
    const client = createSafeHttpClient(local());
    const cases: Array<[Parameters<typeof client.request>[0], string]> = [
      [{ url: "http://example.com/" }, "host_not_allowed"],
      [{ url: "http://127.0.0.1.nip.io/" }, "host_not_allowed"],
      [{ url: "file:///etc/passwd" }, "protocol_not_allowed"],
      [{ url: "not a url" }, "invalid_url"],
      [{ url: `http://user:pw@127.0.0.1:${server.port}/` }, "invalid_url"],
      [{ url: `${server.origin}/`, method: "DELETE" }, "method_not_allowed"],
      [{ url: `${server.origin}/`, headers: { Host: "evil" } }, "header_not_allowed"],
      [{ url: `${server.origin}/`, headers: { Cookie: "a=1" } }, "header_not_allowed"],
      [{ url: `${server.origin}/`, headers: { accept: "a\r\nX-Injected: 1" } }, "header_not_allowed"],
      [{ url: `${server.origin}/`, headers: { accept: "a\u0000b" } }, "header_not_allowed"],
      [{ url: `${server.origin}/`, headers: { accept: "text/\u2028html" } }, "header_not_allowed"],
      [{ url: "http://[::127.0.0.1]/" }, "host_not_allowed"],
    ];
    for (const [request, reason] of cases) {
      const error = await refusal(client.request(request));
      expect(RequestRefusedError.isInstance(error), request.url).toBe(true);
      expect(error?.reason).toBe(reason);
    }
    const dnsFailure = createSafeHttpClient({ allowedHosts: ["x.test"], resolver: async () => Promise.reject(new Error("ENOTFOUND")) });
    expect((await refusal(dnsFailure.request({ url: "http://x.test/" })))?.reason).toBe("dns_failed");
    expect(server.requests).toHaveLength(0);
  });

  it("stops reading responses larger than maxResponseBytes, with or without content-length", async () => {
    const client = createSafeHttpClient(local({ maxResponseBytes: 2048 }));
    await expect(client.request({ url: `${server.origin}/big` })).rejects.toThrow(ResponseTooLargeError);
    await expect(client.request({ url: `${server.origin}/stream` })).rejects.toThrow(/larger than maxResponseBytes \(2048 bytes\)/);
  });

  it("never decompresses, so a small compressed body cannot grow past the limit", async () => {
    const response = await createSafeHttpClient(local({ maxResponseBytes: 100_000 })).request({ url: `${server.origin}/gzip-bomb` });
    expect(response.headers["content-encoding"]).toBe("gzip");
    expect(response.body.length).toBeLessThan(100_000);
    await expect(createSafeHttpClient(local({ maxResponseBytes: 1000 })).request({ url: `${server.origin}/gzip-bomb` })).rejects.toThrow(ResponseTooLargeError);
  });

  it("times out a response that sends its headers and then stalls", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const arrived = new Promise<void>((resolve) => (onRequest = resolve));
    const result = createSafeHttpClient(local({ timeoutMs: 5000 })).request({ url: `${server.origin}/trickle` });
    const assertion = expect(result).rejects.toThrow(ToolTimeoutError);
    await arrived;
    await vi.advanceTimersByTimeAsync(5000);
    await assertion;
    expect(vi.getTimerCount()).toBe(0);
  });

  it("does not send the fixed headers to another host after a redirect", async () => {
    other = await startTestServer((request, response) => response.end(JSON.stringify({ auth: request.headers.authorization ?? null })));
    try {
      const client = createSafeHttpClient(local({ maxRedirects: 1, headers: { authorization: "Bearer secret" } }));
      const response = await client.request({ url: `${server.origin}/cross-redirect` });
      expect(JSON.parse(response.body)).toEqual({ auth: null });
      expect(other.requests).toHaveLength(1);
    } finally {
      await other.close();
      other = undefined;
    }
  });

  it("times out a request that gets no answer", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const arrived = new Promise<void>((resolve) => (onRequest = resolve));
    const client = createSafeHttpClient(local({ timeoutMs: 5000 }));
    const result = client.request({ url: `${server.origin}/hang` });
    const assertion = expect(result).rejects.toThrow(/timed out after 5000 ms/);
    await arrived;
    await vi.advanceTimersByTimeAsync(5000);
    await assertion;
    await result.catch((error) => expect(ToolTimeoutError.isInstance(error)).toBe(true));
    expect(vi.getTimerCount()).toBe(0);
  });

  it("stops waiting for a resolver that never answers", async () => {
    const hangingResolver = () => new Promise<string[]>(() => undefined);
    const controller = new AbortController();
    const aborted = createSafeHttpClient({ allowedHosts: ["slow.test"], resolver: hangingResolver }).request({ url: "http://slow.test/" }, { signal: controller.signal });
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ name: "AbortError" });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const timedOut = createSafeHttpClient({ allowedHosts: ["slow.test"], resolver: hangingResolver, timeoutMs: 1000 }).request({ url: "http://slow.test/" });
    const assertion = expect(timedOut).rejects.toThrow(ToolTimeoutError);
    await vi.advanceTimersByTimeAsync(1000);
    await assertion;
    expect(vi.getTimerCount()).toBe(0);
  });

  it("aborts the request when the caller's signal aborts", async () => {
    const arrived = new Promise<void>((resolve) => (onRequest = resolve));
    const controller = new AbortController();
    const result = createSafeHttpClient(local()).request({ url: `${server.origin}/hang` }, { signal: controller.signal });
    await arrived;
    controller.abort();
    await expect(result).rejects.toMatchObject({ name: "AbortError" });
  });

  it("returns redirects as they are by default, and checks every hop it follows", async () => {
    const plain = await createSafeHttpClient(local()).request({ url: `${server.origin}/redirect` });
    expect([plain.status, plain.headers.location]).toEqual([302, "http://10.0.0.1/secret"]);
    const following = createSafeHttpClient(local({ maxRedirects: 2, allowedHosts: ["127.0.0.1", "10.0.0.1"] }));
    expect((await refusal(following.request({ url: `${server.origin}/redirect` })))?.reason).toBe("address_not_allowed");
    const followed = await following.request({ url: `${server.origin}/local-redirect` });
    expect(JSON.parse(followed.body).method).toBe("GET");
  });

  it("validates its options", () => {
    expect(() => createSafeHttpClient({} as SafeHttpOptions)).toThrow(/allowedHosts is required/);
    expect(() => createSafeHttpClient({ allowedHosts: [] })).toThrow(InvalidArgumentError);
    expect(() => createSafeHttpClient(local({ allowedAddresses: ["localhost"] }))).toThrow(/allowedAddresses holds "localhost"/);
    expect(() => createSafeHttpClient(local({ maxResponseBytes: 0 }))).toThrow(/maxResponseBytes must be an integer >= 1/);
    expect(() => createSafeHttpClient(local({ allowedProtocols: ["ftp:" as "http:"] }))).toThrow(/allowedProtocols/);
    expect(() => createSafeHttpClient(local({ allowedMethods: [] }))).toThrow(/allowedMethods must be a non-empty list of HTTP tokens/);
    expect(() => createSafeHttpClient(local({ allowedMethods: ["GET /admin"] }))).toThrow(InvalidArgumentError);
    expect(() => createSafeHttpClient(local({ allowedRequestHeaders: ["x-a\r\n"] }))).toThrow(/allowedRequestHeaders/);
    expect(() => createSafeHttpClient(local({ headers: { authorization: "Bearer t\r\nX-Admin: 1" } }))).toThrow(/headers\["authorization"\] is not a valid header/);
    // The client's own headers: the vetted host, the body's length.
    for (const name of ["Host", "content-length", "Transfer-Encoding"]) {
      expect(() => createSafeHttpClient(local({ headers: { [name]: "x" } })), name).toThrow(new RegExp(`headers\\["${name}"\\] cannot be set`));
    }
    expect(() => createSafeHttpClient(local({ headers: { cookie: "session=abc" } }))).not.toThrow();
  });

  it("refuses allowedHosts patterns that could match no host: URLs, ports, paths, stray wildcards", () => {
    const cases: Array<[string, RegExp]> = [
      ["https://api.example.com", /it is a URL; give only its host name/],
      ["api.example.com:8443", /ports are not part of a pattern/],
      ["api.example.com/v1", /more than a host name/],
      ["user@api.example.com", /more than a host name/],
      ["*", /a "\*" may only open the pattern/],
      ["api.*.example.com", /a "\*" may only open the pattern/],
      ["*.", /it has no host name/],
      ["bad host", /not a valid host name or IP/],
    ];
    for (const [pattern, message] of cases) {
      let error: unknown;
      try {
        createSafeHttpClient({ allowedHosts: ["api.example.com", pattern] });
      } catch (caught) {
        error = caught;
      }
      expect(InvalidArgumentError.isInstance(error), pattern).toBe(true);
      expect((error as InvalidArgumentError).argument).toBe("allowedHosts");
      expect((error as Error).message, pattern).toMatch(new RegExp(`allowedHosts holds "${pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}", which matches no request`));
      expect((error as Error).message, pattern).toMatch(message);
    }
    for (const good of ["api.example.com", "*.example.org", "10.0.0.5", "::1", "[::1]", "bücher.example", "API.Example.com."]) {
      expect(() => createSafeHttpClient({ allowedHosts: [good] }), good).not.toThrow();
    }
  });

  it("refuses a redirect whose Location is not a URL with a RequestRefusedError that quotes it", async () => {
    const error = await refusal(createSafeHttpClient(local({ maxRedirects: 1 })).request({ url: `${server.origin}/broken-redirect` }));
    expect(RequestRefusedError.isInstance(error)).toBe(true);
    expect(error?.reason).toBe("invalid_url");
    expect(error?.message).toContain('points to "http://[oops/", which is not a valid URL');
  });

  it("connects to the vetted address in its canonical form, never looking the resolver's spelling up again", async () => {
    const lookup = vi.spyOn(dns, "lookup");
    try {
      const client = createSafeHttpClient({ allowedHosts: ["service.internal.test"], allowedAddresses: ["127.0.0.1"], resolver: async () => ["0x7f.0.0.1"] });
      const response = await client.request({ url: `http://service.internal.test:${server.port}/echo` });
      expect(response.status).toBe(200);
      expect(lookup.mock.calls.map(([name]) => name)).not.toContain("0x7f.0.0.1");
      expect(lookup).not.toHaveBeenCalled();
    } finally {
      lookup.mockRestore();
    }
  });

  it("refuses what a resolver gives that is not a list of addresses", async () => {
    for (const answer of ["10.0.0.1", [42], null]) {
      const client = createSafeHttpClient({ allowedHosts: ["x.test"], resolver: async () => answer as never });
      const error = await refusal(client.request({ url: "http://x.test/" }));
      expect(error?.reason).toBe("dns_failed");
      expect(error?.message).toMatch(/the resolver gave .* for "x.test", not a list of IP addresses/);
    }
  });

  it("marks the timeout of a POST as not retryable (it may have been carried out), and of a GET as retryable", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const client = createSafeHttpClient(local({ timeoutMs: 1000, allowedMethods: ["GET", "POST"] }));
    for (const [method, retryable] of [["POST", false], ["GET", true], ["post", false]] as const) {
      const arrived = new Promise<void>((resolve) => (onRequest = resolve));
      const result = client.request({ url: `${server.origin}/hang`, method, body: method === "GET" ? undefined : "{}" }).catch((error: unknown) => error);
      await arrived;
      await vi.advanceTimersByTimeAsync(1000);
      const error = await result;
      expect(ToolTimeoutError.isInstance(error), method).toBe(true);
      expect((error as ToolTimeoutError).retryable, method).toBe(retryable);
    }
  });

  it("sends an idempotency key on a POST with idempotencyKeyHeader, whose timeout is then retryable; none on a GET or without the option", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const keyed = createSafeHttpClient(local({ timeoutMs: 1000, allowedMethods: ["GET", "POST"], idempotencyKeyHeader: "Idempotency-Key" }));
    const plain = createSafeHttpClient(local({ timeoutMs: 1000, allowedMethods: ["GET", "POST"] }));
    const cases = [
      [keyed, "POST", "k-1", "k-1", true],
      [keyed, "GET", "k-2", undefined, true],
      [keyed, "POST", undefined, undefined, false],
      [plain, "POST", "k-3", undefined, false],
    ] as const;
    for (const [client, method, idempotencyKey, sent, retryable] of cases) {
      const arrived = new Promise<void>((resolve) => (onRequest = resolve));
      const result = client.request({ url: `${server.origin}/hang`, method }, idempotencyKey === undefined ? {} : { idempotencyKey }).catch((error: unknown) => error);
      await arrived;
      expect(server.requests.at(-1)?.headers["idempotency-key"], `${method} ${idempotencyKey}`).toBe(sent);
      await vi.advanceTimersByTimeAsync(1000);
      expect(((await result) as ToolTimeoutError).retryable, `${method} ${idempotencyKey}`).toBe(retryable);
    }
    await expect(keyed.request({ url: `${server.origin}/x`, method: "POST" }, { idempotencyKey: "a\nb" })).rejects.toThrow(/`idempotencyKey` must be a string without line breaks/);
  });

  it("calls only the allowedPorts of an allowed host, the scheme's port for a URL without one, on every redirect hop", async () => {
    const client = createSafeHttpClient(local({ allowedPorts: [server.port], maxRedirects: 1 }));
    expect((await client.request({ url: `${server.origin}/echo` })).status).toBe(200);
    for (const [url, port] of [["http://127.0.0.1:22/", 22], ["http://127.0.0.1/", 80], ["https://127.0.0.1/", 443]] as const) {
      const error = await refusal(client.request({ url }));
      expect(RequestRefusedError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ reason: "port_not_allowed" });
      expect(error?.message).toContain(`the port ${port} is not in allowedPorts (${server.port})`);
    }
    other = await startTestServer((_request, response) => response.end("other"));
    try {
      const hop = await refusal(client.request({ url: `${server.origin}/cross-redirect` }));
      expect(hop).toMatchObject({ reason: "port_not_allowed", url: `http://127.0.0.1:${other.port}/echo` });
      expect(other.requests).toHaveLength(0);
    } finally {
      await other.close();
      other = undefined;
    }
    expect(server.requests).toHaveLength(2); // the echo and the redirect, nothing on a refused port
  });

  it.each([[[]], [[0]], [[65536]], [[443.5]], [["443"]], [443]])("refuses allowedPorts %j", (allowedPorts) => {
    let error: unknown;
    try {
      createSafeHttpClient(local({ allowedPorts: allowedPorts as never }));
    } catch (caught) {
      error = caught;
    }
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ argument: "allowedPorts" });
    expect((error as Error).message).toContain("allowedPorts must be a non-empty list of port numbers from 1 to 65535");
  });
});
