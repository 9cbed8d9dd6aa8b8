// An error names the attempts that were made: fewer than maxRetries + 1 when the server said not to
// retry (`x-should-retry: false`), and then it does not advise raising maxRetries.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { OpenAIChatModel } from "./openai-chat-model";
import { failure } from "./test-helpers";

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A server that answers every request with `status` and `headers`; `requests()` counts them. */
async function failing(status: number, headers: Record<string, string>): Promise<{ url: string; requests: () => number }> {
  let count = 0;
  server = createServer((_request, response) => {
    count++;
    response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify({ error: { message: "overloaded" } }));
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests: () => count };
}

const model = (url: string, maxRetries: number) => new OpenAIChatModel({ model: "m", baseURL: url, apiKey: "test", maxRetries, maxRetryDelayMs: 1 });

describe("the attempts an error names", () => {
  it.each([
    [503, "failed (503) after 1 attempt (the server said not to retry): overloaded."],
    [429, "is rate limiting model \"m\" (429) after 1 attempt (the server said not to retry): overloaded. Slow down."],
  ])("%i with x-should-retry: false: the one attempt made, no advice to raise maxRetries", async (status, text) => {
    const { url, requests } = await failing(status, { "x-should-retry": "false" });
    const error = await failure(model(url, 5).invoke("hi"));
    expect(requests()).toBe(1);
    expect(error.message).toContain(text);
    expect(error.message).not.toContain("maxRetries");
  });

  it("every attempt made: as many as maxRetries + 1", async () => {
    const { url, requests } = await failing(500, {});
    const error = await failure(model(url, 2).invoke("hi"));
    expect(requests()).toBe(3);
    expect(error.message).toContain("failed (500) after 3 attempts: overloaded");
  });
});
