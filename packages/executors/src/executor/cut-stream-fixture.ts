// The fixture of the tests of a run cut off while its model streams (reduce-run-resume.test.ts,
// runs/checkpoint-iteration.test.ts): a prompt, a search tool, an answer, and a scripted model that
// says when each call's first chunk streamed. Not part of the package's exports.
import { ScriptedChatModel } from "@agentrx/core/testing";
import type { AgentExecutor, AgentStreamEvent } from "@agentrx/executors";
import type { ChatGenerationChunk } from "@langchain/core/outputs";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

export const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
export const search = tool(async ({ query }: { query: string }) => `Sunny in ${query}`, { name: "search", description: "Searches the web.", schema: z.object({ query: z.string() }) });
export const ANSWER = "It is sunny in Paris today.";

/** A scripted model that runs `afterFirstChunk(call)` once the first chunk of each call streamed. */
export class Streaming extends ScriptedChatModel {
  afterFirstChunk: ((call: number) => void) | undefined;

  override async *_streamResponseChunks(...args: Parameters<ScriptedChatModel["_streamResponseChunks"]>): AsyncGenerator<ChatGenerationChunk> {
    const call = this.calls.length;
    let chunks = 0;
    for await (const chunk of super._streamResponseChunks(...args)) {
      yield chunk;
      if (chunks++ === 0) this.afterFirstChunk?.(call);
    }
  }
}

/**
 * Streams a run and unsubscribes (Ctrl-C) once the first token of agent call `iteration` arrived;
 * resolves then, or when the run ends first.
 */
export function unsubscribeOnFirstToken(executor: AgentExecutor, runId: string, iteration: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const subscription = executor.stream({ input: "Weather in Paris?" }, { runId }).subscribe({
      next: (event: AgentStreamEvent) => {
        if (event.type === "token" && event.iteration === iteration) setTimeout(() => (subscription.unsubscribe(), resolve()), 0);
      },
      error: () => resolve(),
      complete: () => resolve(),
    });
  });
}
