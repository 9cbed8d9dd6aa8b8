// The agent the provider tests run (no vitest import: the crash tests' child processes use it too):
// its tools, its prompt, and the executor built on them.
import { createToolCallingAgent } from "@agentrx/agents";
import { AgentExecutor, type AgentExecutorOptions } from "@agentrx/executors";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { z } from "zod";

/** Answers `Sunny and 21°C in <city>.` */
export const weather = tool(async ({ city }) => `Sunny and 21°C in ${city}.`, {
  name: "weather",
  description: "Current weather in a city.",
  schema: z.object({ city: z.string() }),
});

/** Multiplies `a` by `b`. */
export const multiply = tool(async ({ a, b }) => String(a * b), {
  name: "multiply",
  description: "Multiply two numbers.",
  schema: z.object({ a: z.number(), b: z.number() }),
});

/** A system message, the thread's history (optional), the input and the scratchpad. */
export const prompt = ChatPromptTemplate.fromMessages([
  ["system", "You are a helpful assistant."],
  ["placeholder", "{chat_history}"],
  ["human", "{input}"],
  ["placeholder", "{agent_scratchpad}"],
]);

/** An executor running the tool-calling agent on `llm` with `tools` and {@link prompt}. */
export function toolCallingExecutor(
  llm: BaseChatModel,
  tools: StructuredToolInterface[],
  options: Omit<AgentExecutorOptions, "agent" | "tools"> = {},
): AgentExecutor {
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools, prompt }), tools, ...options });
}
