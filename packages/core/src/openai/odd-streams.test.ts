// Streams of compatible servers that bend the format: one that sends its whole answer and `[DONE]`
// but keeps the connection open (the call ends with the answer once the stream goes quiet after
// its finish_reason, and closes the connection); one that splits a tool's name across deltas.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { OpenAIChatModel } from "./openai-chat-model";

let server: Server | undefined;
async function stopServer(): Promise<void> {
  const running = server;
  server = undefined;
  if (running === undefined) return;
  running.closeAllConnections();
  await new Promise((resolve) => running.close(resolve));
}
afterEach(stopServer);

const chunk = (delta: Record<string, unknown>, finish: string | null) => ({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] });

/** A server whose stream sends `events` and then, unless `end`, neither ends nor sends more; `closed` resolves when the client closes the connection. */
async function keptOpen(events: unknown[], end = false): Promise<{ url: string; closed: Promise<void> }> {
  let closedResolve!: () => void;
  const closed = new Promise<void>((resolve) => (closedResolve = resolve));
  server = createServer((_request, response: ServerResponse) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    for (const event of events) response.write(`data: ${typeof event === "string" ? event : JSON.stringify(event)}\n\n`);
    response.on("close", closedResolve);
    if (end) response.end();
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, closed };
}

describe("a stream kept open after its answer", () => {
  it.each([
    ["after [DONE]", [chunk({ role: "assistant", content: "Complete answer." }, "stop"), { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m", choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }, "[DONE]"], 5],
    ["without [DONE] or usage", [chunk({ role: "assistant", content: "Complete answer." }, "stop")], undefined],
  ])("%s: gives the answer, its usage, and closes the connection", async (_name, events, total) => {
    const { url, closed } = await keptOpen(events);
    for (const timeout of [undefined, 30_000]) {
      const model = new OpenAIChatModel({ model: "m", baseURL: url, apiKey: "test", maxRetries: 0, streaming: true, ...(timeout === undefined ? {} : { timeout }) });
      const message = await model.invoke("hi");
      expect(message.text).toBe("Complete answer.");
      expect(message.usage_metadata?.total_tokens).toBe(total);
    }
    await closed;
  });

  it("still fails a stream that goes quiet before its finish_reason, with the call's timeout", async () => {
    const { url } = await keptOpen([chunk({ role: "assistant", content: "Half an" }, null)]);
    const model = new OpenAIChatModel({ model: "m", baseURL: url, apiKey: "test", maxRetries: 0, streaming: true, timeout: 300 });
    await expect(model.invoke("hi")).rejects.toMatchObject({ name: "OpenAITimeoutError" });
  });
});

describe("a tool's name split across deltas", () => {
  it("is joined, not replaced by its last piece; a name repeated on each delta stays whole", async () => {
    const call = (name: string, args: string, id?: string) => chunk({ tool_calls: [{ index: 0, ...(id ? { id, type: "function" } : {}), function: { name, arguments: args } }] }, null);
    for (const [pieces, expected] of [
      [["wea", "ther"], "weather"],
      [["weather", "weather"], "weather"],
      [["wea", "weather"], "weather"],
    ] as const) {
      const { url } = await keptOpen([call(pieces[0], "", "c0"), call(pieces[1], '{"city":"X"}'), chunk({}, "tool_calls"), "[DONE]"], true);
      const model = new OpenAIChatModel({ model: "m", baseURL: url, apiKey: "test", maxRetries: 0, streaming: true });
      const message = await model.invoke("hi");
      expect(message.tool_calls).toEqual([expect.objectContaining({ name: expected, args: { city: "X" }, id: "c0" })]);
      await stopServer();
    }
  });
});
