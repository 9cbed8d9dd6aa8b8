// `invoke` with `prices` or stop conditions, on an agent that reports its model calls to the
// executor's observer (every built-in agent): each call's usage, model and cost come from what the
// agent reports, and no callback handler watches the model (docs/cost.md). Each case is compared
// with the same run through callbacks: the same agent behind a lambda, which does not report its
// model calls.
import { createToolCallingAgent } from "@agentrx/agents";
import type { AgentInput } from "@agentrx/core";
import { ScriptedChatModel, type ScriptedChatModelOptions, type ScriptedResponse } from "@agentrx/core/testing";
import { AgentExecutor, type AgentExecutorCallConfig, type AgentExecutorOptions, costBudget, tokenBudget } from "@agentrx/executors";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChatGenerationChunk, ChatResult } from "@langchain/core/outputs";
import { RunnableLambda, type RunnableConfig } from "@langchain/core/runnables";
import { lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { prompt, searchTool, withLegacyUsage } from "../operators/executor-fixtures";
import { InProcessRunStore } from "../runs/in-process-run-store";

/** A scripted model that notes, per call, whether a callback handler watched it; optionally names its model in its replies. */
class WatchedModel extends ScriptedChatModel {
  /** Per call: whether `@langchain/core` gave it a callback run (it does only when a handler is attached). */
  readonly watched: boolean[] = [];

  constructor(
    options: ScriptedChatModelOptions,
    private readonly replyModel?: string,
  ) {
    super(options);
  }

  override async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    this.watched.push(runManager !== undefined);
    const result = await super._generate(messages, options, runManager);
    const message = result.generations[0]?.message;
    if (message !== undefined && this.replyModel !== undefined) message.response_metadata = { ...message.response_metadata, model_name: this.replyModel };
    return result;
  }

  override async *_streamResponseChunks(messages: BaseMessage[], options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): AsyncGenerator<ChatGenerationChunk> {
    this.watched.push(runManager !== undefined);
    yield* super._streamResponseChunks(messages, options, runManager);
  }
}

/** A model that reports its usage the legacy way only: `llmOutput.tokenUsage`, no `usage_metadata` on its reply. */
class LegacyUsageModel extends WatchedModel {
  override async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    return withLegacyUsage(await super._generate(messages, options, runManager));
  }
}

const call = (query: string, inputTokens = 1_000, outputTokens = 100): ScriptedResponse => ({ toolCalls: [{ name: "search", args: { query } }], usage: { inputTokens, outputTokens } });
const answer: ScriptedResponse = { content: "Sunny.", usage: { inputTokens: 2_000, outputTokens: 200 } };
const prices = { "gpt-4o": { input: 2.5, output: 10 } };

type Path = "observed" | "callbacks";

/** One run's executor: the agent as built (it reports its model calls), or behind a lambda (watched through callbacks). */
function setup(path: Path, responses: ScriptedResponse[], options: Partial<AgentExecutorOptions> = {}, replyModel?: string) {
  const searched: string[] = [];
  const search = searchTool(searched);
  const llm = new WatchedModel({ responses, model: "gpt-4o-2024-08-06" }, replyModel);
  const built = createToolCallingAgent({ llm, tools: [search], prompt });
  const agent = path === "observed" ? built : RunnableLambda.from((input: AgentInput, config?: RunnableConfig) => built.invoke(input, config));
  const executor = new AgentExecutor({ agent, tools: [search], ...options });
  return { executor, llm, searched };
}

/** Runs `invoke` recorded into a store of its own: its result, its recorded events (no `at`) and the stored run. */
async function recordedRun(path: Path, responses: ScriptedResponse[], options: Partial<AgentExecutorOptions>, config: AgentExecutorCallConfig = {}, replyModel?: string) {
  const store = new InProcessRunStore();
  const { executor, llm, searched } = setup(path, responses, { ...options, store }, replyModel);
  // One run id for both paths: it is in the recorded events (idempotency keys).
  const result = await lastValueFrom(executor.invoke({ input: "Weather?" }, { ...config, runId: "run-1" }));
  const events = (await store.readEvents(result.runId as string)).map(({ data }) => {
    const { at: _at, durationMs: _duration, ...rest } = data;
    return rest;
  });
  const run = await store.getRun(result.runId as string);
  const { runId: _runId, ...rest } = result;
  return { result: rest, events, usage: run?.usage, stopReason: run?.stopReason, watched: llm.watched, searched };
}

