import OpenAI from "openai";
import { describe, expect, it, vi } from "vitest";
import { AbortError } from "../errors/abort-error";
import { AgentRxError } from "../errors/agentrx-error";
import { OpenAIChatModel } from "./openai-chat-model";
import { OpenAIResponseError } from "./openai-chat-model-error";
import { failure, setup, streamAll } from "./test-helpers";

describe("OpenAIChatModel errors", () => {
  it.each([
    [{ status: 401, message: "Incorrect API key provided." }, "OpenAIAuthenticationError", 401, ["Incorrect API key provided.", "OPENAI_API_KEY"]],
    [{ status: 403, message: "You are not allowed to sample from this model." }, "OpenAIAuthenticationError", 403, ["refused access to model", "not allowed to sample"]],
    [{ status: 400, message: "'messages' must not be empty." }, "OpenAIBadRequestError", 400, ["'messages' must not be empty."]],
    [{ status: 404, message: "The model does not exist." }, "OpenAIBadRequestError", 404, ["does not exist", "`model`"]],
    [{ status: 429, message: "Quota exceeded.", retryAfter: 1 }, "OpenAIRateLimitError", 429, ["Quota exceeded.", "maxRetries"]],
    [{ status: 500, message: "Kaboom." }, "OpenAIServerError", 500, ["Kaboom.", "500"]],
  ])("turns HTTP %# into a clear error", async (reply, name, status, fragments) => {
    const { model } = await setup({ responses: [reply] });
    const error = await failure(model.invoke("go"));
    expect(error.name).toBe(name);
    expect(AgentRxError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status, model: "test-model" });
    for (const fragment of fragments) expect(error.message).toContain(fragment);
    expect(error.cause).toBeInstanceOf(Error);
  });

  it("keeps truncated streamed tool-call arguments as an invalid tool call", async () => {
    const { model } = await setup({ responses: [{ toolCalls: [{ name: "search", arguments: '{"query": "par', id: "call_1" }] }] }, { streaming: true });
    const message = await model.invoke("go");
    expect(message.tool_calls).toEqual([]);
    expect(message.invalid_tool_calls).toMatchObject([{ name: "search", args: '{"query": "par', id: "call_1" }]);
  });

  it("reports a malformed stream as an OpenAIResponseError", async () => {
    const { model } = await setup({ responses: [{ content: "a b c", malformedAfterChunks: 2 }] });
    // The SDK logs the unparsable event before throwing; keep the test output clean.
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const error = await failure(streamAll(model, "go"));
    log.mockRestore();
    expect(error.name).toBe("OpenAIResponseError");
    expect(error.message).toContain("malformed");
  });

  it("reports a connection lost mid-stream", async () => {
    const { model } = await setup({ responses: [{ content: "a b c d e", dropAfterChunks: 3 }] }, { streaming: true });
    const error = await failure(model.invoke("go"));
    expect(error.name).toBe("OpenAIConnectionError");
    expect(error).toMatchObject({ midStream: true });
    expect(error.message).toContain("lost mid-stream after 3 chunk(s) of the response");
  });

  it("counts the chunks a dropped stream delivered, even when they all came at once", async () => {
    const { model } = await setup({ responses: [{ content: "a b c d e f g", dropAfterChunks: 5 }] }, { streaming: true });
    const error = await failure(model.invoke("go"));
    expect(error.message).toContain("after 5 chunk(s)");
  });

  it("reports a timeout, naming the timeout", async () => {
    const { model } = await setup({ responses: [{ content: "late", firstByteDelayMs: 30_000 }] }, { timeout: 50 });
    const error = await failure(model.invoke("go"));
    expect(error.name).toBe("OpenAITimeoutError");
    expect(error).toMatchObject({ timeoutMs: 50 });
    expect(error.message).toContain("`timeout`");
  });

  it("names the timeout of a client passed in", async () => {
    const { server } = await setup({ responses: [{ content: "late", firstByteDelayMs: 30_000 }] });
    const client = new OpenAI({ apiKey: "k", baseURL: server.baseURL, timeout: 40, maxRetries: 0 });
    const model = new OpenAIChatModel({ model: "test-model", client });
    const error = await failure(model.invoke("go"));
    expect(error.name).toBe("OpenAITimeoutError");
    expect(error).toMatchObject({ timeoutMs: 40 });
    expect(error.message).toContain("after 40 ms");
    expect(error.message).not.toContain("attempts");
  });

  it("reports a server that cannot be reached", async () => {
    const { server, model } = await setup({ responses: [] });
    await server.close();
    const error = await failure(model.invoke("go"));
    expect(error.name).toBe("OpenAIConnectionError");
    expect(error).toMatchObject({ midStream: false });
    expect(error.message).toContain(server.baseURL);
  });
});

