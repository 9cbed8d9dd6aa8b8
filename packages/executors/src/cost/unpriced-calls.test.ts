// A model call the executor's `prices` cannot price (a model the table does not know, a model that
// reports no name) is not silently left out of the run's cost: its usage is marked
// `unpricedCalls: 1`, the run's usage counts such calls, and the process is warned once per model
// per executor (docs/cost.md#calls-without-a-price).
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel, type ScriptedResponse } from "@agentrx/core/testing";
import { AgentExecutor, type AgentExecutorOptions, type UsageEvent, addUsage } from "@agentrx/executors";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { z } from "zod";
import { prompt } from "../operators/executor-fixtures";

const search = tool(async ({ query }: { query: string }) => `Sunny in ${query}`, {
  name: "search",
  description: "Search the web.",
  schema: z.object({ query: z.string() }),
});

const call: ScriptedResponse = { toolCalls: [{ name: "search", args: { query: "Paris" } }], usage: { inputTokens: 1_000_000, outputTokens: 0 } };
const answer: ScriptedResponse = { content: "Sunny.", usage: { inputTokens: 1_000_000, outputTokens: 0 } };
const table = { "gpt-4o": { input: 2.5, output: 10 } };

function executorOf(options: Partial<AgentExecutorOptions>, model: string | undefined, responses: ScriptedResponse[] = [call, answer]) {
  const llm = new ScriptedChatModel({ responses, onExhausted: "cycle", ...(model === undefined ? {} : { model }) });
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [search], prompt }), tools: [search], ...options });
}

let warn: MockInstance<typeof process.emitWarning>;
beforeEach(() => {
  warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
});
afterEach(() => {
  warn.mockRestore();
});

/** The unpriced-model warnings emitted so far: their messages. */
function unpricedWarnings(): string[] {
  return warn.mock.calls.filter(([, options]) => (options as { code?: string } | undefined)?.code === "AGENTRX_UNPRICED_MODEL").map(([message]) => String(message));
}

describe("a model call the executor's prices cannot price", () => {
  it("is counted in the run's usage.unpricedCalls, under invoke and stream", async () => {
    const invoked = await lastValueFrom(executorOf({ prices: table }, "mystery-model").invoke({ input: "Weather?" }));
    expect(invoked.usage?.cost).toBeUndefined();
    expect(invoked.usage?.unpricedCalls).toBe(2);
    expect(invoked.usage?.input_tokens).toBe(2_000_000);

    const events = await lastValueFrom(executorOf({ prices: table }, "mystery-model").stream({ input: "Weather?" }).pipe(toArray()));
    const usages = events.filter((event): event is UsageEvent => event.type === "usage");
    expect(usages.map((event) => event.usage.unpricedCalls)).toEqual([1, 1]);
    const output = events.at(-1);
    expect(output?.type === "output" ? output.usage?.unpricedCalls : undefined).toBe(2);
  });

  it("warns once per model per executor, naming the model and how to price it", async () => {
    const executor = executorOf({ prices: table }, "mystery-model");
    await lastValueFrom(executor.invoke({ input: "Weather?" }));
    await lastValueFrom(executor.invoke({ input: "Weather again?" }));
    const messages = unpricedWarnings();
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('"mystery-model"');
    expect(messages[0]).toContain("price table");

    // Another executor warns about it again: its prices are its own.
    await lastValueFrom(executorOf({ prices: table }, "mystery-model").invoke({ input: "Weather?" }));
    expect(unpricedWarnings()).toHaveLength(2);
  });

  it("counts only the calls without a price when some have one", async () => {
    let calls = 0;
    const firstOnly: AgentExecutorOptions["prices"] = () => (++calls === 1 ? { input: 1, output: 0, total: 1, currency: "USD" } : undefined);
    const result = await lastValueFrom(executorOf({ prices: firstOnly }, "gpt-4o").invoke({ input: "Weather?" }));
    expect(result.usage?.cost?.total).toBe(1);
    expect(result.usage?.unpricedCalls).toBe(1);
    expect(unpricedWarnings()).toEqual([expect.stringContaining("`prices` function returned undefined for model \"gpt-4o\"")]);
  });

  it("is a call of a model that reports no name", async () => {
    const result = await lastValueFrom(executorOf({ prices: table }, undefined).invoke({ input: "Weather?" }));
    expect(result.usage?.unpricedCalls).toBe(2);
    expect(unpricedWarnings()).toEqual([expect.stringMatching(/reported no model name.*Give the model a name .*a function.s included/)]);
  });

  it("is not marked, nor warned about, when the executor has no prices", async () => {
    const result = await lastValueFrom(executorOf({}, "mystery-model").invoke({ input: "Weather?" }));
    expect(result.usage?.input_tokens).toBe(2_000_000);
    expect(result.usage).not.toHaveProperty("unpricedCalls");
    expect(unpricedWarnings()).toEqual([]);
  });

  it("priced calls are not marked", async () => {
    const result = await lastValueFrom(executorOf({ prices: table }, "gpt-4o").invoke({ input: "Weather?" }));
    expect(result.usage?.cost?.total).toBe(5);
    expect(result.usage).not.toHaveProperty("unpricedCalls");
    expect(unpricedWarnings()).toEqual([]);
  });

  it("addUsage sums unpricedCalls", () => {
    const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2 };
    expect(addUsage({ ...usage, unpricedCalls: 1 }, { ...usage, unpricedCalls: 2 }).unpricedCalls).toBe(3);
    expect(addUsage({ ...usage, unpricedCalls: 1 }, usage).unpricedCalls).toBe(1);
    expect(addUsage(usage, usage)).not.toHaveProperty("unpricedCalls");
  });
});

