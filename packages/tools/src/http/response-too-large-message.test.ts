import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ResponseTooLargeError } from "../errors/response-too-large-error";
import { createSafeHttpClient } from "./safe-http-client";
import { startTestServer, type TestServer } from "./test-server";

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer((request, response) => {
    if (request.url === "/sized") return void response.end("x".repeat(5000));
    response.writeHead(200, { "content-type": "text/plain" }); // no content-length: chunked
    for (let i = 0; i < 10; i++) response.write("y".repeat(1000));
    response.end();
  });
});
afterEach(() => server.close());

const client = () => createSafeHttpClient({ allowedHosts: ["127.0.0.1"], allowedAddresses: ["127.0.0.1"], maxResponseBytes: 2048 });
const failure = async (path: string) => (await client().request({ url: `${server.origin}${path}` }).catch((error: unknown) => error)) as Error;

describe("the error for a response larger than maxResponseBytes", () => {
  it("says how much of a chunked response was read before reading stopped", async () => {
    const error = await failure("/chunked");
    expect(ResponseTooLargeError.isInstance(error)).toBe(true);
    expect(error.message).not.toMatch(/not read/);
    const read = Number(/reading stopped after (\d+) bytes/.exec(error.message)?.[1]);
    expect(read).toBeGreaterThan(2048);
    expect((error as ResponseTooLargeError).readBytes).toBe(read);
  });

  it("says a response whose content-length is past the limit was not read", async () => {
    const error = await failure("/sized");
    expect(error.message).toMatch(/larger than maxResponseBytes \(2048 bytes\) by its content-length; it was not read/);
    expect((error as ResponseTooLargeError).readBytes).toBe(0);
  });
});
