// Cache and reasoning token details (LangChain's input_token_details / output_token_details) kept
// per model call and per run, through the executor, the record, the trace page and renderTrace.
import { createToolCallingAgent } from "@agentrx/agents";
import { OpenAIChatModel } from "@agentrx/core/openai";
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from "@agentrx/core/testing";
import { AgentExecutor, renderTrace } from "@agentrx/executors";
import { readTracePage, traceModelRuntime } from "@agentrx/executors/trace-page";
import { MemoryRunStore } from "@agentrx/runs";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, of, toArray } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
const lookup = tool(async ({ term }) => `${term}: found`, { name: "lookup", description: "Looks up.", schema: z.object({ term: z.string() }) });
let server: OpenAICompatibleServer | undefined;
afterEach(async () => server?.close());

describe("usage details", () => {
  it("keeps cached and reasoning tokens per call and per run, in the record, the trace page and renderTrace", async () => {
    server = await startOpenAICompatibleServer({
      responses: [
        { toolCalls: [{ name: "lookup", arguments: { term: "a" } }], usage: { promptTokens: 100, completionTokens: 40, cachedTokens: 0, reasoningTokens: 30 } },
        { content: "Done.", usage: { promptTokens: 120, completionTokens: 10, cachedTokens: 96, reasoningTokens: 4 } },
      ],
    });
    const llm = new OpenAIChatModel({ model: "o4-mini", baseURL: server.baseURL, apiKey: "test", maxRetries: 0, streaming: true });
    const store = new MemoryRunStore();
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [lookup], prompt }), tools: [lookup], store });
    const events = await lastValueFrom(executor.stream({ input: "go" }, { runId: "run-usage" }).pipe(toArray()));

    const perCall = events.flatMap((event) => (event.type === "usage" ? [event.usage] : []));
    expect(perCall).toEqual([
      { input_tokens: 100, output_tokens: 40, total_tokens: 140, input_token_details: { cache_read: 0 }, output_token_details: { reasoning: 30 } },
      { input_tokens: 120, output_tokens: 10, total_tokens: 130, input_token_details: { cache_read: 96 }, output_token_details: { reasoning: 4 } },
    ]);
    const runUsage = { input_tokens: 220, output_tokens: 50, total_tokens: 270, input_token_details: { cache_read: 96 }, output_token_details: { reasoning: 34 } };
    expect(events.at(-1)).toMatchObject({ type: "output", usage: runUsage });

    // The record keeps them.
    const recorded = await store.readEvents("run-usage");
    expect(recorded.filter((event) => event.type === "usage").map((event) => event.data["usage"])).toEqual(perCall);
    expect((await store.getRun("run-usage"))?.usage).toEqual(runUsage);

    // The trace page shows them, per call and for the run.
    const page = await readTracePage(store, "run-usage", { mode: "file", source: "memory" });
    expect(page.run.usage).toEqual({ input: 220, output: 50, total: 270, cacheRead: 96, reasoning: 34 });
    const { createTrace, applyEvents } = traceModelRuntime();
    const model = createTrace(page.run);
    applyEvents(model, page.events as Parameters<typeof applyEvents>[1]);
    expect(model.usage).toEqual({ input: 220, output: 50, total: 270, cacheRead: 96, reasoning: 34 });

    // renderTrace (what `agentrx show` prints) writes them on the usage lines.
    let text = "";
    await lastValueFrom(of(...events).pipe(renderTrace({ write: (chunk) => void (text += chunk), usage: true, colors: false })));
    expect(text).toContain("100 in + 40 out = 140 tokens (0 cached, 30 reasoning)");
    expect(text).toContain("120 in + 10 out = 130 tokens (96 cached, 4 reasoning)");
  });
});
