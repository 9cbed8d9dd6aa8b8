// Quickstart: a tool-calling agent that checks the weather in two cities at once (the two tool
// calls run in parallel), then streams its final answer.
//
//   npx tsx examples/quickstart.ts
//
// With OPENAI_API_KEY set (and optionally OPENAI_BASE_URL for an OpenAI-compatible server such as
// vLLM, llama.cpp, Ollama or LM Studio, and OPENAI_MODEL), it talks to that endpoint. Without it,
// it runs offline on a ScriptedChatModel and says so.
import { createToolCallingAgent } from "@agentrx/agents";
import { OpenAIChatModel } from "@agentrx/core/openai";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, printTrace } from "@agentrx/executors";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

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

function chooseModel(): BaseChatModel {
  const real = OpenAIChatModel.fromEnv({ streaming: true, temperature: 0 });
  if (real) {
    console.log(`Model: ${real.model} at ${real.baseURL} (from OPENAI_API_KEY / OPENAI_BASE_URL).\n`);
    return real;
  }
  console.log("Model: ScriptedChatModel, offline (set OPENAI_API_KEY to use a real endpoint).\n");
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

const agent = createToolCallingAgent({ llm: chooseModel(), tools: [weather], prompt });
const executor = new AgentExecutor({ agent, tools: [weather], maxIterations: 5 });

const started = Date.now();
const result = await printTrace(executor.stream({ input: "What's the weather in Paris and in Rome?" }));
console.log(`\nDone in ${Date.now() - started} ms: stopReason=${result.stopReason}`);
