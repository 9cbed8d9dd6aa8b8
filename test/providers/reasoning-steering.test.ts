// A message sent to a run of a reasoning model while its tools run (`executor.send`,
// docs/steering.md), for each of the four reasoning wire formats (./reasoning-providers.ts): it
// joins after the turn's tool results as the user's, and every later call carries the earlier
// turns back exactly as the call before did, reasoning and signatures included. Every call is valid
// for the provider (its loopback server says so), and so is a fork of the steered run.
import { MemoryRunStore } from "@agentrx/runs";
import type { AgentExecutor } from "@agentrx/executors";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type ReasoningProvider, type ReasoningTurn, reasoningModel, startReasoningServer } from "./reasoning-providers";
import { conversationOf, expectRepeats, sentOf, shapeOf } from "./reasoning-requests";
import { cleanupAfterEach, toolCallingExecutor } from "./support";

const TURNS: ReasoningTurn[] = [
  { reasoning: "Paris and Lima at once.", calls: [{ name: "weather", args: { city: "Paris" } }, { name: "weather", args: { city: "Lima" } }] },
  { reasoning: "Asked for Rome too.", calls: [{ name: "weather", args: { city: "Rome" } }] },
  { reasoning: "Done.", text: "Sunny in Paris, Lima and Rome." },
  // The fork of the steered run, cut after the message's turn.
  { reasoning: "Done again.", text: "Sunny everywhere." },
];
const MESSAGE = "Also check Rome.";

/** The second request: the question, the parallel turn, its two results, then the message. */
const afterMessage: Record<ReasoningProvider, string[]> = {
  // @langchain/anthropic sends the message as a user message of its own after the results'.
  anthropic: ["user:text", "assistant:thinking,tool_use,tool_use", "user:tool_result,tool_result", "user:text"],
  responses: ["message(user)", "reasoning", "function_call", "function_call", "function_call_output", "function_call_output", "message(user)"],
  gemini: ["user:text", "model:thought,call+signature,call", "user:response", "user:response", "user:text"],
  chat: ["system", "user", "assistant+reasoning:2 calls", "tool", "tool", "user"],
};

const { track } = cleanupAfterEach();

/** A weather tool that, on its first call, sends {@link MESSAGE} to the run `runId` and waits until it is in. */
function steeringWeather(executor: () => AgentExecutor, runId: string) {
  let sent: Promise<unknown> | undefined;
  return tool(
    async ({ city }) => {
      sent ??= executor().send(runId, MESSAGE);
      await sent;
      return `Sunny in ${city}.`;
    },
    { name: "weather", description: "Current weather in a city.", schema: z.object({ city: z.string() }) },
  );
}

describe.each(Object.keys(afterMessage) as ReasoningProvider[])("%s: a message sent to a run with reasoning", (provider) => {
  it("joins after the turn's results; every call valid, the earlier turns' reasoning sent back unchanged", async () => {
    const server = track(await startReasoningServer(provider, TURNS));
    const weather = steeringWeather(() => executor, "steered");
    const executor = toolCallingExecutor(reasoningModel(provider, server.url), [weather], { store: new MemoryRunStore() });
    const result = await lastValueFrom(executor.invoke({ input: "Weather in Paris and Lima?" }, { runId: "steered" }));
    expect(server.rejections).toEqual([]);
    expect(result.output).toBe("Sunny in Paris, Lima and Rome.");
    const [first, second, third] = server.requests();
    const shape = shapeOf(provider, second);
    expect(shape.slice(-afterMessage[provider].length)).toEqual(afterMessage[provider]);
    expect(JSON.stringify(conversationOf(provider, second).at(-1))).toContain(MESSAGE);
    expectRepeats(provider, second, first);
    expectRepeats(provider, third, second);
    expect(server.reasoningSent(third)).toEqual(sentOf(provider, ["Paris and Lima at once.", "Asked for Rome too."]));

    // A fork of the steered run after the turn the message joined for: the same call again.
    const fork = await executor.fork("steered", { at: 2 });
    expect(fork.output).toBe("Sunny everywhere.");
    expect(conversationOf(provider, server.requests()[3])).toEqual(conversationOf(provider, third));
    expect(server.rejections).toEqual([]);
  });
});
