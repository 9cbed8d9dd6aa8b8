// The quickstart's agent, shared by examples/quickstart.ts and examples/runs.ts: a tool-calling
// agent that checks the weather (a slow tool), on a real endpoint when OPENAI_API_KEY is set and on
// a ScriptedChatModel otherwise.
import { createToolCallingAgent } from "@agentrx/agents";
// With its extension: Deno's notebook kernel imports this file and resolves no extensionless path.
import { endpointModel } from "./endpoint-model.ts";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type RunStore } from "@agentrx/executors";
import { SqliteRunStore } from "@agentrx/runs";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

/** Where the examples record their runs: `AGENTRX_RUNS_DB`, else `.agentrx/runs.db`. */
export const RUNS_DB = process.env.AGENTRX_RUNS_DB ?? ".agentrx/runs.db";

/** The embedded run store of the examples. */
export function runStore(): SqliteRunStore {
  return new SqliteRunStore({ path: RUNS_DB });
}

const weather = tool(
  async ({ city }) => {
    await new Promise((resolve) => setTimeout(resolve, 300)); // a slow API
    const reports: Record<string, string> = { paris: "sunny, 21°C", rome: "clear, 26°C" };
    return reports[city.toLowerCase()] ?? "cloudy, 15°C";
  },
  {
    name: "get_weather",
    description: "Current weather for a city.",
    schema: z.object({ city: z.string().describe("The city name, e.g. Paris") }),
  },
);

export function chooseModel(): BaseChatModel {
  const real = endpointModel({ streaming: true, temperature: 0 });
  if (real) return real;
  return new ScriptedChatModel({
    streaming: true,
    tokenDelayMs: 15,
    responses: [
      {
        toolCalls: [
          { name: "get_weather", args: { city: "Paris" } },
          { name: "get_weather", args: { city: "Rome" } },
        ],
      },
      "Paris is sunny at 21°C, while Rome is clear and warmer at 26°C: pack sunglasses for both.",
    ],
  });
}

const prompt = ChatPromptTemplate.fromMessages([
  ["system", "You are a concise travel assistant. Use tools for facts; call independent tools together."],
  ["human", "{input}"],
  ["placeholder", "{agent_scratchpad}"],
]);

/** The weather agent's executor, recording into `store`. */
export function weatherExecutor(store: RunStore): AgentExecutor {
  const agent = createToolCallingAgent({ llm: chooseModel(), tools: [weather], prompt });
  // A short lease, so a run whose process was killed can be resumed a few seconds later.
  return new AgentExecutor({ agent, tools: [weather], maxIterations: 5, store, leaseMs: 5_000 });
}

