// Runs of a reasoning model whose earlier steps the agent no longer sees whole, for each of the
// four reasoning wire formats (./reasoning-providers.ts): `compactSteps` summarizes them
// (docs/middleware.md), `trimInSteps` cuts them at a turn's start (docs/executor-options.md). The
// turns that stay go back exactly as the model sent them (the thinking block of the turn whose
// calls the last results answer included), no call is left without its result nor a result
// without its call, and every call is valid for the provider (its loopback server says so), in the
// run and in a fork of it.
import { ScriptedChatModel } from "@agentrx/core/testing";
import { compactSteps, trimInSteps } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { type ReasoningProvider, type ReasoningTurn, reasoningModel, startReasoningServer } from "./reasoning-providers";
import { conversationOf, expectTurnRepeated, sentOf } from "./reasoning-requests";
import { cleanupAfterEach, toolCallingExecutor, weather } from "./support";

const SUMMARY = "Paris and Rome were sunny at 21°C.";
const TURNS: ReasoningTurn[] = [
  { reasoning: "Check Paris and Rome.", calls: [{ name: "weather", args: { city: "Paris" } }, { name: "weather", args: { city: "Rome" } }] },
  { reasoning: "Check Oslo.", calls: [{ name: "weather", args: { city: "Oslo" } }] },
  { reasoning: "Check Lima.", calls: [{ name: "weather", args: { city: "Lima" } }] },
  { reasoning: "Done.", text: "Sunny everywhere." },
  // The fork's call.
  { reasoning: "Done again.", text: "Sunny everywhere, again." },
];
const providers: ReasoningProvider[] = ["anthropic", "responses", "gemini", "chat"];

const { track } = cleanupAfterEach();

describe.each(providers)("%s: compactSteps with reasoning", (provider) => {
  it("summarizes the first turn; the turns kept go back as they came, in the run and in its fork", async () => {
    const server = track(await startReasoningServer(provider, TURNS));
    const summarizer = new ScriptedChatModel({ responses: [SUMMARY], onExhausted: "repeat-last" });
    // Every prompt is over budget; the last 2 steps stay, moved back to their turn's start.
    const middleware = [compactSteps({ model: summarizer, maxTokens: 1, keep: 2 })];
    const executor = toolCallingExecutor(reasoningModel(provider, server.url), [weather], { middleware, store: new MemoryRunStore() });
    const result = await lastValueFrom(executor.invoke({ input: "Weather in Paris, Rome, Oslo and Lima?" }));
    expect(server.rejections).toEqual([]);
    expect(result.output).toBe("Sunny everywhere.");
    const [, , whole, compacted] = server.requests();
    // Before: both turns whole (the last 2 steps are the parallel turn's second call and Oslo's: the cut moves back before the parallel turn).
    expect(server.reasoningSent(whole)).toEqual(sentOf(provider, ["Check Paris and Rome.", "Check Oslo."]));
    // After: the summary (the agent's note and the summary as the user's) in place of the first turn.
    expect(summarizer.calls).toHaveLength(1);
    const sent = JSON.stringify(conversationOf(provider, compacted));
    expect(sent).toContain(SUMMARY);
    expect(sent).not.toContain("Check Paris and Rome.");
    expect(server.reasoningSent(compacted)).toEqual(sentOf(provider, [null, "Check Oslo.", "Check Lima."]));
    expectTurnRepeated(provider, compacted, whole, "Check Oslo.");

    const fork = await executor.fork(result.runId as string);
    expect(fork.output).toBe("Sunny everywhere, again.");
    expect(conversationOf(provider, server.requests()[4])).toEqual(conversationOf(provider, compacted));
    // The summary belongs to the call the fork makes again (iteration 3, after the cut), so it is written again.
    expect(summarizer.calls).toHaveLength(2);
    expect(server.rejections).toEqual([]);
  });
});

describe.each(providers)("%s: trimInSteps with reasoning", (provider) => {
  it("cuts at a turn's start; the turns kept go back as they came, in the run and in its fork", async () => {
    const server = track(await startReasoningServer(provider, TURNS));
    const executor = toolCallingExecutor(reasoningModel(provider, server.url), [weather], { trimIntermediateSteps: trimInSteps({ keep: 1 }), store: new MemoryRunStore() });
    const result = await lastValueFrom(executor.invoke({ input: "Weather in Paris, Rome, Oslo and Lima?" }));
    expect(server.rejections).toEqual([]);
    expect(result.output).toBe("Sunny everywhere.");
    const [, parallel, oslo, lima] = server.requests();
    // The parallel turn is not cut in two; later, each call sees only the turn before it.
    expect(server.reasoningSent(parallel)).toEqual(sentOf(provider, ["Check Paris and Rome."]));
    expect(JSON.stringify(conversationOf(provider, parallel))).toContain("Sunny and 21°C in Paris.");
    expect(server.reasoningSent(oslo)).toEqual(sentOf(provider, ["Check Oslo."]));
    expect(server.reasoningSent(lima)).toEqual(sentOf(provider, ["Check Lima."]));

    // A fork after the parallel turn (its steps restored from the record): the same call as the source's.
    const fork = await executor.fork(result.runId as string, { at: 1 });
    expect(fork.output).toBe("Sunny everywhere, again.");
    expect(conversationOf(provider, server.requests()[4])).toEqual(conversationOf(provider, parallel));
    expect(server.rejections).toEqual([]);
  });
});
