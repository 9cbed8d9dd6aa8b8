import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { OpenAIChatModel } from "./openai-chat-model";
import type { OpenAIChatModelOptions } from "./openai-chat-model-options";
import { failure, realPause, setup, streamAll, until } from "./test-helpers";

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

const search = tool(async ({ query }) => `results for ${query}`, {
  name: "search",
  description: "Search the web.",
  schema: z.object({ query: z.string().describe("What to search for") }),
});
const calculator = tool(async ({ expression }) => expression, {
  name: "calculator",
  description: "Evaluate an arithmetic expression.",
  schema: z.object({ expression: z.string() }),
});

const TOOL_CALLS = [
  { name: "search", arguments: { query: "weather in Paris, \"today\"", days: [1, 2] }, id: "call_s" },
  { name: "calculator", arguments: { expression: "{(1 + 2) * 3}" }, id: "call_c" },
];
const EXPECTED_TOOL_CALLS = TOOL_CALLS.map(({ name, arguments: args, id }) => ({ name, args, id, type: "tool_call" }));

describe("OpenAIChatModel against the loopback server", () => {
  it("invokes the completions endpoint and reports content, usage and finish reason", async () => {
    const { server, model } = await setup({ responses: ["Hello there."] }, { temperature: 0.2, maxTokens: 50 });
    const message = await model.invoke([new SystemMessage("Be brief."), new HumanMessage("Hi")]);
    expect(message.content).toBe("Hello there.");
    expect(message.usage_metadata).toEqual({ input_tokens: 3, output_tokens: 2, total_tokens: 5 });
    expect(message.response_metadata).toMatchObject({ finish_reason: "stop", model_name: "test-model" });
    expect(server.chatRequests()[0]).toEqual({
      model: "test-model",
      temperature: 0.2,
      max_tokens: 50,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hi" },
      ],
    });
    expect(server.requests[0]?.headers.authorization).toBe("Bearer test");
  });

  it("streams tokens exactly as the server sent them, and reports them to callbacks", async () => {
    const text = "Streaming, token by token: done!";
    const { server, model } = await setup({ responses: [text, text], chunkSize: 3 });
    const chunks = await streamAll(model, "go");
    const deltas = chunks.map((chunk) => chunk.content).filter(Boolean);
    expect(deltas).toEqual(text.match(/.{1,3}/gs));
    const aggregate = chunks.reduce((all, chunk) => all.concat(chunk));
    expect(aggregate.usage_metadata?.output_tokens).toBe(5);
    expect(server.chatRequests()[0]).toMatchObject({ stream: true, stream_options: { include_usage: true } });

    const tokens: string[] = [];
    const handler = BaseCallbackHandler.fromMethods({ handleLLMNewToken: (token: string) => void tokens.push(token) });
    Object.assign(handler, { lc_prefer_streaming: true });
    const message = await model.invoke("again", { callbacks: [handler] });
    // The finish and usage chunks reach the callbacks too, as empty tokens.
    expect(tokens.filter(Boolean)).toEqual(deltas);
    expect(tokens.length).toBeGreaterThan(deltas.length);
    expect(message.content).toBe(text);
  });

  it("with streaming: true, invoke streams and assembles one message with usage", async () => {
    const { server, model } = await setup({ responses: [{ content: "Let me check.", toolCalls: TOOL_CALLS }] }, { streaming: true });
    const message = await model.bindTools([search, calculator]).invoke("weather?");
    expect(server.chatRequests()[0].stream).toBe(true);
    expect(message.content).toBe("Let me check.");
    expect(message.tool_calls).toEqual(EXPECTED_TOOL_CALLS);
    expect(message.invalid_tool_calls).toEqual([]);
    expect(message.usage_metadata?.total_tokens).toBeGreaterThan(0);
    expect(message.response_metadata.finish_reason).toBe("tool_calls");
  });

  it("assembles parallel tool calls exactly from interleaved argument deltas", async () => {
    const { model } = await setup({ responses: [{ toolCalls: TOOL_CALLS }], toolCallChunkSize: 3 });
    const chunks = await streamAll(model.bindTools([search, calculator]), "go");
    const argumentDeltas = chunks.flatMap((chunk) => chunk.tool_call_chunks ?? []).filter((chunk) => chunk.args);
    expect(argumentDeltas.length).toBeGreaterThan(10);
    const aggregate = chunks.reduce((all, chunk) => all.concat(chunk));
    expect(aggregate.tool_calls).toEqual(EXPECTED_TOOL_CALLS);
  });

  it("parses tool calls of a non-streamed response, keeping broken arguments as invalid tool calls", async () => {
    const { model } = await setup({
      responses: [{ toolCalls: [...TOOL_CALLS, { name: "search", arguments: '{"query": ', id: "call_bad" }] }],
    });
    const message = await model.bindTools([search]).invoke("go");
    expect(message.tool_calls).toEqual(EXPECTED_TOOL_CALLS);
    expect(message.invalid_tool_calls).toMatchObject([{ name: "search", args: '{"query": ', id: "call_bad" }]);
  });

  it("sends tools as JSON Schema, with tool choice and parallel_tool_calls", async () => {
    const { server, model } = await setup({ responses: ["a", "b", "c"] });
    await model.bindTools([search], { tool_choice: "search", parallel_tool_calls: false }).invoke("x");
    await model.bindTools([search, calculator], { tool_choice: "any" }).invoke("x");
    await model.invoke("x", { tool_choice: "auto" });
    const [first, second, third] = server.chatRequests();
    expect(first.tools).toEqual([
      {
        type: "function",
        function: {
          name: "search",
          description: "Search the web.",
          parameters: expect.objectContaining({
            type: "object",
            properties: { query: { type: "string", description: "What to search for" } },
            required: ["query"],
          }),
        },
      },
    ]);
    expect(first.tool_choice).toEqual({ type: "function", function: { name: "search" } });
    expect(first.parallel_tool_calls).toBe(false);
    expect(second.tool_choice).toBe("required");
    expect(second.tools.map((entry: { function: { name: string } }) => entry.function.name)).toEqual(["search", "calculator"]);
    expect(third.tools).toBeUndefined();
    expect(third.tool_choice).toBeUndefined();
  });

  it("sends reasoningEffort with every call and parallelToolCalls with calls that have tools (a call's own wins)", async () => {
    const { server, model } = await setup({ responses: ["a", "b", "c"] }, { model: "o4-mini", reasoningEffort: "low", parallelToolCalls: false });
    await model.bindTools([search]).invoke("x");
    await model.bindTools([search], { parallel_tool_calls: true }).invoke("x");
    await model.invoke("x");
    const [first, second, third] = server.chatRequests();
    expect([first.parallel_tool_calls, second.parallel_tool_calls, third.parallel_tool_calls]).toEqual([false, true, undefined]);
    expect([first.reasoning_effort, second.reasoning_effort, third.reasoning_effort]).toEqual(["low", "low", "low"]);
  });

  it("checks reasoningEffort and parallelToolCalls when the model is built", () => {
    const build = (extra: Record<string, unknown>) => () => new OpenAIChatModel({ model: "o4-mini", apiKey: "test", ...extra });
    expect(build({ reasoningEffort: "hard" })).toThrow(/`reasoningEffort` must be one of "none", "minimal", "low"/);
    expect(build({ parallelToolCalls: "yes" })).toThrow(/`parallelToolCalls` must be true or false/);
  });

  it("checks the switches, ids, headers and client when the model is built, naming the option", () => {
    const build = (extra: Record<string, unknown>) => () => new OpenAIChatModel({ model: "m", apiKey: "test", ...extra });
    expect(build({ streaming: "false" })).toThrow('OpenAIChatModel: `streaming` must be true or false, got "false".');
    expect(build({ streamUsage: 0 })).toThrow("OpenAIChatModel: `streamUsage` must be true or false, got 0.");
    expect(build({ dangerouslyAllowBrowser: "yes" })).toThrow(/`dangerouslyAllowBrowser` must be true or false/);
    expect(build({ organization: 5 })).toThrow("OpenAIChatModel: `organization` must be a non-empty string, got 5.");
    expect(build({ project: {} })).toThrow("OpenAIChatModel: `project` must be a non-empty string, got {}.");
    expect(build({ defaultHeaders: "x-a" })).toThrow(/`defaultHeaders` must be an object of header values/);
    expect(build({ defaultHeaders: ["x"] })).toThrow(/`defaultHeaders` must be an object of header values/);
    expect(build({ defaultHeaders: { "X-Team": 7 } })).toThrow("OpenAIChatModel: `defaultHeaders.X-Team` must be a string, got 7.");
    expect(build({ client: {} })).toThrow(/`client` must be an OpenAI client/);
    expect(build({ streaming: false, streamUsage: true, organization: "org-1", project: "proj-1", defaultHeaders: { "X-Team": "search", "X-Unset": undefined } })).not.toThrow();
  });

  it("sends tool-call history and tool results in the Chat Completions format", async () => {
    const { server, model } = await setup({ responses: ["It is sunny."] });
    await model.invoke([
      new HumanMessage("weather?"),
      new AIMessage({ content: "", tool_calls: [{ name: "search", args: { query: "weather" }, id: "call_1" }] }),
      new ToolMessage({ content: "sunny", tool_call_id: "call_1" }),
    ]);
    expect(server.chatRequests()[0].messages).toEqual([
      { role: "user", content: "weather?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "search", arguments: '{"query":"weather"}' } }],
      },
      { role: "tool", tool_call_id: "call_1", content: "sunny" },
    ]);
  });

  it("merges stop sequences and honours them", async () => {
    const { server, model } = await setup({ responses: ["Thought: x\nObservation: y"] }, { stop: ["STOP"] });
    const message = await model.invoke("go", { stop: ["\nObservation:"] });
    expect(server.chatRequests()[0].stop).toEqual(["STOP", "\nObservation:"]);
    expect(message.content).toBe("Thought: x");
  });

  it("aborting mid-stream closes the connection and fails with an AbortError", async () => {
    const { server, model } = await setup({ responses: ["one two three four five six seven eight"], tokenDelayMs: 20 });
    const controller = new AbortController();
    const seen: string[] = [];
    const run = (async () => {
      for await (const chunk of await model.stream("go", { signal: controller.signal })) {
        if (chunk.text) seen.push(chunk.text);
        if (seen.length === 2) controller.abort();
      }
    })();
    const error = await failure(run);
    expect(error.name).toBe("AbortError");
    expect(seen.slice(0, 2)).toEqual(["one ", "two "]);
    expect(seen.length).toBeLessThan(8);
    await server.requests[0]?.done;
    expect(server.requests[0]?.clientDisconnected).toBe(true);
  });

  it("an already aborted signal fails at once with an AbortError", async () => {
    const { model } = await setup({ responses: ["never"] });
    const error = await failure(model.invoke("go", { signal: AbortSignal.abort() }));
    expect(error.name).toBe("AbortError");
  });

  it("retries a 429 after exactly the wait Retry-After asks for", async () => {
    const { server, model } = await setup(
      { responses: [{ status: 429, message: "Rate limited.", retryAfter: 30 }, "finally"] },
      { maxRetries: 1, timeout: 600_000 },
    );
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const scheduled = vi.spyOn(globalThis, "setTimeout");
    const pending = model.invoke("go");
    // The SDK read the 429 and scheduled its wait: exactly what Retry-After asked for. (Not
    // vi.waitFor: under fake timers it advances them while polling.)
    await until(() => scheduled.mock.calls.some(([, ms]) => ms === 30_000));
    scheduled.mockRestore();
    await vi.advanceTimersByTimeAsync(29_999);
    await realPause();
    expect(server.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect((await pending).content).toBe("finally");
  });

  it("retries a 5xx after an exponential backoff without Retry-After, then succeeds", async () => {
    const { server, model } = await setup({ responses: [{ status: 503, message: "Overloaded." }, "ok"] }, { maxRetries: 2 });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const scheduled = vi.spyOn(globalThis, "setTimeout");
    const pending = model.invoke("go");
    const isBackoff = (ms: unknown) => typeof ms === "number" && ms >= 375 && ms <= 500; // 0.5 s minus up to 25 % jitter
    await until(() => scheduled.mock.calls.some(([, ms]) => isBackoff(ms)));
    scheduled.mockRestore();
    expect(server.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(500);
    expect((await pending).content).toBe("ok");
    expect(server.requests).toHaveLength(2);
  });
});

describe("OpenAIChatModel construction", () => {
  it("reads OPENAI_API_KEY and OPENAI_BASE_URL", async () => {
    const { server } = await setup({ responses: ["from env"], apiKey: "sk-env" });
    vi.stubEnv("OPENAI_API_KEY", "sk-env");
    vi.stubEnv("OPENAI_BASE_URL", server.baseURL);
    const model = new OpenAIChatModel({ model: "m" });
    expect(model.baseURL).toBe(server.baseURL);
    expect((await model.invoke("hi")).content).toBe("from env");
  });

  it("needs no key for a compatible server, but does for OpenAI", () => {
    vi.stubEnv("OPENAI_API_KEY", "");
    vi.stubEnv("OPENAI_BASE_URL", "");
    expect(() => new OpenAIChatModel({ model: "llama3", baseURL: "http://127.0.0.1:11434/v1" })).not.toThrow();
    expect(() => new OpenAIChatModel({ model: "gpt-4o-mini" })).toThrow(/OPENAI_API_KEY/);
  });

  it("fromEnv returns undefined without configuration, and a model with it", () => {
    vi.stubEnv("OPENAI_API_KEY", "");
    vi.stubEnv("OPENAI_BASE_URL", "");
    expect(OpenAIChatModel.fromEnv()).toBeUndefined();
    vi.stubEnv("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1");
    vi.stubEnv("OPENAI_MODEL", "local-model");
    expect(OpenAIChatModel.fromEnv()).toMatchObject({ model: "local-model", baseURL: "http://127.0.0.1:8080/v1" });
  });

  it.each([
    [{ model: "" }, "model"],
    [{ model: "m", maxRetries: -1 }, "maxRetries"],
    [{ model: "m", timeout: 0 }, "timeout"],
    [{ model: "m", timeout: 2 ** 31 }, "timeout"],
    [{ model: "m", maxRetryDelayMs: -1 }, "maxRetryDelayMs"],
    [{ model: "m", maxRetryDelayMs: Number.POSITIVE_INFINITY }, "maxRetryDelayMs"],
    [{ model: "m", maxRetryDelayMs: "60s" }, "maxRetryDelayMs"],
    [{ model: "m", temperature: 3 }, "temperature"],
    [{ model: "m", topP: -0.1 }, "topP"],
    [{ model: "m", maxTokens: 1.5 }, "maxTokens"],
    [{ model: "m", baseURL: "localhost:8080" }, "baseURL"],
    [{ model: "m", stop: "END" }, "stop"],
  ])("rejects bad option %#", (options, argument) => {
    let error: unknown;
    try {
      new OpenAIChatModel({ apiKey: "k", ...(options as object) } as OpenAIChatModelOptions);
    } catch (caught) {
      error = caught;
    }
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as InvalidArgumentError).argument).toBe(argument);
    expect((error as Error).message).toContain(`\`${argument}\``);
  });

  it("rejects a bad option JSON cannot write (a BigInt, a cycle) naming it, not with a TypeError", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    const make = (options: object) => () => new OpenAIChatModel({ model: "m", apiKey: "k", ...options } as OpenAIChatModelOptions);
    expect(make({ maxRetries: 2n })).toThrow(InvalidArgumentError);
    expect(make({ maxRetries: 2n })).toThrow(/^OpenAIChatModel: `maxRetries` must be an integer >= 0, got 2n\.$/);
    expect(make({ timeout: cyclic })).toThrow(/^OpenAIChatModel: `timeout` must be a number of milliseconds from 1 to \d+, got an object\.$/);
  });

  it("builds its client in a browser page only with dangerouslyAllowBrowser", () => {
    vi.stubGlobal("window", { document: {} });
    vi.stubGlobal("document", {});
    vi.stubGlobal("navigator", {});
    try {
      const options = { model: "m", apiKey: "unused", baseURL: "https://app.example.com/api/llm/v1" };
      expect(() => new OpenAIChatModel(options)).toThrow(/dangerouslyAllowBrowser/);
      expect(new OpenAIChatModel({ ...options, dangerouslyAllowBrowser: true }).baseURL).toBe("https://app.example.com/api/llm/v1");
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("keeps the API key out of its serialised form", () => {
    const model = new OpenAIChatModel({ model: "m", apiKey: "sk-secret", baseURL: "http://127.0.0.1:1/v1" });
    expect(JSON.stringify(model.toJSON())).not.toContain("sk-secret");
  });

  it.each([
    [{ stream: true }, "modelKwargs.stream", "`streaming`"],
    [{ messages: [] }, "modelKwargs.messages", "invoke"],
    [{ model: "other" }, "modelKwargs.model", "`model` option"],
    [{ tools: [] }, "modelKwargs.tools", "bindTools"],
    [{ tool_choice: "required" }, "modelKwargs.tool_choice", "bindTools"],
    [{ parallel_tool_calls: false }, "modelKwargs.parallel_tool_calls", "parallelToolCalls"],
  ])("refuses modelKwargs %j, a key the model writes itself", (modelKwargs, argument, instead) => {
    let error: unknown;
    try {
      new OpenAIChatModel({ model: "m", apiKey: "k", modelKwargs });
    } catch (caught) {
      error = caught;
    }
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as InvalidArgumentError).argument).toBe(argument);
    expect((error as Error).message).toContain(`\`${argument}\` cannot be set`);
    expect((error as Error).message).toContain(instead);
  });

  it("refuses modelKwargs that are not an object, or that set what an option sets too", () => {
    expect(() => new OpenAIChatModel({ model: "m", apiKey: "k", modelKwargs: "top_k=20" as never })).toThrow(/`modelKwargs` must be an object/);
    expect(() => new OpenAIChatModel({ model: "m", apiKey: "k", temperature: 0, modelKwargs: { temperature: 1 } })).toThrow(
      /`modelKwargs.temperature` and the `temperature` option/,
    );
    expect(() => new OpenAIChatModel({ model: "o3", apiKey: "k", maxTokens: 10, modelKwargs: { max_completion_tokens: 20 } })).toThrow(
      /`modelKwargs.max_completion_tokens` and the `maxTokens` option/,
    );
    expect(() => new OpenAIChatModel({ model: "m", apiKey: "k", modelKwargs: { stream_options: true } })).toThrow(/`modelKwargs.stream_options` must be an object/);
  });

  it("merges modelKwargs.stream_options into streamed requests only, keeping include_usage", async () => {
    const { server, model } = await setup(
      { responses: ["a", "b"] },
      { modelKwargs: { top_k: 20, stream_options: { continuous_usage_stats: true } } },
    );
    await model.invoke("x");
    await streamAll(model, "x");
    const [plain, streamed] = server.chatRequests();
    expect(plain).toMatchObject({ top_k: 20 });
    expect(plain).not.toHaveProperty("stream_options");
    expect(streamed).toMatchObject({ top_k: 20, stream: true, stream_options: { continuous_usage_stats: true, include_usage: true } });
  });
});

describe("ChatOpenAI's option names", () => {
  it.each([
    [{ modelName: "gpt-4o" }, "modelName", "the model's name goes in `model`"],
    [{ model: "m", openAIApiKey: "sk-x" }, "openAIApiKey", "the key goes in `apiKey`"],
    [{ model: "m", configuration: { baseURL: "http://127.0.0.1:1/v1" } }, "configuration", "the server goes in `baseURL`"],
  ])("%j: refused, saying where it goes", (options, key, hint) => {
    expect(() => new OpenAIChatModel(options as never)).toThrow(`OpenAIChatModel: unknown option \`${key}\`: ${hint}`);
  });
});
