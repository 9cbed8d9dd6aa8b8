// A text ReAct agent (Thought / Action / Action Input / Observation), for models without native
// tool calling, with a calculator from @agentrx/tools. `createAgentForModel` would pick it
// automatically for such a model; here it is chosen explicitly.
//
//   npx tsx examples/react-agent.ts
//
// Uses OPENAI_API_KEY / OPENAI_BASE_URL (and OPENAI_MODEL) when set; a scripted model otherwise.
import { createReactAgent, createReactPrompt } from "@agentrx/agents";
import { endpointModel } from "./lib/endpoint-model";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, printTrace } from "@agentrx/executors";
import { createCalculatorTool } from "@agentrx/tools";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

const calculator = createCalculatorTool();
const lookup = tool(async (city) => ({ paris: "2,102,650", lyon: "522,250" })[city.trim().toLowerCase()] ?? "unknown", {
  name: "population",
  description: "Population of a French city. Input: the city name.",
  schema: z.string(),
});

const real = endpointModel({ temperature: 0 });
const llm =
  real ??
  new ScriptedChatModel({
    responses: [
      "I need both populations.\nAction: population\nAction Input: Paris",
      "Now Lyon.\nAction: population\nAction Input: Lyon",
      'I can divide them.\nAction: calculator\nAction Input: {"expression": "2102650 / 522250"}',
      "I now know the final answer.\nFinal Answer: Paris has about 4.03 times as many people as Lyon.",
    ],
  });

const tools = [lookup, calculator];
const agent = createReactAgent({ llm, tools, prompt: createReactPrompt() });
const executor = new AgentExecutor({ agent, tools, maxIterations: 8, handleParsingErrors: true });

const { output, stopReason } = await printTrace(
  executor.stream({ input: "How many times more people live in Paris than in Lyon?" }),
);
console.log(`\n${stopReason}: ${output}`);
