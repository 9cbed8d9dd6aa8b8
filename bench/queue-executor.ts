// The latency-bound executor of the queue scenario: a 200 ms model that calls two tools in its first
// turn, then answers (streamed). One fresh model per executor, so nothing grows between runs.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { prompt } from "./setup";

export const MODEL_LATENCY_MS = 200;

const lookup = tool(async ({ q }: { q: string }) => `${q}: 42`, { name: "lookup", description: "Looks a value up.", schema: z.object({ q: z.string() }) });
const convert = tool(async ({ value }: { value: number }) => `${value * 2}`, { name: "convert", description: "Converts a value.", schema: z.object({ value: z.number() }) });

export function queueExecutor(): AgentExecutor {
  const llm = new ScriptedChatModel({
    streaming: true,
    latencyMs: MODEL_LATENCY_MS,
    onExhausted: "repeat-last",
    responses: [
      (messages) =>
        messages.some((message) => message.getType() === "tool")
          ? "The value is 42, converted 84."
          : { toolCalls: [{ name: "lookup", args: { q: "value" } }, { name: "convert", args: { value: 42 } }] },
    ],
  });
  const tools = [lookup, convert];
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools, prompt }), tools });
}
