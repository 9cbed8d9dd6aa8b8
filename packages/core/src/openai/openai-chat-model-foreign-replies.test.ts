// Replies in shapes other than OpenAI's: error bodies of compatible servers (vLLM, FastAPI,
// Ollama), and a streamed request answered with something other than server-sent events.
import OpenAI from "openai";
import { VERSION } from "openai/version";
import { describe, expect, it } from "vitest";
import { OpenAIChatModel } from "./openai-chat-model";
import { OpenAIRateLimitError, OpenAIResponseError } from "./openai-chat-model-error";
import { failure, setup, streamAll } from "./test-helpers";

const completion = (message: object, extra: object = {}) =>
  JSON.stringify({
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 0,
    model: "m",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: "stop" }],
    ...extra,
  });

describe("OpenAIChatModel quotes a compatible server's own error message", () => {
  it.each([
    [
      "vLLM's error object",
      { raw: JSON.stringify({ object: "error", message: "This model's maximum context length is 4096 tokens.", type: "BadRequestError", code: 400 }), status: 400 },
      "OpenAIBadRequestError",
      "(400): This model's maximum context length is 4096 tokens.",
    ],
    ["FastAPI's detail", { raw: JSON.stringify({ detail: "Not authenticated" }), status: 401 }, "OpenAIAuthenticationError", "(401): Not authenticated."],
    [
      "FastAPI's validation errors",
      { raw: JSON.stringify({ detail: [{ loc: ["body", "messages"], msg: "field required", type: "missing" }] }), status: 422 },
      "OpenAIBadRequestError",
      "(422): body.messages: field required.",
    ],
    ["Ollama's error string", { raw: JSON.stringify({ error: 'model "llama9" not found' }), status: 404 }, "OpenAIBadRequestError", '(404): model "llama9" not found.'],
  ])("from %s", async (_label, reply, name, fragment) => {
    const { model } = await setup({ responses: [reply] });
    const error = await failure(model.invoke("go"));
    expect(error.name).toBe(name);
    expect(error.message).toContain(fragment);
    expect(error.message).not.toContain("no body");
  });

  it("quotes it in a streamed call too", async () => {
    const { model } = await setup({ responses: [{ raw: JSON.stringify({ object: "error", message: "Bad sampling parameters.", code: 400 }), status: 400 }] });
    const error = await failure(streamAll(model, "go"));
    expect(error.message).toContain("(400): Bad sampling parameters.");
  });

  it("still quotes OpenAI's own error.message", async () => {
    const { model } = await setup({ responses: [{ status: 400, message: "'messages' must not be empty." }] });
    expect((await failure(model.invoke("go"))).message).toContain("(400): 'messages' must not be empty.");
  });

  it("reads an `error` string from a client passed in, which keeps only what the SDK keeps", async () => {
    const { server } = await setup({ responses: [{ raw: JSON.stringify({ error: "model not loaded" }), status: 503 }] });
    const model = new OpenAIChatModel({ model: "m", client: new OpenAI({ apiKey: "k", baseURL: server.baseURL, maxRetries: 0 }) });
    const error = await failure(model.invoke("go"));
    expect(error.name).toBe("OpenAIServerError");
    expect(error.message).toContain("(503) after 1 attempt: model not loaded.");
  });
});

/** Whether the installed `openai` keeps an error body whole (7 does; 6 kept only its `error` member). */
const SDK_KEEPS_WHOLE_BODY = Number(VERSION.split(".")[0]) >= 7;

