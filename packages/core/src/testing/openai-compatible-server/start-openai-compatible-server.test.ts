import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../../errors/invalid-argument-error";
import { startOpenAICompatibleServer } from "./start-openai-compatible-server";
import { start } from "./test-helpers";


function chat(url: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi there" }], ...body }),
  });
}

/** Reads an SSE body into its `data:` payloads. */
async function events(response: Response): Promise<string[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter(Boolean)
    .map((event) => event.replace(/^data: /, ""));
}

describe("startOpenAICompatibleServer", () => {
  it("listens on 127.0.0.1 only, on an ephemeral port", async () => {
    const { url, baseURL } = await start({ responses: [] });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(baseURL).toBe(`${url}/v1`);
    expect(Number(new URL(url).port)).toBeGreaterThan(0);
  });

  it("answers a non-streamed completion and records the request body", async () => {
    const { url, requests, chatRequests } = await start({ responses: ["Hello."] });
    const response = await chat(url, { temperature: 0 });
    const body = await response.json();
    expect(response.status).toBe(200);
    expect(body.object).toBe("chat.completion");
    expect(body.choices[0].message).toMatchObject({ role: "assistant", content: "Hello." });
    expect(body.choices[0].finish_reason).toBe("stop");
    expect(body.usage).toEqual({ prompt_tokens: 2, completion_tokens: 1, total_tokens: 3 });
    expect(requests[0]).toMatchObject({ method: "POST", path: "/v1/chat/completions", clientDisconnected: false });
    expect(chatRequests()[0]).toMatchObject({ model: "m", temperature: 0 });
  });

  it("streams text deltas as server-sent events, with finish reason, usage and [DONE]", async () => {
    const { url } = await start({ responses: ["The sky is blue."] });
    const response = await chat(url, { stream: true, stream_options: { include_usage: true } });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const data = await events(response);
    expect(data.at(-1)).toBe("[DONE]");
    const chunks = data.slice(0, -1).map((payload) => JSON.parse(payload));
    expect(chunks[0].choices[0].delta.role).toBe("assistant");
    const deltas = chunks.flatMap((chunk) => (chunk.choices[0]?.delta.content ? [chunk.choices[0].delta.content] : []));
    expect(deltas).toEqual(["The ", "sky ", "is ", "blue."]);
    expect(chunks.at(-2).choices[0].finish_reason).toBe("stop");
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: 4 } });
  });

  it("sends no usage chunk unless asked", async () => {
    const { url } = await start({ responses: ["hi"] });
    const chunks = (await events(await chat(url, { stream: true }))).slice(0, -1).map((payload) => JSON.parse(payload));
    expect(chunks.some((chunk) => chunk.usage)).toBe(false);
  });

  it("streams tool calls with argument deltas split mid-JSON and interleaved by index", async () => {
    const toolCalls = [
      { name: "search", arguments: { query: "weather in Paris" }, id: "call_a" },
      { name: "calculator", arguments: { expression: "2 * (3 + 4)" } },
    ];
    const { url } = await start({ responses: [{ toolCalls }], toolCallChunkSize: 5 });
    const chunks = (await events(await chat(url, { stream: true }))).slice(0, -1).map((payload) => JSON.parse(payload));
    const deltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    const indices = deltas.filter((delta: any) => delta.function.arguments).map((delta: any) => delta.index);
    expect(indices.slice(0, 4)).toEqual([0, 1, 0, 1]);
    expect(deltas.filter((delta: any) => delta.id).map((delta: any) => delta.id)).toEqual(["call_a", "call_0_1"]);
    const assembled = [0, 1].map((index) =>
      deltas
        .filter((delta: any) => delta.index === index)
        .map((delta: any) => delta.function.arguments)
        .join(""),
    );
    expect(assembled.map((text) => JSON.parse(text))).toEqual(toolCalls.map((call) => call.arguments));
    const pieces = deltas.map((delta: any) => delta.function.arguments).filter(Boolean);
    expect(pieces.some((piece: string) => !isJson(piece))).toBe(true);
    expect(chunks.at(-1).choices[0].finish_reason).toBe("tool_calls");
  });

  it("streams tool calls one after the other with toolCallOrder: \"sequential\"", async () => {
    const toolCalls = [
      { name: "search", arguments: { query: "weather in Paris" }, id: "call_a" },
      { name: "calculator", arguments: { expression: "2 * (3 + 4)" }, id: "call_b" },
    ];
    const { url } = await start({ responses: [{ toolCalls }], toolCallChunkSize: 5, toolCallOrder: "sequential" });
    const chunks = (await events(await chat(url, { stream: true }))).slice(0, -1).map((payload) => JSON.parse(payload));
    const indices = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []).map((delta: any) => delta.index);
    const firstOfSecond = indices.indexOf(1);
    expect(firstOfSecond).toBeGreaterThan(1);
    expect(indices.slice(firstOfSecond).every((index: number) => index === 1)).toBe(true);
    await expect(startOpenAICompatibleServer({ responses: [], toolCallOrder: "random" as never })).rejects.toThrow(/toolCallOrder/);
  });

  it("answers from a function of the request", async () => {
    const { url } = await start({ responses: [(request) => `You said: ${request.body.messages[0].content}`] });
    expect((await (await chat(url, {})).json()).choices[0].message.content).toBe("You said: hi there");
  });

  it("cuts text at stop sequences", async () => {
    const { url } = await start({ responses: ["Action: search\nObservation: x"] });
    const body = await (await chat(url, { stop: ["\nObservation:"] })).json();
    expect(body.choices[0].message.content).toBe("Action: search");
  });

  it("answers scripted HTTP errors in OpenAI's format, with Retry-After", async () => {
    const { url } = await start({
      responses: [{ status: 429, message: "Slow down.", retryAfter: 2 }, { status: 400, message: "Bad 'messages'." }],
    });
    const limited = await chat(url, {});
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("2");
    expect(await limited.json()).toEqual({
      error: { message: "Slow down.", type: "rate_limit_error", param: null, code: null },
    });
    const bad = await chat(url, {});
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toBe("Bad 'messages'.");
  });

  it("checks the API key when given one", async () => {
    const { url } = await start({ responses: ["ok"], apiKey: "secret" });
    expect((await chat(url, {}, { authorization: "Bearer wrong" })).status).toBe(401);
    expect((await chat(url, {}, { authorization: "Bearer secret" })).status).toBe(200);
  });

  it("sends malformed SSE on cue", async () => {
    const { url } = await start({ responses: [{ content: "a b c", malformedAfterChunks: 2 }] });
    const data = await events(await chat(url, { stream: true }));
    expect(data).toHaveLength(3);
    expect(() => JSON.parse(data[2] as string)).toThrow();
  });

  it("drops the connection mid-stream on cue", async () => {
    const { url } = await start({ responses: [{ content: "a b c d", dropAfterChunks: 2 }] });
    const response = await chat(url, { stream: true });
    await expect(response.text()).rejects.toThrow();
  });

  it("waits before the first byte, and sees a client that gives up", async () => {
    const { url, requests } = await start({ responses: [{ content: "late", firstByteDelayMs: 60_000 }] });
    const controller = new AbortController();
    const pending = fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
      signal: controller.signal,
    });
    await expect.poll(() => requests.length).toBe(1);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await requests[0]?.done;
    expect(requests[0]?.clientDisconnected).toBe(true);
  });

  it("lists models, and 404s unknown routes", async () => {
    const { url } = await start({ responses: [], models: ["a", "b"] });
    const models = await (await fetch(`${url}/v1/models`)).json();
    expect(models.data.map((model: { id: string }) => model.id)).toEqual(["a", "b"]);
    const missing = await fetch(`${url}/v1/embeddings`, { method: "POST", body: "{}" });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.message).toContain("/v1/embeddings");
  });

  it("answers 500 without retry when the script is exhausted, or repeats or cycles", async () => {
    const { url } = await start({ responses: ["only"] });
    await chat(url, {});
    const exhausted = await chat(url, {});
    expect(exhausted.status).toBe(500);
    expect(exhausted.headers.get("x-should-retry")).toBe("false");
    expect((await exhausted.json()).error.message).toContain("#2");
    const cycling = await start({ responses: ["a", "b"], onExhausted: "cycle" });
    const contents = [];
    for (let i = 0; i < 3; i++) contents.push((await (await chat(cycling.url, {})).json()).choices[0].message.content);
    expect(contents).toEqual(["a", "b", "a"]);
  });

  it("closes with requests in flight, and refuses connections afterwards", async () => {
    const { url, requests, close } = await start({ responses: [{ content: "never", firstByteDelayMs: 60_000 }] });
    const pending = chat(url, {}).catch((error: unknown) => error);
    await expect.poll(() => requests.length).toBe(1);
    await close();
    expect(await pending).toBeInstanceOf(Error);
    await expect(fetch(`${url}/v1/models`)).rejects.toThrow();
  });

  it("leaves no server, socket or timer behind once closed", async () => {
    const count = () =>
      process.getActiveResourcesInfo().filter((kind) => /^(TCPServerWrap|TCPSocketWrap|Timeout)$/.test(kind)).length;
    const before = count();
    const { url, requests, close } = await start({ responses: ["a b", { content: "slow", firstByteDelayMs: 60_000 }] });
    await (await chat(url, { stream: true })).text();
    const pending = chat(url, {}).catch(() => undefined);
    await expect.poll(() => requests.length).toBe(2);
    await close();
    await pending;
    await expect.poll(count).toBe(before);
  });

  it("with requireReasoningBack, refuses a reasoned tool-call turn sent back without its reasoning, and records the refusals", async () => {
    const server = await start({ requireReasoningBack: true, responses: [{ reasoning: "Look it up.", toolCalls: [{ name: "weather", arguments: {}, id: "call_w" }] }, "Sunny.", "Sunny."] });
    await (await chat(server.url, { tools: [{ type: "function", function: { name: "weather", parameters: {} } }] })).json();
    const turn = { role: "assistant", content: null, tool_calls: [{ id: "call_w", type: "function", function: { name: "weather", arguments: "{}" } }] };
    const history = (assistant: Record<string, unknown>) => ({ messages: [{ role: "user", content: "Weather?" }, assistant, { role: "tool", tool_call_id: "call_w", content: "Sunny." }] });
    const refused = await chat(server.url, history(turn));
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.message).toMatch(/^Missing `reasoning_content` field in the assistant message at message index 1/);
    expect((await chat(server.url, history({ ...turn, reasoning_content: "Look it up." }))).status).toBe(200);
    // A tool-call turn the server did not make with reasoning needs none.
    expect((await chat(server.url, { messages: [{ role: "user", content: "x" }, { ...turn, tool_calls: [{ ...turn.tool_calls[0], id: "call_other" }] }, { role: "tool", tool_call_id: "call_other", content: "." }] })).status).toBe(200);
    expect((await chat(server.url, { messages: [] })).status).toBe(400);
    expect(server.rejections.map((rejection) => [rejection.index, rejection.status])).toEqual([[1, 400], [4, 400]]);
  });

  it("sends OpenRouter's reasoning_details, whole in a completion and in pieces in a stream", async () => {
    const details = [
      { type: "reasoning.text", text: "Two and two.", signature: "sig", format: "anthropic-claude-v1", index: 0 },
      { type: "reasoning.encrypted", data: "opaque", format: "google-gemini-v1" },
    ];
    const { url } = await start({ reasoningField: "reasoning", onExhausted: "repeat-last", responses: [{ reasoning: "Two and two.", reasoningDetails: details, content: "4" }] });
    const body = await (await chat(url, {})).json();
    expect(body.choices[0].message).toMatchObject({ reasoning: "Two and two.", reasoning_details: details });
    const pieces = (await events(await chat(url, { stream: true })))
      .filter((event) => event.includes("reasoning_details"))
      .map((event) => JSON.parse(event).choices[0].delta.reasoning_details);
    expect(pieces).toEqual([
      [{ type: "reasoning.text", index: 0, format: "anthropic-claude-v1", text: "Two " }],
      [{ type: "reasoning.text", index: 0, format: "anthropic-claude-v1", text: "and " }],
      [{ type: "reasoning.text", index: 0, format: "anthropic-claude-v1", text: "two.", signature: "sig" }],
      [{ type: "reasoning.encrypted", data: "opaque", format: "google-gemini-v1", index: 1 }],
    ]);
  });

  it("rejects bad options", async () => {
    await expect(startOpenAICompatibleServer({ responses: [], toolCallChunkSize: 0 })).rejects.toSatisfy(
      (error: unknown) => InvalidArgumentError.isInstance(error) && error.argument === "toolCallChunkSize",
    );
    await expect(startOpenAICompatibleServer({ responses: [], requireReasoningBack: "yes" as never })).rejects.toSatisfy(
      (error: unknown) => InvalidArgumentError.isInstance(error) && error.argument === "requireReasoningBack",
    );
  });
});

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
