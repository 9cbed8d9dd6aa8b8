// More runs of @langchain/anthropic with extended thinking against the Anthropic loopback server:
// eagerTools, trimming, memory across runs (tool messages kept), and a sub-agent. The server
// refuses any call Anthropic would refuse; every run must leave it without a single rejection.
import { createToolCallingAgent } from "@agentrx/agents";
import { type AnthropicLoopbackTurn, type AnthropicMessagesServer, startAnthropicMessagesServer } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { MemoryRunStore, ThreadMemory } from "@agentrx/runs";
import { ChatAnthropic } from "@langchain/anthropic";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";

const log: string[] = [];
const weather = tool(
  async ({ city }) => {
    log.push(`start ${city}`);
    return `Sunny in ${city}.`;
  },
  { name: "weather", description: "Current weather in a city.", schema: z.object({ city: z.string() }) },
);
const prompt = ChatPromptTemplate.fromMessages([
  ["system", "You are a helpful assistant."],
  ["placeholder", "{chat_history}"],
  ["human", "{input}"],
  ["placeholder", "{agent_scratchpad}"],
]);
const llmFor = (server: AnthropicMessagesServer, streaming = false) =>
  new ChatAnthropic({ model: "claude-sonnet-4-5", apiKey: "test", anthropicApiUrl: server.url, maxTokens: 4096, thinking: { type: "enabled", budget_tokens: 2048 }, maxRetries: 0, streaming });
const cities = (...names: string[]): AnthropicLoopbackTurn => ({ thinking: `Check ${names.join(" and ")}.`, toolCalls: names.map((city) => ({ name: "weather", input: { city } })) });

let server: AnthropicMessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  log.length = 0;
});

describe("@langchain/anthropic with extended thinking: more runs", () => {
  it("eagerTools starts the streamed tool calls before the model's answer is complete", async () => {
    server = await startAnthropicMessagesServer({ responses: [cities("Paris", "Rome", "Oslo"), { thinking: "Done.", text: "All sunny." }], tokenDelayMs: 5 });
    const inner = createToolCallingAgent({ llm: llmFor(server), tools: [weather], prompt });
    const agent = RunnableLambda.from(async (input: Record<string, unknown>, config) => {
      const output = await inner.invoke(input as never, config);
      log.push("agent returned");
      return output;
    });
    const executor = new AgentExecutor({ agent, tools: [weather], eagerTools: true });
    const events = await lastValueFrom(executor.stream({ input: "Weather?" }).pipe(toArray()));
    expect(server.rejections).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: "output", output: "All sunny." });
    expect(log.indexOf("start Paris")).toBeGreaterThanOrEqual(0);
    expect(log.indexOf("start Paris")).toBeLessThan(log.indexOf("agent returned"));
    expect(log.filter((line) => line.startsWith("start"))).toHaveLength(3);
  });

  it("trimming keeps every call valid: the current turn starts with its thinking", async () => {
    server = await startAnthropicMessagesServer({ responses: [cities("Paris", "Rome"), cities("Oslo"), cities("Lima"), { thinking: "Done.", text: "Sunny everywhere." }] });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm: llmFor(server), tools: [weather], prompt }), tools: [weather], trimIntermediateSteps: 1 });
    const result = await lastValueFrom(executor.invoke({ input: "Weather?" }));
    expect(server.rejections).toEqual([]);
    expect(result.output).toBe("Sunny everywhere.");
  });

  it("memory across runs, tool messages and thinking kept, stays valid on the next run", async () => {
    server = await startAnthropicMessagesServer({ responses: [cities("Paris"), { thinking: "Done.", text: "Sunny in Paris." }, cities("Rome"), { thinking: "Done.", text: "Sunny in Rome too." }] });
    const memory = new ThreadMemory({ store: new MemoryRunStore(), maxTokens: 100_000, includeToolMessages: true });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm: llmFor(server), tools: [weather], prompt }), tools: [weather], memory: { memory } });
    await lastValueFrom(executor.invoke({ input: "Paris?" }, { threadId: "t1" }));
    const second = await lastValueFrom(executor.invoke({ input: "And Rome?" }, { threadId: "t1" }));
    expect(server.rejections).toEqual([]);
    expect(second.output).toBe("Sunny in Rome too.");
    const last = server.messageRequests().at(-1);
    // The first run's turn came back from memory with its thinking block and signature.
    expect(last.messages[1].content[0]).toMatchObject({ type: "thinking", thinking: "Check Paris." });
  });

  it("a sub-agent on the same provider, called as a tool, keeps both agents valid", async () => {
    server = await startAnthropicMessagesServer({
      responses: [
        { thinking: "Delegate.", toolCalls: [{ name: "researcher", input: { input: "Weather in Paris?" } }] },
        cities("Paris"),
        { thinking: "Done.", text: "Paris: sunny." },
        { thinking: "Relay.", text: "The researcher says Paris is sunny." },
      ],
    });
    const researcher = new AgentExecutor({ agent: createToolCallingAgent({ llm: llmFor(server), tools: [weather], prompt }), tools: [weather] });
    const research = researcher.asTool({ name: "researcher", description: "Researches a question." });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm: llmFor(server), tools: [research], prompt }), tools: [research] });
    const result = await lastValueFrom(executor.invoke({ input: "Ask the researcher about Paris." }));
    expect(server.rejections).toEqual([]);
    expect(result.output).toBe("The researcher says Paris is sunny.");
  });
});