describe("OpenAIChatModel malformed replies", () => {
  it.each([
    ["a 200 with an HTML body", { raw: "<html><body>Bad gateway</body></html>", contentType: "text/html" }, ["text/html body", "<html>"]],
    ["JSON without choices", { raw: JSON.stringify({ id: "x", object: "chat.completion" }) }, ['without a "choices" array', "chat.completion"]],
    ["choices: []", { raw: JSON.stringify({ id: "x", object: "chat.completion", choices: [] }) }, ['empty "choices" array']],
    ["a choice without a message", { raw: JSON.stringify({ id: "x", choices: [{ index: 0 }] }) }, ['"choices[0]" without a "message"']],
  ])("rejects %s with an OpenAIResponseError saying what was wrong", async (_label, reply, fragments) => {
    const { model } = await setup({ responses: [reply] });
    const error = await failure(model.invoke("go"));
    expect(error.name).toBe("OpenAIResponseError");
    expect(OpenAIResponseError.isInstance(error)).toBe(true);
    for (const fragment of fragments) expect(error.message).toContain(fragment);
    expect(error.message).toContain("`baseURL`");
  });

  it("rejects a stream chunk without choices as an OpenAIResponseError, not a lost connection", async () => {
    const chunk = (delta: object) => JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: null }] });
    const raw = `data: ${chunk({ role: "assistant", content: "" })}\n\ndata: ${chunk({ content: "Hi" })}\n\ndata: {"id":"c","object":"chat.completion.chunk"}\n\n`;
    const { model } = await setup({ responses: [{ raw, contentType: "text/event-stream" }] }, { streaming: true });
    const error = await failure(model.invoke("go"));
    expect(error.name).toBe("OpenAIResponseError");
    expect(error.message).toContain('a streamed chunk without a "choices" array after 2 chunk(s)');
  });

  it("fails a non-streamed reply whose body stalls with an OpenAITimeoutError after `timeout`, closing the connection", async () => {
    const { server, model } = await setup({ responses: [{ content: "never finished", stallAfterBytes: 20 }] }, { timeout: 100 });
    const error = await failure(model.invoke("go"));
    expect(error.name).toBe("OpenAITimeoutError");
    expect(error).toMatchObject({ timeoutMs: 100 });
    expect(error.message).toContain("timed out after 100 ms");
    await server.requests[0]?.done;
    expect(server.requests[0]?.clientDisconnected).toBe(true);
  });

  it("retries a stalled body like any timeout", async () => {
    const { server, model } = await setup({ responses: [{ content: "stalled", stallAfterBytes: 10 }, "second try"] }, { timeout: 100, maxRetries: 1 });
    expect((await model.invoke("go")).content).toBe("second try");
    expect(server.requests).toHaveLength(2);
  });
});

describe("AbortError mapping", () => {
  it("passes the signal's own AbortError through", async () => {
    const { model, server } = await setup({ responses: [{ content: "late", firstByteDelayMs: 30_000 }] });
    const reason = new AbortError({ reason: "user stop" });
    const controller = new AbortController();
    const pending = model.invoke("go", { signal: controller.signal });
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    controller.abort(reason);
    const error = await failure(pending);
    expect(error.name).toBe("AbortError");
  });

  it.each([
    ["a string", "user pressed stop"],
    ["an Error", new Error("shutting down")],
  ])("model.stream() aborted with %s as reason rejects with an AbortError carrying it, as invoke does", async (_label, reason) => {
    const { model } = await setup({ responses: ["one two three four five six"], tokenDelayMs: 20, onExhausted: "repeat-last" });
    const controller = new AbortController();
    const streamed = (async () => {
      for await (const chunk of await model.stream("go", { signal: controller.signal })) if (chunk.text) controller.abort(reason);
    })();
    const fromStream = await failure(streamed);
    expect(AbortError.isInstance(fromStream)).toBe(true);
    expect((fromStream as AbortError).reason).toBe(reason);

    const late = new AbortController();
    const invoked = model.invoke("go", { signal: late.signal });
    late.abort(reason);
    const fromInvoke = await failure(invoked);
    expect(AbortError.isInstance(fromInvoke)).toBe(true);
    expect((fromInvoke as AbortError).reason).toBe(reason);
  });

  it("model.stream() with a signal aborted before the call rejects with an AbortError carrying the reason", async () => {
    const { model, server } = await setup({ responses: ["never"] });
    const error = await failure(streamAll({ stream: (input, options) => model.stream(input, { ...options, signal: AbortSignal.abort("too late") }) }, "go"));
    expect(AbortError.isInstance(error)).toBe(true);
    expect((error as AbortError).reason).toBe("too late");
    expect(server.requests).toHaveLength(0);
  });
});
