import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InProcessRunStore } from "../runs/in-process-run-store";
import type { RunWrite, RunWriteResult } from "../runs/run-store";
import { RunStoreError } from "../runs/run-store-errors";
import { AgentExecutor } from "./agent-executor";
import type { ConversationMemory } from "./conversation-memory";

// A run whose last write fails (the store answered with an error) is recorded `failed`, its lease
// released, once the store answers again: not left `running` until its lease runs out.

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
const weather = tool(async ({ city }: { city: string }) => `Sunny in ${city}`, { name: "weather", description: "Tells the weather.", schema: z.object({ city: z.string() }) });

/** Fails the first write that matches `when`, as a store whose connection was lost does. */
class FailingOnceStore extends InProcessRunStore {
  failed = false;
  constructor(private readonly when: (write: RunWrite) => boolean) {
    super();
  }
  override async write(runId: string, write: RunWrite): Promise<RunWriteResult> {
    if (!this.failed && this.when(write)) {
      this.failed = true;
      throw new RunStoreError({ operation: "write", runId, message: "the store closed the connection" });
    }
    return super.write(runId, write);
  }
}

const threadMemory: ConversationMemory = { getMessages: async () => [], addMessages: async () => undefined };

function executorWith(store: InProcessRunStore, memory = false): AgentExecutor {
  const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ id: "call_1", name: "weather", args: { city: "Paris" } }] }, "Sunny in Paris."] });
  const agent = createToolCallingAgent({ llm, tools: [weather], prompt });
  return new AgentExecutor({ agent, tools: [weather], store, ...(memory ? { memory: { memory: threadMemory } } : {}) });
}

describe("a run whose last write fails", () => {
  it("is recorded failed with its lease released, so it can be resumed at once", async () => {
    const store = new FailingOnceStore((write) => write.update?.status === "finished");
    await expect(executorWith(store).invoke({ input: "Weather?" }, { runId: "last" })).rejects.toThrow(/closed the connection/);
    const info = await store.getRun("last");
    expect(info).toMatchObject({ status: "failed", error: expect.stringMatching(/closed the connection/) });
    expect(info?.owner).toBeUndefined();
  });

  it("is recorded failed when the write before the conversation memory's fails", async () => {
    const store = new FailingOnceStore((write) => write.events.some((event) => event.type === "output"));
    await expect(executorWith(store, true).invoke({ input: "Weather?" }, { runId: "remembered", threadId: "t" })).rejects.toThrow(/closed the connection/);
    const info = await store.getRun("remembered");
    expect(info).toMatchObject({ status: "failed" });
    expect(info?.owner).toBeUndefined();
  });
});
