import OpenAI from "openai";
import { describe, expect, it, vi } from "vitest";
import { AbortError } from "../errors/abort-error";
import { AgentRxError } from "../errors/agentrx-error";
import { OpenAIChatModel } from "./openai-chat-model";
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
    expect(error.message).toMatch(/lost mid-stream after \d+ chunk\(s\) of the response/);
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
});