describe("a sub-run whose executor has no prices", () => {
  /** A supervisor (model gpt-4o, with `prices`) that calls a researcher executor (model `researcherModel`, with `researcherPrices`) as a tool. */
  function supervisorOf(prices: AgentExecutorOptions["prices"], researcherModel: string, researcherPrices?: AgentExecutorOptions["prices"]) {
    const researcher = executorOf(researcherPrices === undefined ? {} : { prices: researcherPrices }, researcherModel);
    const research = researcher.asTool({ name: "researcher", description: "Researches a topic." });
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "researcher", args: { input: "Paris?" } }], usage: { inputTokens: 1_000_000, outputTokens: 0 } }, answer], model: "gpt-4o" });
    return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [research], prompt }), tools: [research], prices });
  }

  it("has its calls priced by the caller's prices, so the caller's cost covers the whole tree (in the events too)", async () => {
    const events = await lastValueFrom(supervisorOf({ ...table, "local-llama": { input: 1, output: 1 } }, "local-llama").stream({ input: "Weather?" }).pipe(toArray()));
    const subRunUsage = events.filter((event): event is UsageEvent => event.type === "usage" && event.subRun !== undefined);
    expect(subRunUsage.map((event) => event.usage.cost?.total)).toEqual([1, 1]);
    const output = events.at(-1);
    // Two gpt-4o calls at $2.50 per million input tokens, two local-llama calls at $1.
    expect(output?.type === "output" ? output.usage?.cost?.total : undefined).toBeCloseTo(7);
    expect(output?.type === "output" ? output.usage?.unpricedCalls : undefined).toBeUndefined();
  });

  it("has its calls counted unpriced when the caller's prices do not know its model either", async () => {
    const { usage } = await lastValueFrom(supervisorOf(table, "local-llama").invoke({ input: "Weather?" }));
    expect(usage?.cost?.total).toBeCloseTo(5);
    expect(usage?.unpricedCalls).toBe(2);
    expect(unpricedWarnings()).toEqual([expect.stringContaining('"local-llama"')]);
  });

  it("keeps the prices of a sub-run whose executor has its own", async () => {
    const { usage } = await lastValueFrom(supervisorOf({ ...table, "local-llama": { input: 1, output: 1 } }, "local-llama", { "local-llama": { input: 3, output: 3 } }).invoke({ input: "Weather?" }));
    expect(usage?.cost?.total).toBeCloseTo(11);
  });
});
