import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { withApproval } from "@agentrx/tools";
import type { BaseMessage } from "@langchain/core/messages";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryRunStore } from "../memory/index";
import { ThreadMemory } from "../thread-memory/index";

const prompt = ChatPromptTemplate.fromMessages([
  ["system", "You are a helpful assistant."],
  ["placeholder", "{chat_history}"],
  ["human", "{input}"],
  ["placeholder", "{agent_scratchpad}"],
]);

/** A model that answers from what it was sent: it remembers a name only if the history carries it. */
function chatModel() {
  const nameIn = (messages: BaseMessage[]) => /my name is (\w+)/i.exec(messages.map((message) => message.text).join("\n"))?.[1];
  return new ScriptedChatModel({
    onExhausted: "cycle",
    responses: [
      (messages) => {
        const last = messages.at(-1);
        const question = messages.filter((message) => message.getType() === "human").at(-1)?.text ?? "";
        if (last?.getType() === "tool") return `Done: ${last.text}.`;
        if (/book/i.test(question)) return { toolCalls: [{ name: "book_table", args: { name: nameIn(messages) ?? "unknown", people: 2 } }] };
        if (/my name/i.test(question) && /\?/.test(question)) return nameIn(messages.slice(0, -1)) ? `Your name is ${nameIn(messages.slice(0, -1))}.` : "I don't know.";
        return "Nice to meet you.";
      },
    ],
  });
}

describe("conversation memory in the executor", () => {
  it("a three-turn chat remembers a name from turn one, with a tool that needs approval in turn two", async () => {
    const store = new MemoryRunStore();
    const memory = new ThreadMemory({ store, maxTokens: 2_000 });
    const booked: string[] = [];
    const book = withApproval(
      tool(
        async ({ name, people }: { name: string; people: number }) => {
          booked.push(name);
          return `table for ${people} under ${name}`;
        },
        { name: "book_table", description: "Books a table.", schema: z.object({ name: z.string(), people: z.number() }) },
      ),
    );
    const model = chatModel();
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm: model, tools: [book], prompt }), tools: [book], store, memory: { memory } });
    const chat = { threadId: "chat-1" };

    expect((await executor.invoke({ input: "Hi, my name is Ada." }, chat)).output).toBe("Nice to meet you.");

    const paused = await executor.invoke({ input: "Book a table for two, please." }, chat);
    expect(paused.interrupts?.[0]).toMatchObject({ tool: "book_table", toolInput: { name: "Ada", people: 2 } });
    // A pause is not an end: the thread does not have turn two yet.
    expect((await memory.getMessages("chat-1")).map((message) => message.text)).toEqual(["Hi, my name is Ada.", "Nice to meet you."]);
    const approved = await executor.resume(paused.runId, { decisions: { [paused.interrupts?.[0]?.id as string]: "approve" } });
    expect(approved.output).toBe("Done: table for 2 under Ada.");
    expect(booked).toEqual(["Ada"]);

    expect((await executor.invoke({ input: "What is my name?" }, chat)).output).toBe("Your name is Ada.");
    // Tool calls are left out of the thread by default: inputs and answers only.
    expect((await memory.getMessages("chat-1")).map((message) => message.getType())).toEqual(["human", "ai", "human", "ai", "human", "ai"]);
    // Another thread knows nothing.
    expect((await executor.invoke({ input: "What is my name?" }, { threadId: "chat-2" })).output).toBe("I don't know.");
    // Runs without a thread neither read nor write memory.
    expect((await executor.invoke({ input: "What is my name?" })).output).toBe("I don't know.");
    expect(await memory.getMessages("chat-2")).toHaveLength(2);
  });

  it("leaves the history alone when the caller gives it, and refuses a memory that is not one", async () => {
    const store = new MemoryRunStore();
    const memory = new ThreadMemory({ store, maxTokens: 2_000 });
    const model = chatModel();
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm: model, tools: [], prompt }), tools: [], memory: { memory } });
    await executor.invoke({ input: "Hi, my name is Bo.", chat_history: [] }, { threadId: "t" });
    expect((await executor.invoke({ input: "What is my name?" }, { threadId: "t" })).output).toBe("Your name is Bo.");
    expect(() => new AgentExecutor({ agent: createToolCallingAgent({ llm: model, tools: [], prompt }), tools: [], memory: {} as never })).toThrow(/`memory` must be/);
  });
});
