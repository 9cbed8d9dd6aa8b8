import { IDEMPOTENCY_KEY_METADATA, InvalidArgumentError } from "@agentrx/core";
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RetryableToolError } from "../errors/retryable-tool-error";
import { ToolRetriesExhaustedError } from "../errors/tool-retries-exhausted-error";
import { withRetry } from "../policies/retry-policy";
import { retryAfterMs } from "./format-response";
import { createHttpRequestTool } from "./http-request-tool";
import { startTestServer, type TestServer } from "./test-server";

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer((request, response) => {
    if (request.url === "/busy") return void response.writeHead(503, { "retry-after": "0" }).end("overloaded");
    if (request.url === "/missing") return void response.writeHead(404, { "content-type": "text/plain" }).end("no such page");
    if (request.url === "/logo.png") return void response.writeHead(200, { "content-type": "image/png" }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 0xff]));
    if (request.url === "/packed") return void response.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" }).end(gzipSync('{"a":1}'));
    if (request.url === "/latin1") return void response.writeHead(200, { "content-type": "text/plain; charset=ISO-8859-1" }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    if (request.url === "/big.pdf") return void response.writeHead(200, { "content-type": "application/pdf", "content-length": "50000000" }).end();
    if (request.url === "/unchanged") return void response.writeHead(304, { etag: '"v1"', "content-length": "50000000" }).end();
    if (request.url === "/untyped.bin") return void response.end(Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0x01, 0x02]));
    if (request.url === "/untyped-latin1") return void response.end(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x6f, 0x6b]));
    if (request.url === "/untyped.txt") return void response.end("caf\u00e9 ok");
    if (request.url === "/problem") return void response.writeHead(400, { "content-type": "application/problem+json" }).end('{"title":"bad"}');
    if (request.url === "/cut") {
      response.writeHead(200, { "content-type": "text/plain", "content-length": "100" });
      response.write("0123456789");
      return void setImmediate(() => response.socket?.destroy());
    }
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      response.writeHead(200, { "content-type": "text/plain", "x-secret": "hidden" });
      response.end(`${request.method} ${request.url} ${body}`);
    });
  });
});
afterEach(() => server.close());

const httpTool = () =>
  createHttpRequestTool({ allowedHosts: ["127.0.0.1"], allowedAddresses: ["127.0.0.1"], allowedMethods: ["GET", "POST"] });

