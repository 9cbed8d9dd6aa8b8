// eagerTools with AgentRx's own OpenAIChatModel over the loopback server: the model reports its
// streamed tool-call chunks to callbacks, so the executor starts each tool call while the model is
// still streaming the next one.
import { createToolCallingAgent } from "@agentrx/agents";
import { OpenAIChatModel } from "@agentrx/core/openai";
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
let server: OpenAICompatibleServer | undefined;
afterEach(async () => server?.close());

async function run(eagerTools: boolean) {
  const log: string[] = [];
  const work = tool(
    async ({ name }: { name: string }) => {
      log.push(`start ${name}`);
      return `${name} done`;
    },
    { name: "work", description: "Works.", schema: z.object({ name: z.string() }) },
  );
  server = await startOpenAICompatibleServer({
    tokenDelayMs: 15,
    toolCallChunkSize: 4,
    toolCallOrder: "sequential", // as OpenAI streams them
    responses: [
      {
        toolCalls: ["a", "b", "c"].map((name) => ({ name: "work", arguments: { name }, id: `call_${name}` })),
      },
      "All done.",
    ],
  });
  const llm = new OpenAIChatModel({ model: "loopback-model", baseURL: server.baseURL, apiKey: "test", maxRetries: 0 });
  const inner = createToolCallingAgent({ llm, tools: [work], prompt });
  const agent = RunnableLambda.from(async (input: Record<string, unknown>, config) => {
    const output = await inner.invoke(input as never, config);
    log.push("agent returned");
    return output;
  });
  const executor = new AgentExecutor({ agent, tools: [work], eagerTools });
  const events = await lastValueFrom(executor.stream({ input: "go" }).pipe(toArray()));
  return { log, events };
}

describe("eagerTools with OpenAIChatModel", () => {
  it("starts each streamed tool call before the model's answer is complete", async () => {
    const { log, events } = await run(true);
    const returned = log.indexOf("agent returned");
    expect(log.indexOf("start a")).toBeGreaterThanOrEqual(0);
    expect(log.indexOf("start a")).toBeLessThan(returned);
    expect(log.indexOf("start b")).toBeLessThan(returned);
    expect(log.filter((entry) => entry.startsWith("start"))).toHaveLength(3);
    expect(events.filter((event) => event.type === "action").every((event) => (event as { early?: boolean }).early === true)).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "output", output: "All done." });
  });

  it("without eagerTools, no tool starts before the model's answer", async () => {
    const { log } = await run(false);
    expect(log[0]).toBe("agent returned");
  });
});
