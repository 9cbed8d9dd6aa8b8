// The AI SDK as a contestant: language models (LanguageModelV3, no network) with the same timing as
// the bench's scripted LangChain model, and a `generateText` tool loop over them.
import type { LanguageModelV3, LanguageModelV3Prompt } from "@ai-sdk/provider";
import { generateText, stepCountIs, tool } from "ai";
import { z } from "zod";
import { sleep } from "./sleep";

/** How many tool results the prompt holds (the model's script is a function of it, as ours is). */
export function countToolResults(prompt: LanguageModelV3Prompt): number {
  let count = 0;
  for (const message of prompt) if (message.role === "tool") for (const part of message.content) if (part.type === "tool-result") count++;
  return count;
}

const USAGE = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };

/**
 * A model that, after `latencyMs`, calls the `noop` tool once per turn until `steps` tool results
 * exist, then answers "done" (what `stepScript(steps, { tool: "noop" })` scripts for the others).
 */
function stepModel(steps: number, latencyMs: number): LanguageModelV3 {
  return {
    specificationVersion: "v3",
    provider: "bench",
    modelId: "steps",
    supportedUrls: {},
    doStream: () => Promise.reject(new Error("the bench's step model does not stream")),
    doGenerate: async ({ prompt, abortSignal }) => {
      if (latencyMs > 0) await sleep(latencyMs, abortSignal);
      const done = countToolResults(prompt);
      if (done >= steps) return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage: USAGE, warnings: [] };
      return {
        content: [{ type: "tool-call", toolCallId: `call-${done}`, toolName: "noop", input: JSON.stringify({ i: done }) }],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage: USAGE,
        warnings: [],
      };
    },
  };
}

/**
 * A run of `steps` tool steps through the AI SDK's `generateText` loop (no persistence). Each run
 * can be cancelled, as every AgentRx run can: it gets an `abortSignal` (its model's latency and
 * its tools see it), as the floor+signal loop passes one to every call.
 */
export function aiSdkLoop(steps: number, latencyMs: number): (input: string) => Promise<unknown> {
  const model = stepModel(steps, latencyMs);
  const tools = {
    noop: tool({ description: "Does nothing.", inputSchema: z.object({ i: z.number() }), execute: async ({ i }) => `ok ${i}` }),
  };
  return async (input) => {
    const abortSignal = new AbortController().signal;
    const result = await generateText({ model, tools, stopWhen: stepCountIs(steps + 1), system: "You are a benchmark agent.", prompt: input, abortSignal });
    if (result.text !== "done") throw new Error(`the AI SDK loop ended with "${result.text}", not "done"`);
    return result.text;
  };
}