describe("createHttpRequestTool", () => {
  it("returns the status line, content type and body", async () => {
    await expect(httpTool().invoke({ url: `${server.origin}/hello?x=1` })).resolves.toBe("HTTP 200 OK\ncontent-type: text/plain\n\nGET /hello?x=1 ");
    await expect(httpTool().invoke({ url: `${server.origin}/data`, method: "POST", body: '{"a":1}' })).resolves.toContain('POST /data {"a":1}');
  });

  it("shows a note instead of a body that is not text, and decodes the charset the content type names", async () => {
    await expect(httpTool().invoke({ url: `${server.origin}/logo.png` })).resolves.toBe("HTTP 200 OK\ncontent-type: image/png\n\n[The body is image/png, which is not text; it is not shown.]");
    await expect(httpTool().invoke({ url: `${server.origin}/packed` })).resolves.toBe(
      'HTTP 200 OK\ncontent-type: application/json\n\n[The body is encoded with content-encoding "gzip", which this tool does not decode; it is not shown.]',
    );
    await expect(httpTool().invoke({ url: `${server.origin}/latin1` })).resolves.toBe("HTTP 200 OK\ncontent-type: text/plain; charset=ISO-8859-1\n\ncafé");
    await expect(httpTool().invoke({ url: `${server.origin}/problem` })).resolves.toBe('HTTP 400 Bad Request\ncontent-type: application/problem+json\n\n{"title":"bad"}');
  });

  it("answers a HEAD for a resource larger than maxResponseBytes with its headers: there is no body to limit", async () => {
    const head = createHttpRequestTool({ allowedHosts: ["127.0.0.1"], allowedAddresses: ["127.0.0.1"], allowedMethods: ["GET", "HEAD"] });
    await expect(head.invoke({ url: `${server.origin}/big.pdf`, method: "HEAD" })).resolves.toBe("HTTP 200 OK\ncontent-type: application/pdf\ncontent-length: 50000000\n\n");
    // A 304 has no body either, whatever size its content-length gives; a GET of the large body is still refused.
    await expect(head.invoke({ url: `${server.origin}/unchanged` })).resolves.toBe("HTTP 304 Not Modified\ncontent-length: 50000000\n\n");
    await expect(head.invoke({ url: `${server.origin}/big.pdf` })).rejects.toThrow(/maxResponseBytes/);
  });

  it("shows a note instead of a body without a content-type whose bytes hold a NUL or are not UTF-8", async () => {
    const note = "HTTP 200 OK\n\n[The body has no content-type and is not UTF-8 text (binary data, or text in another charset); it is not shown.]";
    await expect(httpTool().invoke({ url: `${server.origin}/untyped.bin` })).resolves.toBe(note);
    await expect(httpTool().invoke({ url: `${server.origin}/untyped-latin1` })).resolves.toBe(note);
    await expect(httpTool().invoke({ url: `${server.origin}/untyped.txt` })).resolves.toBe("HTTP 200 OK\n\ncaf\u00e9 ok");
  });

  it("says a response was cut off, retryably for a GET only (a POST may have been carried out)", async () => {
    const get = await httpTool().invoke({ url: `${server.origin}/cut` }).catch((e: unknown) => e);
    expect(RetryableToolError.isInstance(get)).toBe(true);
    expect((get as Error).message).toMatch(/^The response from http:\/\/127\.0\.0\.1:\d+\/cut was cut off after \d+ bytes: the connection closed before the body was complete; try again\.$/);
    const post = await httpTool().invoke({ url: `${server.origin}/cut`, method: "POST" }).catch((e: unknown) => e);
    expect(RetryableToolError.isInstance(post)).toBe(false);
    expect((post as Error).message).toMatch(/^The response from http:\/\/127\.0\.0\.1:\d+\/cut was cut off after \d+ bytes: the connection closed before the body was complete\.$/);
  });

  it("returns client errors as observations", async () => {
    await expect(httpTool().invoke({ url: `${server.origin}/missing` })).resolves.toBe("HTTP 404 Not Found\ncontent-type: text/plain\n\nno such page");
  });

  it("marks overloaded answers retryable, so a retry policy tries again and then gives up", async () => {
    const error = await httpTool().invoke({ url: `${server.origin}/busy` }).catch((e: unknown) => e);
    expect(RetryableToolError.isInstance(error)).toBe(true);
    expect((error as RetryableToolError).message).toMatch(/HTTP 503 Service Unavailable from .*\/busy; try again later/);
    const retried = withRetry(httpTool(), { maxAttempts: 2, initialDelayMs: 1 });
    const exhausted = await retried.invoke({ url: `${server.origin}/busy` }).catch((e: unknown) => e);
    expect(ToolRetriesExhaustedError.isInstance(exhausted)).toBe(true);
    expect(server.requests.filter((r) => r.url === "/busy")).toHaveLength(3);
  });

  it("rejects missing, wrong-typed and disallowed arguments with a clear message", async () => {
    await expect(httpTool().invoke({} as never)).rejects.toThrow(/did not match expected schema/);
    await expect(httpTool().invoke({ url: 42 } as never)).rejects.toThrow(/did not match expected schema/);
    await expect(httpTool().invoke({ url: server.origin, method: "DELETE" } as never)).rejects.toThrow(/did not match expected schema/);
    await expect(httpTool().invoke({ url: "http://metadata.google.internal/" })).rejects.toThrow(
      /Request refused: the host "metadata.google.internal" is not in allowedHosts/,
    );
    expect(server.requests).toHaveLength(0);
  });

  it("describes its hosts and methods to the model", () => {
    expect(httpTool().description).toContain("Allowed hosts: 127.0.0.1. Allowed methods: GET, POST.");
  });

  it("does not retry a POST that got a retryable status: it may have been carried out, so the model sees the status", async () => {
    const retried = withRetry(httpTool(), { maxAttempts: 3, initialDelayMs: 1 });
    await expect(retried.invoke({ url: `${server.origin}/busy`, method: "POST", body: '{"pay":1}' })).resolves.toBe("HTTP 503 Service Unavailable\nretry-after: 0\n\noverloaded");
    expect(server.requests.filter((r) => r.url === "/busy")).toHaveLength(1);
  });

  it("sends the tool call's idempotency key on a POST when idempotencyKeyHeader is set, which makes the POST safe to retry", async () => {
    const keyed = createHttpRequestTool({ allowedHosts: ["127.0.0.1"], allowedAddresses: ["127.0.0.1"], allowedMethods: ["GET", "POST"], idempotencyKeyHeader: "Idempotency-Key" });
    const config = { metadata: { [IDEMPOTENCY_KEY_METADATA]: "run-1:0:0" } };
    const retried = withRetry(keyed, { maxAttempts: 3, initialDelayMs: 1 });
    const exhausted = await retried.invoke({ url: `${server.origin}/busy`, method: "POST", body: '{"pay":1}' }, config).catch((e: unknown) => e);
    expect(ToolRetriesExhaustedError.isInstance(exhausted)).toBe(true);
    const busy = server.requests.filter((r) => r.url === "/busy");
    expect(busy.map((r) => r.headers["idempotency-key"])).toEqual(["run-1:0:0", "run-1:0:0", "run-1:0:0"]);
    // A GET is idempotent already: no key. A call without a key (not run by an executor): no header, no retry.
    await keyed.invoke({ url: `${server.origin}/get` }, config);
    expect(server.requests.at(-1)?.headers["idempotency-key"]).toBeUndefined();
    await expect(withRetry(keyed, { maxAttempts: 3, initialDelayMs: 1 }).invoke({ url: `${server.origin}/busy`, method: "POST" })).resolves.toMatch(/^HTTP 503/);
    expect(server.requests.at(-1)?.headers["idempotency-key"]).toBeUndefined();
    expect(server.requests.filter((r) => r.url === "/busy")).toHaveLength(4);
    // The model cannot set it: it is not among the headers it may send.
    await expect(keyed.invoke({ url: `${server.origin}/x`, method: "POST", headers: { "Idempotency-Key": "mine" } }, config)).rejects.toThrow(/the header "Idempotency-Key" may not be set/);
  });

  it("refuses an idempotencyKeyHeader that is not a header name it may send", () => {
    for (const bad of ["Idempotency Key", "", "host", "Content-Length", 5]) {
      expect(() => createHttpRequestTool({ allowedHosts: ["127.0.0.1"], idempotencyKeyHeader: bad as never }), String(bad)).toThrow(/idempotencyKeyHeader must be a header name/);
    }
  });

  it("reads Retry-After as whole seconds or an HTTP date, and nothing else", () => {
    expect(retryAfterMs("120")).toBe(120_000);
    expect(retryAfterMs(" 0 ")).toBe(0);
    expect(retryAfterMs("Wed, 21 Oct 2015 07:28:00 GMT")).toBe(0);
    const inAMinute = new Date(Date.now() + 60_000).toUTCString();
    expect(retryAfterMs(inAMinute)).toBeGreaterThan(55_000);
    for (const junk of ["0x10", "1e3", "-5", "1.5", "Infinity", "", undefined]) expect(retryAfterMs(junk), String(junk)).toBeUndefined();
  });

  it("refuses retryableStatuses that are not a list of HTTP statuses", () => {
    for (const retryableStatuses of ["503", [503, "504"], [1000], 503]) {
      expect(() => createHttpRequestTool({ allowedHosts: ["127.0.0.1"], retryableStatuses: retryableStatuses as never }), JSON.stringify(retryableStatuses)).toThrow(
        /createHttpRequestTool: retryableStatuses must be a list of HTTP statuses \(integers from 100 to 599\)/,
      );
    }
    expect(() => createHttpRequestTool({ allowedHosts: ["127.0.0.1"], retryableStatuses: "503" as never })).toThrow(InvalidArgumentError);
  });
});
