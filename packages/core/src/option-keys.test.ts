import { InMemoryCache } from "@langchain/core/caches";
import { RunnableLambda } from "@langchain/core/runnables";
import { lastValueFrom, toArray } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { InvalidArgumentError, fromRunnable } from "./index";
import { OpenAIChatModel } from "./openai/index";
import {
  ScriptedChatModel,
  startAnthropicMessagesServer,
  startGoogleGenAIServer,
  startOpenAICompatibleServer,
  startOpenAIResponsesServer,
} from "./testing/index";

const double = RunnableLambda.from((n: number) => n * 2);

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** The `@langchain/core` chat model params every chat model here passes on to `BaseChatModel`. */
const langChainParams = {
  callbacks: [],
  tags: ["checked"],
  metadata: { team: "agents" },
  verbose: false,
  cache: false,
  maxRetries: 1,
  maxConcurrency: 2,
  onFailedAttempt: () => undefined,
  disableStreaming: false,
  outputVersion: "v0" as const,
};

describe("@agentrx/core's options refuse a misspelt key instead of ignoring it", () => {
  it.each([
    ["fromRunnable", () => fromRunnable(double, 1, {}, { mdoe: "invoke" } as never), /^fromRunnable: unknown option `mdoe`; did you mean `mode`\? Known options: mode\.$/],
    ["OpenAIChatModel", () => new OpenAIChatModel({ model: "m", apiKey: "k", maxRetry: 1 } as never), /^OpenAIChatModel: unknown option `maxRetry`\. Known options: model, apiKey, baseURL, .*maxRetries/],
    ["OpenAIChatModel.fromEnv", () => OpenAIChatModel.fromEnv({ apiKey: "k", temprature: 0 } as never), /^OpenAIChatModel: unknown option `temprature`; did you mean `temperature`\? Known options: .*temperature/],
    ["ScriptedChatModel", () => new ScriptedChatModel({ responses: ["hi"], latency: 5 } as never), /^ScriptedChatModel: unknown option `latency`; did you mean `latencyMs`\? Known options: responses, latencyMs, tokenDelayMs, .*callbacks/],
  ])("%s", (_name, make, message) => {
    expect(make).toThrow(InvalidArgumentError);
    expect(make).toThrow(message);
  });

  it.each([
    ["startOpenAICompatibleServer", () => startOpenAICompatibleServer({ responses: [], tokenDelay: 1 } as never), /^startOpenAICompatibleServer: unknown option `tokenDelay`; did you mean `tokenDelayMs`\? Known options: responses, onExhausted, .*tokenDelayMs/],
    ["startAnthropicMessagesServer", () => startAnthropicMessagesServer({ responses: [], validateRequest: false } as never), /^startAnthropicMessagesServer: unknown option `validateRequest`; did you mean `validateRequests`\? Known options: responses, tokenDelayMs, validateRequests\.$/],
    ["startOpenAIResponsesServer", () => startOpenAIResponsesServer({ responses: [], tokenDelay: 1 } as never), /^startOpenAIResponsesServer: unknown option `tokenDelay`; did you mean `tokenDelayMs`\? Known options: responses, tokenDelayMs, validateRequests\.$/],
    ["startGoogleGenAIServer", () => startGoogleGenAIServer({ responses: [], tokenDelay: 1 } as never), /^startGoogleGenAIServer: unknown option `tokenDelay`; did you mean `tokenDelayMs`\? Known options: responses, tokenDelayMs, validateRequests\.$/],
  ])("%s rejects before it listens", async (_name, start, message) => {
    const error = await start().then(
      async (server) => {
        closers.push(() => server.close());
        return undefined;
      },
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toMatch(message);
  });

  it("fromRunnable refuses a mode it does not know instead of streaming", () => {
    expect(() => fromRunnable(double, 1, {}, { mode: "invok" } as never)).toThrow('fromRunnable: `mode` must be "stream" or "invoke", got "invok".');
  });

  it("takes every option it documents, and @langchain/core's chat model params", async () => {
    expect(await lastValueFrom(fromRunnable(double, 21, { tags: ["t"] }, { mode: "invoke" }).pipe(toArray()))).toEqual([42]);

    const server = await startOpenAICompatibleServer({
      responses: ["Paris."],
      onExhausted: "repeat-last",
      chunkSize: 3,
      toolCallChunkSize: 4,
      toolCallOrder: "sequential",
      tokenDelayMs: 0,
      reasoningField: "reasoning",
      apiKey: "test",
      models: ["loopback-model"],
      validateRequests: true,
      requireReasoningBack: false,
    });
    closers.push(() => server.close());
    const model = new OpenAIChatModel({
      model: "loopback-model",
      apiKey: "test",
      baseURL: server.baseURL,
      maxRetryDelayMs: 10,
      timeout: 5_000,
      temperature: 0,
      topP: 1,
      maxTokens: 16,
      stop: ["\n\n"],
      seed: 1,
      presencePenalty: 0,
      frequencyPenalty: 0,
      parallelToolCalls: false,
      streaming: true,
      streamUsage: true,
      modelKwargs: { top_k: 1 },
      defaultHeaders: { "x-test": "1" },
      organization: "org",
      project: "project",
      dangerouslyAllowBrowser: false,
      ...langChainParams,
    });
    expect([model.tags, model.metadata?.team]).toEqual([["checked"], "agents"]);
    expect((await model.invoke("Capital of France?")).content).toBe("Paris.");
    expect(new OpenAIChatModel({ model: "m", client: model.client, reasoningEffort: "low", cache: new InMemoryCache() }).client).toBe(model.client);
    expect(OpenAIChatModel.fromEnv({ apiKey: "k", baseURL: server.baseURL, model: "loopback-model" })?.model).toBe("loopback-model");

    const scripted = new ScriptedChatModel({
      responses: ["Hello there."],
      latencyMs: 0,
      tokenDelayMs: 0,
      pacing: "fixed-rate",
      chunkSize: 4,
      toolCallChunkSize: 2,
      onExhausted: "cycle",
      streaming: true,
      model: "scripted",
      ...langChainParams,
    });
    expect(scripted.tags).toEqual(["checked"]);
    expect((await scripted.invoke("Hi")).content).toBe("Hello there.");

    for (const start of [startAnthropicMessagesServer, startOpenAIResponsesServer, startGoogleGenAIServer]) {
      const other = await start({ responses: ["ok"], tokenDelayMs: 0, validateRequests: false });
      closers.push(() => other.close());
      expect(other.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
    }
  });
});
