// A conversation that remembers: three turns in one thread, with a tool that needs a person's
// approval in turn two. The run pauses, "a person" approves it, and the run goes on.
//
//   npx tsx examples/chat.ts
//
// With OPENAI_API_KEY set (and optionally OPENAI_BASE_URL, OPENAI_MODEL) it talks to that endpoint;
// without it, it runs offline on a ScriptedChatModel and says so.
import { createToolCallingAgent } from "@agentrx/agents";
import { endpointModel } from "./lib/endpoint-model";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { MemoryRunStore, ThreadMemory } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

function chooseModel(): BaseChatModel {
  const real = endpointModel({ temperature: 0 });
  if (real) return real;
  const nameIn = (messages: BaseMessage[]) => /my name is (\w+)/i.exec(messages.map((message) => message.text).join("\n"))?.[1];
  return new ScriptedChatModel({
    onExhausted: "cycle",
    responses: [
      (messages) => {
        const question = messages.filter((message) => message.getType() === "human").at(-1)?.text ?? "";
        if (messages.at(-1)?.getType() === "tool") return `Booked: ${messages.at(-1)?.text}.`;
        if (/book/i.test(question)) return { toolCalls: [{ name: "book_table", args: { name: nameIn(messages) ?? "guest", people: 2 } }] };
        const name = nameIn(messages.slice(0, -1));
        if (/my name\?/i.test(question)) return name ? `Your name is ${name}.` : "I don't know your name yet.";
        return "Nice to meet you!";
      },
    ],
  });
}

const bookTable = withApproval(
  tool(async ({ name, people }) => `a table for ${people} under ${name}, 8 pm`, {
    name: "book_table",
    description: "Books a table at the restaurant.",
    schema: z.object({ name: z.string(), people: z.number().int().positive() }),
  }),
);

const prompt = ChatPromptTemplate.fromMessages([
  ["system", "You are a concise concierge. Use tools to book; remember what the user told you."],
  ["placeholder", "{chat_history}"],
  ["human", "{input}"],
  ["placeholder", "{agent_scratchpad}"],
]);
const store = new MemoryRunStore(); // SqliteRunStore / PostgresRunStore to approve from another process
const memory = new ThreadMemory({ store, maxTokens: 4_000 });
const agent = createToolCallingAgent({ llm: chooseModel(), tools: [bookTable], prompt });
const executor = new AgentExecutor({ agent, tools: [bookTable], store, memory: { memory } });
const thread = { threadId: "dinner-chat" };

for (const input of ["Hi, my name is Ada.", "Please book a table for two tonight.", "By the way, what is my name?"]) {
  console.log(`user       ${input}`);
  let result = await executor.invoke({ input }, thread);
  for (const interrupt of result.interrupts ?? []) {
    console.log(`approval?  ${interrupt.tool} ${JSON.stringify(interrupt.toolInput)} -> approved`);
    result = await executor.resume(result.runId, { decisions: { [interrupt.id]: "approve" } });
  }
  console.log(`assistant  ${result.output}\n`);
}
const remembered = await memory.getMessages("dinner-chat");
console.log(`The thread holds ${remembered.length} messages.`);
console.log(`finish: the conversation went through ${remembered.filter((message) => message.getType() === "human").length} turns`);