describe("OpenAIChatModel with a client passed in, and an error body not in OpenAI's shape", () => {
  const withClient = async (reply: object, streaming = false) => {
    const { server } = await setup({ responses: [reply] });
    return new OpenAIChatModel({ model: "m", streaming, client: new OpenAI({ apiKey: "k", baseURL: server.baseURL, maxRetries: 0 }) });
  };

  it.each([
    ["Ollama's error string", { raw: JSON.stringify({ error: 'model "llama9" not found' }), status: 404 }, '(404): model "llama9" not found.'],
    ["an error object with a message", { raw: JSON.stringify({ error: { message: "Bad sampling parameters." } }), status: 400 }, "(400): Bad sampling parameters."],
  ])("quotes %s, which the SDK keeps", async (_label, reply, fragment) => {
    for (const streaming of [false, true]) {
      expect((await failure((await withClient(reply, streaming)).invoke("go"))).message).toContain(fragment);
    }
  });

  it.each([
    ["FastAPI's detail", { raw: JSON.stringify({ detail: "Not authenticated" }), status: 401 }, "(401): Not authenticated."],
    ["vLLM's error object", { raw: JSON.stringify({ object: "error", message: "Context too long.", code: 400 }), status: 400 }, "(400): Context too long."],
  ])("quotes %s where the SDK keeps the whole body (openai 7), else says why it is not quoted and how to see it, never the SDK's misleading \"no body\"", async (_label, reply, fragment) => {
    for (const streaming of [false, true]) {
      const error = await failure((await withClient(reply, streaming)).invoke("go"));
      expect(error.message).not.toContain("(no body)");
      if (SDK_KEEPS_WHOLE_BODY) {
        expect(error.message).toContain(fragment);
      } else {
        expect(error.message).toContain("the `openai` client passed as `client` keeps only the `error` member of an error body");
        expect(error.message).toContain("build the model with `baseURL` and `apiKey` instead");
      }
    }
  });

  it("keeps the SDK's own words for a body that is not JSON", async () => {
    const error = await failure((await withClient({ raw: "upstream connect error", status: 502, contentType: "text/plain" })).invoke("go"));
    expect(error.message).toContain("upstream connect error");
  });
});

describe("OpenAIRateLimitError.retryAfter", () => {
  it("gives a retry-after-ms header alone in seconds, and Retry-After as sent when there is one", async () => {
    const { model } = await setup({
      responses: [
        { status: 429, message: "Slow down.", headers: { "retry-after-ms": "1500" } },
        { status: 429, message: "Slow down.", headers: { "retry-after-ms": "1500", "retry-after": "2" } },
      ],
    });
    const [first, second] = [await failure(model.invoke("go")), await failure(model.invoke("go"))];
    expect(OpenAIRateLimitError.isInstance(first) && first.retryAfter).toBe("1.5");
    expect(OpenAIRateLimitError.isInstance(second) && second.retryAfter).toBe("2");
  });
});

describe("OpenAIChatModel, a streamed request answered without server-sent events", () => {
  it.each([
    ["an HTML page", { raw: "<html><body>Bad gateway</body></html>", contentType: "text/html" }, ["text/html body", "<html>"]],
    ["JSON that is not a completion", { raw: JSON.stringify({ id: "x", object: "list", data: [] }) }, ['without a "choices" array']],
  ])("fails on %s with an OpenAIResponseError that says to check baseURL", async (_label, reply, fragments) => {
    const { model } = await setup({ responses: [reply] }, { streaming: true });
    const error = await failure(model.invoke("go"));
    expect(OpenAIResponseError.isInstance(error)).toBe(true);
    for (const fragment of fragments) expect(error.message).toContain(fragment);
    expect(error.message).toContain("where a stream of server-sent events was expected");
    expect(error.message).toContain("Check `baseURL`");
  });

  it("takes a whole completion (a server that ignores `stream`) as a stream of one chunk", async () => {
    const raw = completion(
      { content: "Paris.", tool_calls: [{ id: "call_1", type: "function", function: { name: "w", arguments: '{"city":"Paris"}' } }] },
      { usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } },
    );
    const { model } = await setup({ responses: [{ raw }, { raw }] });
    const chunks = await streamAll(model, "go");
    expect(chunks.map((chunk) => chunk.text)).toEqual(["Paris.", ""]);
    expect(chunks[0]?.tool_call_chunks).toMatchObject([{ index: 0, id: "call_1", name: "w", args: '{"city":"Paris"}' }]);
    const streamed = new OpenAIChatModel({ model: "test-model", baseURL: model.baseURL, apiKey: "test", maxRetries: 0, streaming: true });
    const message = await streamed.invoke("go");
    expect(message.content).toBe("Paris.");
    expect(message.tool_calls).toEqual([{ id: "call_1", name: "w", args: { city: "Paris" }, type: "tool_call" }]);
    expect(message.usage_metadata).toMatchObject({ input_tokens: 3, output_tokens: 2, total_tokens: 5 });
    expect(message.response_metadata).toMatchObject({ finish_reason: "stop" });
  });
});
