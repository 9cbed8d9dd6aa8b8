// Builders of real runs for the operators' tests: an AgentExecutor running createToolCallingAgent
// on a ScriptedChatModel (not exported by the package).
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel, type ScriptedResponse } from "@agentrx/core/testing";
import { AgentExecutor, type AgentExecutorOptions, type AgentStreamEvent } from "@agentrx/executors";
import type { UsageMetadata } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, toArray, type Observable } from "rxjs";
import { z } from "zod";

export const prompt = ChatPromptTemplate.fromMessages([
  ["system", "You are a helpful assistant."],
  ["human", "{input}"],
  new MessagesPlaceholder("agent_scratchpad"),
]);

export function setup(
  responses: ScriptedResponse[],
  options: Partial<AgentExecutorOptions> = {},
  timing: { latencyMs?: number; tokenDelayMs?: number } = {},
) {
  const searched: string[] = [];
  const search = searchTool(searched);
  const model = new ScriptedChatModel({ responses, streaming: true, ...timing });
  const agent = createToolCallingAgent({ llm: model, tools: [search], prompt });
  const executor = new AgentExecutor({ agent, tools: [search], ...options });
  return { executor, model, searched };
}

/** The fixtures' `search` tool: it answers "Sunny in <query>" and notes each query in `searched`. */
export function searchTool(searched: string[]) {
  return tool(
    async ({ query }: { query: string }) => {
      searched.push(query);
      return `Sunny in ${query}`;
    },
    { name: "search", description: "Search the web.", schema: z.object({ query: z.string() }) },
  );
}

export const searchCall = (query: string, usage = { inputTokens: 10, outputTokens: 10 }): ScriptedResponse => ({
  toolCalls: [{ name: "search", args: { query } }],
  usage,
});

export const all = <T>(observable: Observable<T>) => lastValueFrom(observable.pipe(toArray()));

export const lastOutput = async (events: Observable<AgentStreamEvent>) => {
  const list = await all(events);
  const output = list.at(-1);
  if (output?.type !== "output") throw new Error("no output event");
  return { output, events: list };
};

/**
 * `result` as a model that reports its usage the legacy way only would give it: the reply's
 * `usage_metadata` moved to `llmOutput.tokenUsage`.
 */
export function withLegacyUsage(result: ChatResult): ChatResult {
  const message = result.generations[0]?.message as { usage_metadata?: UsageMetadata } | undefined;
  const usage = message?.usage_metadata;
  if (message !== undefined) delete message.usage_metadata;
  return { ...result, llmOutput: usage ? { tokenUsage: { promptTokens: usage.input_tokens, completionTokens: usage.output_tokens, totalTokens: usage.total_tokens } } : {} };
}
