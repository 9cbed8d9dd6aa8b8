import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { AIMessageChunk } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { OpenAIChatModel } from "./openai-chat-model";
import { failure, setup, streamAll } from "./test-helpers";

const lookup = tool(async () => "", {
  name: "lookup",
  description: "Look something up.",
  schema: z.object({ term: z.string() }),
});

/** The parts of a message both streaming paths must agree on. */
function essentials(message: AIMessageChunk) {
  const { tokenUsage: _legacy, ...metadata } = message.response_metadata as Record<string, unknown>;
  return {
    id: message.id,
    content: message.content,
    tool_calls: message.tool_calls,
    invalid_tool_calls: message.invalid_tool_calls,
    usage_metadata: message.usage_metadata,
    response_metadata: metadata,
  };
}

describe("OpenAIChatModel streaming", () => {
  it("invoke with streaming: true and stream() give the same message (text, tool calls, usage, finish reason)", async () => {
    const reply = {
      content: "Looking up.",
      toolCalls: [
        { name: "lookup", arguments: { term: "a \"quoted\" {term}" }, id: "call_1" },
        { name: "lookup", arguments: { term: "b" }, id: "call_2" },
      ],
      finishReason: "length" as const,
      usage: { promptTokens: 11, completionTokens: 7 },
    };
    const { model } = await setup({ responses: [reply], onExhausted: "repeat-last", toolCallChunkSize: 2 }, { streaming: true });
    const bound = model.bindTools([lookup]);
    const invoked = await bound.invoke("go");
    const streamed = (await streamAll(bound, "go")).reduce((all, chunk) => all.concat(chunk));
    expect({ ...essentials(invoked), id: undefined }).toEqual({ ...essentials(streamed), id: undefined });
    expect(invoked.tool_calls?.map((call) => call.args)).toEqual([{ term: "a \"quoted\" {term}" }, { term: "b" }]);
    expect(invoked.usage_metadata).toMatchObject({ input_tokens: 11, output_tokens: 7, total_tokens: 18 });
    expect(invoked.response_metadata).toMatchObject({ finish_reason: "length", model_name: "test-model" });
  });

  it("reports every streamed chunk to callbacks: text deltas as tokens, tool-call and usage chunks as empty tokens", async () => {
    const { model } = await setup({
      responses: [{ content: "Let me look.", toolCalls: [{ name: "lookup", arguments: { term: "x" }, id: "call_1" }] }],
      toolCallChunkSize: 4,
    });
    const seen: { token: string; chunk: AIMessageChunk | undefined }[] = [];
    const handler = BaseCallbackHandler.fromMethods({
      handleLLMNewToken: (token: string, _index, _runId, _parent, _tags, fields) =>
        void seen.push({ token, chunk: (fields?.chunk as { message?: AIMessageChunk } | undefined)?.message }),
    });
    const chunks = [];
    for await (const chunk of await model.bindTools([lookup]).stream("go", { callbacks: [handler] })) chunks.push(chunk);
    expect(seen.map((entry) => entry.token).filter(Boolean)).toEqual(["Let ", "me ", "look."]);
    expect(seen).toHaveLength(chunks.length);
    const args = seen.flatMap((entry) => entry.chunk?.tool_call_chunks ?? []).map((part) => part.args).join("");
    expect(JSON.parse(args)).toEqual({ term: "x" });
    expect(seen.some((entry) => entry.token === "" && entry.chunk?.tool_call_chunks?.[0]?.id === "call_1")).toBe(true);
    expect(seen.at(-1)?.chunk?.usage_metadata).toBeDefined();
  });

  it("reports cached and reasoning tokens, streamed or not", async () => {
    const usage = { promptTokens: 100, completionTokens: 30, cachedTokens: 64, reasoningTokens: 20 };
    const { model } = await setup({ responses: [{ content: "ok", usage }], onExhausted: "repeat-last" });
    const expected = {
      input_tokens: 100,
      output_tokens: 30,
      total_tokens: 130,
      input_token_details: { cache_read: 64 },
      output_token_details: { reasoning: 20 },
    };
    expect((await model.invoke("go")).usage_metadata).toEqual(expected);
    const streamed = (await streamAll(model, "go")).reduce((all, chunk) => all.concat(chunk));
    expect(streamed.usage_metadata).toEqual(expected);
  });

  it("keeps apart tool calls a server streams at the same index with different ids, their argument deltas included", async () => {
    const base = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 0, model: "test-model" };
    const delta = (value: unknown, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta: value, finish_reason: finish }] });
    const call = (id: string | undefined, args: string) => ({
      tool_calls: [{ index: 0, ...(id ? { id, type: "function", function: { name: "lookup", arguments: "" } } : { function: { arguments: args } }) }],
    });
    const events = [
      delta({ role: "assistant", content: null }),
      delta(call("call_a", "")),
      delta(call(undefined, '{"term":')),
      delta(call(undefined, '"a"}')),
      delta(call("call_b", "")),
      delta(call(undefined, '{"term":')),
      delta(call(undefined, '"b"}')),
      delta({}, "tool_calls"),
    ];
    const raw = `${events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join("")}data: [DONE]\n\n`;
    const { model } = await setup({ responses: [{ raw, contentType: "text/event-stream" }], onExhausted: "repeat-last" });
    const bound = model.bindTools([lookup]);
    const expected = [
      { id: "call_a", name: "lookup", args: { term: "a" }, type: "tool_call" },
      { id: "call_b", name: "lookup", args: { term: "b" }, type: "tool_call" },
    ];
    const streamed = (await streamAll(bound, "go")).reduce((all, chunk) => all.concat(chunk));
    expect(streamed.tool_calls).toEqual(expected);
    const invoked = await new OpenAIChatModel({ model: "test-model", baseURL: model.baseURL, apiKey: "test", maxRetries: 0, streaming: true }).bindTools([lookup]).invoke("go");
    expect(invoked.tool_calls).toEqual(expected);
    expect(invoked.invalid_tool_calls).toEqual([]);
  });

  it("streams a refusal as a non-streamed response carries it", async () => {
    const { model } = await setup({ responses: [{ refusal: "I can't help with that." }], onExhausted: "repeat-last" });
    const plain = await model.invoke("go");
    const streamed = (await streamAll(model, "go")).reduce((all, chunk) => all.concat(chunk));
    expect(plain.additional_kwargs.refusal).toBe("I can't help with that.");
    expect(streamed.additional_kwargs.refusal).toBe("I can't help with that.");
    expect(streamed.content).toBe("");
  });

  it("accepts a stream that finished but omitted [DONE]", async () => {
    const { model } = await setup({ responses: [{ content: "all of it", omitDone: true }] }, { streaming: true });
    const message = await model.invoke("go");
    expect(message.content).toBe("all of it");
    expect(message.response_metadata.finish_reason).toBe("stop");
  });

  it("fails a stream that ends without a finish_reason, even with streaming: true", async () => {
    const { model } = await setup({ responses: [{ content: "a b c d e", endAfterChunks: 3 }] }, { streaming: true });
    const error = await failure(model.invoke("go"));
    expect(error.name).toBe("OpenAIConnectionError");
    expect(error).toMatchObject({ midStream: true });
    expect(error.message).toContain("ended after 3 chunk(s) without a finish_reason");
  });

  it("reports an error event in the middle of the stream with the server's message", async () => {
    const { model } = await setup({ responses: [{ content: "a b c d e", errorAfterChunks: 2, errorMessage: "GPU fell over." }] });
    const error = await failure(streamAll(model, "go"));
    expect(error.name).toBe("OpenAIServerError");
    expect(error.message).toContain("GPU fell over.");
    expect(error.message).toContain("after 2 chunk(s)");
  });

  it("aborting mid-stream with streaming: true fails with an AbortError and closes the connection", async () => {
    const { server, model } = await setup({ responses: ["one two three four five six seven eight"], tokenDelayMs: 20 }, { streaming: true });
    const controller = new AbortController();
    const tokens: string[] = [];
    const handler = BaseCallbackHandler.fromMethods({
      handleLLMNewToken: (token: string) => {
        tokens.push(token);
        if (tokens.length === 2) controller.abort();
      },
    });
    const error = await failure(model.invoke("go", { signal: controller.signal, callbacks: [handler] }));
    expect(error.name).toBe("AbortError");
    await server.requests[0]?.done;
    expect(server.requests[0]?.clientDisconnected).toBe(true);
    expect(tokens.length).toBeLessThan(8);
  });

  it("fails a stream that stalls mid-way with an OpenAITimeoutError after `timeout` ms, closing the connection", async () => {
    // 1 s, not less: on a loaded machine the first chunk itself can take a few hundred ms.
    const { server, model } = await setup({ responses: ["one two three"], tokenDelayMs: 60_000 }, { timeout: 1000 });
    const error = await failure(streamAll(model, "go"));
    expect(error.name).toBe("OpenAITimeoutError");
    expect(error).toMatchObject({ timeoutMs: 1000 });
    expect(error.message).toContain("nothing arrived for 1000 ms after 1 chunk(s)");
    await server.requests[0]?.done;
    expect(server.requests[0]?.clientDisconnected).toBe(true);
  });

  it("a consumer that stops reading closes the connection", async () => {
    const { server, model } = await setup({ responses: ["one two three four five"], tokenDelayMs: 20 });
    for await (const chunk of await model.stream("go")) if (chunk.text) break;
    await server.requests[0]?.done;
    expect(server.requests[0]?.clientDisconnected).toBe(true);
  });
});
