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
  it("a task paused for approval and approved through a2aTool returns the answer", async () => {
    const refunded: string[] = [];
    const refund = tool(
      async ({ order }: { order: string }) => {
        refunded.push(order);
        return `Refunded order ${order}`;
      },
      { name: "refund", description: "Refunds an order.", schema: z.object({ order: z.string() }) },
    );
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "refund", args: { order: "A-17" } }] }, (messages) => `Done: ${messages.at(-1)?.text}.`] });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [refund], prompt }), tools: [refund], needsApproval: (action) => action.tool === "refund" });
    const server = createServer(createA2AHandler(executor, { agentCard: { name: "Refunds", description: "Refunds orders." } }));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const remote = await a2aTool({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
      const first = await remote.invoke({ input: "Refund order A-17" });
      expect(first).toContain("needs more input");
      const taskId = /task ([^)]+)\)/.exec(first)?.[1] ?? "";
      expect(await remote.invoke({ input: "approve", taskId })).toBe("Done: Refunded order A-17.");
      expect(refunded).toEqual(["A-17"]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

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
