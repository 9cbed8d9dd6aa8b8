// A provider's run re-run offline with RecordedChatModel (docs/runs.md), from a SQLite record made
// through stream() or invoke(): the images a tool returned are placed as they were for the recorded
// model (a user message on OpenAI's Chat Completions, `input_image` items on the Responses API,
// notes for what Anthropic takes no tool result of), and each call is priced by the name its live
// call was priced by (a streamed Anthropic reply names its model in `additional_kwargs` only).
import { join } from "node:path";
import { createToolCallingAgent } from "@agentrx/agents";
import { OpenAIChatModel } from "@agentrx/core/openai";
import { ScriptedChatModel, startAnthropicMessagesServer, startOpenAICompatibleServer, startOpenAIResponsesServer } from "@agentrx/core/testing";
import { AgentExecutor, costBudget, type AgentExecutorOptions, type AgentExecutorCallConfig, type AgentStreamEvent, type RunStore } from "@agentrx/executors";
import { RecordedChatModel, SqliteRunStore } from "@agentrx/runs";
import { ChatAnthropic } from "@langchain/anthropic";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { lastValueFrom, toArray } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { prompt, weather } from "./agent-setup";
import { cleanupAfterEach } from "./support";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const chart = tool(async ({ month }) => [{ type: "text", text: `Sales in ${month}:` }, { type: "image", mimeType: "image/png", data: PNG }], {
  name: "chart",
  description: "Draws the sales chart of a month.",
  schema: z.object({ month: z.string() }),
});
const memo = tool(async () => [{ type: "text", text: "The memo:" }, { type: "audio", mimeType: "audio/wav", data: "UklGRg==" }], {
  name: "memo",
  description: "Plays the voice memo.",
  schema: z.object({}),
});

const { track, tempDir } = cleanupAfterEach();
const stores: RunStore[] = [];
afterEach(async () => {
  await Promise.allSettled(stores.splice(0).map((store) => store.close?.()));
});

function sqliteStore(): SqliteRunStore {
  const store = new SqliteRunStore({ path: join(tempDir("replay-provider-"), "runs.db") });
  stores.push(store);
  return store;
}

type How = "stream" | "invoke";

function executor(llm: BaseChatModel, tools: StructuredToolInterface[], options: Partial<AgentExecutorOptions> = {}) {
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools, prompt }), tools, ...options });
}

/** The run's output (its `output` event, or what `invoke()` resolves with), through `stream()` or `invoke()`. */
async function run(agent: AgentExecutor, how: How, inputs: Record<string, unknown>, options: AgentExecutorCallConfig = {}) {
  if (how === "invoke") return lastValueFrom(agent.invoke(inputs, options));
  const last: AgentStreamEvent | undefined = (await lastValueFrom(agent.stream(inputs, options).pipe(toArray()))).at(-1);
  if (last?.type !== "output") throw new Error(`the run ended with ${JSON.stringify(last)}`);
  return last;
}

const COMBINATIONS: [How, How][] = [
  ["stream", "invoke"],
  ["invoke", "stream"],
  ["stream", "stream"],
];