describe("usage from the model-call observer (invoke, no callbacks)", () => {
  it("prices each call and the run as the callbacks do, and builds no callback run", async () => {
    const observed = setup("observed", [call("Paris"), answer], { prices });
    const viaCallbacks = setup("callbacks", [call("Paris"), answer], { prices });
    const result = await lastValueFrom(observed.executor.invoke({ input: "Weather?" }));
    const reference = await lastValueFrom(viaCallbacks.executor.invoke({ input: "Weather?" }));
    expect(result.usage).toEqual(reference.usage);
    expect(result.usage?.cost).toMatchObject({ input: 0.0075, output: 0.003, currency: "USD" });
    expect(result.usage?.cost?.total).toBeCloseTo(0.0105, 10);
    expect(observed.llm.watched).toEqual([false, false]);
    expect(viaCallbacks.llm.watched).toEqual([true, true]);
    // stream() still watches the model through callbacks: its tokens come from them.
    const streamed = setup("observed", [answer], { prices });
    await lastValueFrom(streamed.executor.stream({ input: "Weather?" }));
    expect(streamed.llm.watched).toEqual([true]);
  });

  it("records the same usage events (model and cost) and run usage as the callbacks", async () => {
    const observed = await recordedRun("observed", [call("Paris"), answer], { prices });
    const reference = await recordedRun("callbacks", [call("Paris"), answer], { prices });
    expect(observed.events).toEqual(reference.events);
    expect(observed.usage).toEqual(reference.usage);
    expect(observed.result).toEqual(reference.result);
    const usages = observed.events.filter((event) => event["type"] === "usage");
    expect(usages.map((event) => [event["model"], (event["usage"] as { cost?: { total: number } }).cost?.total])).toEqual([
      ["gpt-4o-2024-08-06", 0.0025 + 0.001],
      ["gpt-4o-2024-08-06", 0.005 + 0.002],
    ]);
    expect(observed.watched).toEqual([false, false]);
    expect(reference.watched).toEqual([true, true]);
  });

  it("prices a model that reports its usage only as llmOutput.tokenUsage, as the callbacks do", async () => {
    const results = [];
    for (const path of ["observed", "callbacks"] as const) {
      const search = searchTool([]);
      const llm = new LegacyUsageModel({ responses: [call("Paris"), answer], model: "gpt-4o-2024-08-06" });
      const built = createToolCallingAgent({ llm, tools: [search], prompt });
      const agent = path === "observed" ? built : RunnableLambda.from((input: AgentInput, config?: RunnableConfig) => built.invoke(input, config));
      const result = await lastValueFrom(new AgentExecutor({ agent, tools: [search], prices }).invoke({ input: "Weather?" }));
      expect(llm.watched).toEqual(path === "observed" ? [false, false] : [true, true]);
      results.push(result.usage);
    }
    const [observed, viaCallbacks] = results;
    expect(observed).toMatchObject({ input_tokens: 3_000, output_tokens: 300, total_tokens: 3_300, cost: { input: 0.0075, output: 0.003, currency: "USD" } });
    expect(observed).toEqual(viaCallbacks);
  });

  it("takes the model's name from the reply before the model's own (ls_model_name)", async () => {
    const seen: Record<Path, string[]> = { observed: [], callbacks: [] };
    for (const path of ["observed", "callbacks"] as const) {
      const { executor, llm } = setup(
        path,
        [answer],
        {
          prices: (model, usage) => {
            seen[path].push(model);
            return { input: usage.input_tokens, output: 0, total: usage.input_tokens, currency: "USD" };
          },
        },
        "gpt-4o-mini-2024-07-18",
      );
      const result = await lastValueFrom(executor.invoke({ input: "Weather?" }));
      expect(result.usage?.cost?.total).toBe(2_000);
      expect(llm.watched).toEqual([path === "callbacks"]);
    }
    expect(seen.observed).toEqual(["gpt-4o-mini-2024-07-18"]);
    expect(seen.callbacks).toEqual(seen.observed);
  });

  it("tokenBudget: the spending call's usage comes before its actions, and its tools never run", async () => {
    const responses = [call("Paris", 15, 5), call("Lyon", 25, 5), "Never reached."];
    const stopWhen = tokenBudget(50);
    const observed = await recordedRun("observed", responses, {}, { stopWhen });
    const reference = await recordedRun("callbacks", responses, {}, { stopWhen });
    expect(observed.events).toEqual(reference.events);
    expect(observed.result).toEqual(reference.result);
    expect(observed.result).toMatchObject({ stopReason: "budget", stoppedBy: { budget: "tokens", limit: 50, used: 50 } });
    expect(observed.searched).toEqual(["Paris"]);
    // The second call's usage is recorded before its action: the budget stopped the run there.
    const kinds = observed.events.map((event) => `${String(event["type"])}:${String(event["iteration"] ?? "")}`);
    expect(kinds.indexOf("usage:1")).toBeGreaterThan(-1);
    expect(kinds.indexOf("usage:1")).toBeLessThan(kinds.indexOf("action:1"));
    expect(observed.watched).toEqual([false, false]);
    expect(reference.watched).toEqual([true, true]);
  });

  it("tokenBudget without a store: the same stop as through callbacks", async () => {
    const responses = [call("Paris", 15, 5), call("Lyon", 25, 5), "Never reached."];
    const observed = setup("observed", responses, { stopWhen: tokenBudget(50) });
    const viaCallbacks = setup("callbacks", responses, { stopWhen: tokenBudget(50) });
    const { runId: _a, ...result } = await lastValueFrom(observed.executor.invoke({ input: "Weather?" }));
    const { runId: _b, ...reference } = await lastValueFrom(viaCallbacks.executor.invoke({ input: "Weather?" }));
    expect(result).toEqual(reference);
    expect(result.stopReason).toBe("budget");
    expect(observed.searched).toEqual(["Paris"]);
    expect(observed.llm.watched).toEqual([false, false]);
    expect(viaCallbacks.llm.watched).toEqual([true, true]);
  });

  it("costBudget stops before the tools of the call that spent it, as through callbacks", async () => {
    const responses = [call("Paris"), call("Lyon"), answer];
    const stopWhen = costBudget(0.005);
    const observed = await recordedRun("observed", responses, { prices }, { stopWhen });
    const reference = await recordedRun("callbacks", responses, { prices }, { stopWhen });
    expect(observed.events).toEqual(reference.events);
    expect(observed.usage).toEqual(reference.usage);
    expect(observed.result).toEqual(reference.result);
    expect(observed.result).toMatchObject({
      stopReason: "budget",
      stoppedBy: { budget: "cost", limit: 0.005, used: 0.007 },
      output: "Agent stopped because its cost budget was spent ($0.0070 used of $0.0050).",
    });
    expect(observed.stopReason).toBe("budget");
    expect(observed.searched).toEqual(["Paris"]);
    expect(observed.watched).toEqual([false, false]);
    expect(reference.watched).toEqual([true, true]);
  });
});
