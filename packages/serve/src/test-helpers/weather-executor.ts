// Test-only: a tool-calling executor on a scripted model that asks for two tools (get_weather and
// get_time), then streams an answer; with `approval`, get_time needs a person's approval.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type RunStore } from "@agentrx/executors";
import { withApproval } from "@agentrx/tools";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

export const ANSWER = "It is sunny in Paris, and the time there is 14:05.";

export interface WeatherExecutorOptions {
  approval?: boolean;
  store?: RunStore;
  tokenDelayMs?: number;
  toolMs?: number;
  /** The answer streamed after the tools. */
  answer?: string;
  /** Throw from get_weather. */
  failTool?: boolean;
  /** Ask for get_time again (in Rome) before the answer: with `approval`, the run pauses twice. */
  askAgain?: boolean;
}

export function weatherExecutor(options: WeatherExecutorOptions = {}): AgentExecutor {
  const { approval = false, store, tokenDelayMs = 0, toolMs = 0, answer = ANSWER, failTool = false, askAgain = false } = options;
  const sleep = () => new Promise((resolve) => setTimeout(resolve, toolMs));
  const weather = tool(
    async ({ city }) => {
      await sleep();
      if (failTool) throw new Error("weather service down");
      return `sunny in ${city}`;
    },
    { name: "get_weather", description: "Current weather for a city.", schema: z.object({ city: z.string() }) },
  );
  const time = tool(
    async ({ city }) => {
      await sleep();
      return `14:05 in ${city}`;
    },
    { name: "get_time", description: "Local time in a city.", schema: z.object({ city: z.string() }) },
  );
  const llm = new ScriptedChatModel({
    streaming: true,
    tokenDelayMs,
    responses: [
      { content: "Let me check. ", toolCalls: [{ name: "get_weather", args: { city: "Paris" } }, { name: "get_time", args: { city: "Paris" } }] },
      ...(askAgain ? [{ content: "And Rome. ", toolCalls: [{ name: "get_time", args: { city: "Rome" } }] }] : []),
      answer,
    ],
  });
  const tools = [weather, approval ? withApproval(time) : time];
  const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
  const agent = createToolCallingAgent({ llm, tools, prompt });
  return new AgentExecutor({ agent, tools, ...(store ? { store } : {}), ...(failTool ? { handleToolRuntimeErrors: false } : {}) });
}
