import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { a2aTool, createA2AHandler } from "@agentrx/serve";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);

describe("an AgentRx agent calling another over A2A", () => {
  it("cancelling the calling run cancels the remote run", async () => {
    let started!: () => void;
    const remoteToolStarted = new Promise<void>((resolve) => (started = resolve));
    let remoteAborted = false;
    const research = tool(
      async (_input: { topic: string }, config) => {
        started();
        await new Promise<void>((_, reject) =>
          config?.signal?.addEventListener("abort", () => {
            remoteAborted = true;
            reject(new Error("aborted"));
          }),
        );
        return "never";
      },
      { name: "research", description: "Researches.", schema: z.object({ topic: z.string() }) },
    );
    const store = new MemoryRunStore();
    const remoteLlm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "research", args: { topic: "tides" } }] }] });
    const remote = new AgentExecutor({ agent: createToolCallingAgent({ llm: remoteLlm, tools: [research], prompt }), tools: [research], store });
    const server = createServer(createA2AHandler(remote, { agentCard: { name: "Researcher", description: "Researches a topic." } }));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const researcher = await a2aTool({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
      const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "Researcher", args: { input: "tides" } }] }] });
      const caller = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [researcher], prompt }), tools: [researcher] });
      const subscription = caller.stream({ input: "Explain tides" }).subscribe({ error: () => undefined });
      await remoteToolStarted;
      subscription.unsubscribe();
      await expect.poll(() => remoteAborted).toBe(true);
      const [run] = await store.listRuns({});
      expect(run?.status).toBe("cancelled");
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
