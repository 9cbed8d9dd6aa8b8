// Agents as tools: a supervisor delegates to two specialists (a researcher and a writer), each its
// own AgentExecutor exposed with `asTool`. The trace shows the specialists' sub-runs, indented
// under the supervisor's tool calls.
//
//   npx tsx examples/supervisor.ts
//
// With OPENAI_API_KEY set (and optionally OPENAI_BASE_URL, OPENAI_MODEL) every agent uses that
// endpoint; without it, they run offline on ScriptedChatModels, and it says so.
import { createToolCallingAgent } from "@agentrx/agents";
import { endpointModel } from "./lib/endpoint-model";
import { ScriptedChatModel, type ScriptedResponse } from "@agentrx/core/testing";
import { AgentExecutor, printTrace } from "@agentrx/executors";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

const real = endpointModel({ temperature: 0 });
const model = (script: ScriptedResponse[]): BaseChatModel => real ?? new ScriptedChatModel({ streaming: true, responses: script });
const prompt = (system: string) =>
  ChatPromptTemplate.fromMessages([["system", system], ["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);

const search = tool(async ({ query }) => `Tides are caused mainly by the Moon's gravity (${query}); the Sun adds about a third.`, {
  name: "search",
  description: "Searches reference material.",
  schema: z.object({ query: z.string() }),
});
const researcher = new AgentExecutor({
  agent: createToolCallingAgent({
    llm: model([{ toolCalls: [{ name: "search", args: { query: "what causes tides" } }] }, "The Moon's gravity, helped by the Sun."]),
    tools: [search],
    prompt: prompt("You research facts with the search tool and report them briefly."),
  }),
  tools: [search],
});
const writer = new AgentExecutor({
  agent: createToolCallingAgent({
    llm: model(["Twice a day the sea breathes in and out, pulled by the Moon."]),
    tools: [],
    prompt: prompt("You turn facts into one friendly sentence."),
  }),
  tools: [],
});

const specialists = [
  researcher.asTool({ name: "researcher", description: "Finds the facts about a topic." }),
  writer.asTool({ name: "writer", description: "Writes one friendly sentence from the facts given." }),
];
const supervisor = new AgentExecutor({
  agent: createToolCallingAgent({
    llm: model([
      { toolCalls: [{ name: "researcher", args: { input: "What causes tides?" } }] },
      (messages) => ({ toolCalls: [{ name: "writer", args: { input: messages.at(-1)?.text ?? "" } }] }),
      (messages) => messages.at(-1)?.text ?? "",
    ]),
    tools: specialists,
    prompt: prompt("You answer by delegating: research first, then have the writer phrase it."),
  }),
  tools: specialists,
});

const result = await printTrace(supervisor.stream({ input: "Explain tides to a child." }));
console.log(`\nstopReason=${result.stopReason}`);