describe("RecordedChatModel re-runs a run whose tool returned an image", () => {
  const models: [string, "completions" | "responses", (baseURL: string) => BaseChatModel][] = [
    ["OpenAIChatModel", "completions", (baseURL) => new OpenAIChatModel({ model: "gpt-4o", apiKey: "test", baseURL, maxRetries: 0 })],
    ["ChatOpenAI", "completions", (baseURL) => new ChatOpenAI({ model: "gpt-4o", apiKey: "test", configuration: { baseURL }, maxRetries: 0 })],
    ["ChatOpenAI (useResponsesApi)", "responses", (baseURL) => new ChatOpenAI({ model: "gpt-4o", apiKey: "test", configuration: { baseURL }, useResponsesApi: true, maxRetries: 0 })],
  ];
  for (const [name, api, model] of models) {
    it.each(COMBINATIONS)(`${name}: recorded through %s(), re-run through %s()`, async (recordedWith, rerunWith) => {
      const turns = [{ toolCalls: [{ name: "chart", arguments: { month: "May" }, id: "call_May" }] }, "Sales grow."];
      const server = track(
        api === "responses"
          ? await startOpenAIResponsesServer({ responses: [{ toolCalls: [{ name: "chart", arguments: { month: "May" } }] }, { text: "Sales grow." }] })
          : await startOpenAICompatibleServer({ responses: turns }),
      );
      const store = sqliteStore();
      const live = await run(executor(model(server.baseURL), [chart], { store }), recordedWith, { input: "Show May." }, { runId: "r" });
      expect(live.output).toBe("Sales grow.");
      expect(server.rejections).toEqual([]);

      const llm = new RecordedChatModel({ store, runId: "r" });
      const rerun = await run(executor(llm, [chart]), rerunWith, { input: "Show May." });
      expect(rerun.output).toBe("Sales grow.");
      expect(llm.callCount).toBe(2);
    });
  }

  it("ChatAnthropic: a tool's audio, a note in the tool result, is a note on the re-run too", async () => {
    const server = track(await startAnthropicMessagesServer({ responses: [{ toolCalls: [{ name: "memo", input: {} }] }, { text: "Heard it." }] }));
    const store = sqliteStore();
    const anthropic = new ChatAnthropic({ model: "claude-sonnet-4-5", apiKey: "test", anthropicApiUrl: server.url, maxRetries: 0 });
    expect((await run(executor(anthropic, [memo], { store }), "stream", { input: "Play it." }, { runId: "r" })).output).toBe("Heard it.");

    const llm = new RecordedChatModel({ store, runId: "r" });
    expect((await run(executor(llm, [memo]), "invoke", { input: "Play it." })).output).toBe("Heard it.");
  });

  it("places the images of a history's tool results for the first call, before the recording is read", async () => {
    const server = track(await startOpenAICompatibleServer({ responses: ["It shows May's sales."] }));
    const chatHistory = () => [
      new AIMessage({ content: "", tool_calls: [{ id: "call_May", name: "chart", args: { month: "May" } }] }),
      new ToolMessage({ tool_call_id: "call_May", name: "chart", content: [{ type: "text", text: "Sales in May:" }, { type: "image", mimeType: "image/png", data: PNG }] }),
    ];
    const store = sqliteStore();
    const live = await run(executor(new OpenAIChatModel({ model: "gpt-4o", apiKey: "test", baseURL: server.baseURL, maxRetries: 0 }), [chart], { store }), "invoke", { input: "What did it show?", chat_history: chatHistory() }, { runId: "r" });
    expect(live.output).toBe("It shows May's sales.");
    expect(server.chatRequests()[0]?.["messages"].map((message: { role: string }) => message.role)).toEqual(["system", "assistant", "tool", "user", "user"]);

    const rerun = await run(executor(new RecordedChatModel({ store, runId: "r" }), [chart]), "stream", { input: "What did it show?", chat_history: chatHistory() });
    expect(rerun.output).toBe("It shows May's sales.");
  });
});

describe("RecordedChatModel prices a re-run as its live run was priced", () => {
  it.each(["stream", "invoke"] as const)("ChatAnthropic, recorded through %s(): the same cost, and costBudget stops the re-run where it stopped the run", async (how) => {
    const server = track(
      await startAnthropicMessagesServer({
        responses: ["Paris", "Rome", "Oslo"].map((city) => ({ toolCalls: [{ name: "weather", input: { city } }] })).concat([{ text: "All sunny." } as never]),
      }),
    );
    const store = sqliteStore();
    const prices = { "claude-sonnet-4-5": { input: 3000, output: 15000 } };
    const anthropic = new ChatAnthropic({ model: "claude-sonnet-4-5", apiKey: "test", anthropicApiUrl: server.url, maxRetries: 0 });
    const live = await run(executor(anthropic, [weather], { store, prices }), how, { input: "Weather?" }, { runId: "r", stopWhen: costBudget(0.5) });
    expect(live.stopReason).toBe("budget");
    expect(live.usage?.unpricedCalls).toBeUndefined();

    for (const rerunWith of ["stream", "invoke"] as const) {
      const rerun = await run(executor(new RecordedChatModel({ store, runId: "r" }), [weather], { prices }), rerunWith, { input: "Weather?" }, { stopWhen: costBudget(0.5) });
      expect(rerun.stopReason).toBe("budget");
      expect(rerun.usage).toEqual(live.usage);
    }
  });

  it("a model whose replies name no model (priced by its `ls_model_name`)", async () => {
    const store = sqliteStore();
    const prices = { "scripted-pro": { input: 1, output: 2 } };
    const scripted = new ScriptedChatModel({ model: "scripted-pro", responses: [{ toolCalls: [{ name: "weather", args: { city: "Paris" } }] }, "Sunny."] });
    const live = await run(executor(scripted, [weather], { store, prices }), "stream", { input: "Weather?" }, { runId: "r" });
    expect(live.usage?.cost?.total).toBeGreaterThan(0);
    expect(live.usage?.unpricedCalls).toBeUndefined();

    const rerun = await run(executor(new RecordedChatModel({ store, runId: "r" }), [weather], { prices }), "invoke", { input: "Weather?" });
    expect(rerun.usage).toEqual(live.usage);
  });
});
