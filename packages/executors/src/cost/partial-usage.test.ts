// A model whose replies report input and output tokens without their total (some integrations do):
// the run's usage counts the total as input plus output, under invoke and stream, on both paths.
import { createToolCallingAgent } from "@agentrx/agents";
import type { AgentInput } from "@agentrx/core";
import { ScriptedChatModel, type ScriptedResponse } from "@agentrx/core/testing";
import { AgentExecutor, type AgentStreamEvent, tokenBudget } from "@agentrx/executors";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { BaseMessage, UsageMetadata } from "@langchain/core/messages";
import type { ChatGenerationChunk, ChatResult } from "@langchain/core/outputs";
import { RunnableLambda, type RunnableConfig } from "@langchain/core/runnables";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { prompt, searchTool } from "../operators/executor-fixtures";

/** Drops `total_tokens` from every usage the model reports. */
class NoTotalModel extends ScriptedChatModel {
  override async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    const result = await super._generate(messages, options, runManager);
    for (const generation of result.generations) dropTotal((generation.message as { usage_metadata?: UsageMetadata }).usage_metadata);
    return result;
  }

  override async *_streamResponseChunks(messages: BaseMessage[], options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): AsyncGenerator<ChatGenerationChunk> {
    for await (const chunk of super._streamResponseChunks(messages, options, runManager)) {
      dropTotal((chunk.message as { usage_metadata?: UsageMetadata }).usage_metadata);
      yield chunk;
    }
  }
}

function dropTotal(usage: UsageMetadata | undefined): void {
  if (usage !== undefined) delete (usage as Partial<UsageMetadata>).total_tokens;
}

const responses: ScriptedResponse[] = [
  { toolCalls: [{ name: "search", args: { query: "Paris" } }], usage: { inputTokens: 10, outputTokens: 5 } },
  { content: "Sunny.", usage: { inputTokens: 10, outputTokens: 5 } },
];

function executorOf(observed: boolean) {
  const search = searchTool([]);
  const built = createToolCallingAgent({ llm: new NoTotalModel({ responses }), tools: [search], prompt });
  const agent = observed ? built : RunnableLambda.from((input: AgentInput, config?: RunnableConfig) => built.invoke(input, config));
  return new AgentExecutor({ agent, tools: [search] });
}

describe("a usage without total_tokens", () => {
  it.each([true, false])("counts its total as input plus output (agent reports its calls: %s)", async (observed) => {
    // A stop condition makes invoke count usage (it does not without one, a store or prices).
    const invoked = await lastValueFrom(executorOf(observed).invoke({ input: "Weather?" }, { stopWhen: tokenBudget(1_000_000) }));
    expect(invoked.usage).toMatchObject({ input_tokens: 20, output_tokens: 10, total_tokens: 30 });
    const events = await lastValueFrom(executorOf(observed).stream({ input: "Weather?" }).pipe(toArray()));
    const usages = events.filter((event): event is Extract<AgentStreamEvent, { type: "usage" }> => event.type === "usage");
    expect(usages.map((event) => event.usage.total_tokens)).toEqual([15, 15]);
    const output = events.at(-1) as Extract<AgentStreamEvent, { type: "output" }>;
    expect(output.usage).toMatchObject({ input_tokens: 20, output_tokens: 10, total_tokens: 30 });
  });
});
