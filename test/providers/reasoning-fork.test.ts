// A fork (`executor.fork`, docs/runs.md) of a run of a reasoning model, for each of the four
// reasoning wire formats (./reasoning-providers.ts): the fork's first model call carries the copied
// turns back exactly as the source's next call did (thinking blocks and signatures, reasoning
// items, thought signatures, `reasoning_content`), and an `edit` of the last step's observation
// changes only that tool result. Every call is valid for the provider (its loopback server says so).
import { MemoryRunStore, ThreadMemory } from "@agentrx/runs";
import { lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { type ReasoningProvider, type ReasoningTurn, reasoningModel, startReasoningServer } from "./reasoning-providers";
import { conversationOf, expectRepeats, sentOf } from "./reasoning-requests";
import { cleanupAfterEach, multiply, toolCallingExecutor, weather } from "./support";

const ANSWER = "Paris and Rome are sunny at 21°C; 21 × 2 = 42.";
const TURNS: ReasoningTurn[] = [
  // The source run.
  { reasoning: "Two cities: both at once.", calls: [{ name: "weather", args: { city: "Paris" } }, { name: "weather", args: { city: "Rome" } }] },
  { reasoning: "21 × 2 with the tool.", calls: [{ name: "multiply", args: { a: 21, b: 2 } }] },
  { reasoning: "Done.", text: ANSWER },
  // The fork of every complete turn.
  { reasoning: "Done again.", text: ANSWER },
  // The fork after the first turn, Rome's weather edited.
  { reasoning: "Rain in Rome: check Oslo.", calls: [{ name: "weather", args: { city: "Oslo" } }] },
  { reasoning: "Done.", text: "Take an umbrella to Rome." },
];
const providers: ReasoningProvider[] = ["anthropic", "responses", "gemini", "chat"];

const { track } = cleanupAfterEach();

describe.each(providers)("%s: a fork of a run with reasoning", (provider) => {
  it("sends the copied turns back exactly as the source did; an edited observation changes only that result", async () => {
    const server = track(await startReasoningServer(provider, TURNS));
    const executor = toolCallingExecutor(reasoningModel(provider, server.url), [weather, multiply], { store: new MemoryRunStore() });
    const source = await lastValueFrom(executor.invoke({ input: "Weather in Paris and Rome, and twice the temperature?" }));
    expect(source.output).toBe(ANSWER);
    const [, afterFirst, afterSecond] = server.requests();

    // Every complete turn copied: the fork's call is the source's last one, byte for byte.
    const whole = await executor.fork(source.runId as string);
    expect(whole.output).toBe(ANSWER);
    const forked = server.requests()[3];
    expect(conversationOf(provider, forked)).toEqual(conversationOf(provider, afterSecond));
    expect(server.reasoningSent(forked)).toEqual(sentOf(provider, ["Two cities: both at once.", "21 × 2 with the tool."]));

    // After the first turn, Rome's result (the turn's last step) edited: only its text differs.
    const edited = await executor.fork(source.runId as string, { at: 1, edit: { observation: "Rain in Rome." } });
    expect(edited.output).toBe("Take an umbrella to Rome.");
    const [editedCall, nextCall] = server.requests().slice(4);
    expect(JSON.stringify(conversationOf(provider, editedCall)).replace("Rain in Rome.", "Sunny and 21°C in Rome.")).toBe(JSON.stringify(conversationOf(provider, afterFirst)));
    expect(JSON.stringify(conversationOf(provider, editedCall))).toContain("Rain in Rome.");
    // The fork's own turn goes on from the edited copy, both turns' reasoning sent back.
    expectRepeats(provider, nextCall, editedCall);
    expect(server.reasoningSent(nextCall)).toEqual(sentOf(provider, ["Two cities: both at once.", "Rain in Rome: check Oslo."]));
    expect(server.rejections).toEqual([]);
  });
});

describe.each(providers)("%s: a fork on a thread with memory", (provider) => {
  it("adds its exchange to the thread with each turn once; the thread's next run is valid", async () => {
    const store = new MemoryRunStore();
    const memory = new ThreadMemory({ store, maxTokens: 100_000, includeToolMessages: true });
    const server = track(
      await startReasoningServer(provider, [
        TURNS[0] as ReasoningTurn,
        { reasoning: "Done.", text: "Sunny in Paris and Rome." },
        // The fork, after the parallel turn.
        { reasoning: "Done again.", text: "Sunny in both." },
        // The thread's next run.
        { reasoning: "Now Oslo.", calls: [{ name: "weather", args: { city: "Oslo" } }] },
        { reasoning: "Done.", text: "Sunny in Oslo too." },
      ]),
    );
    const executor = toolCallingExecutor(reasoningModel(provider, server.url), [weather, multiply], { store, memory: { memory } });
    const source = await lastValueFrom(executor.invoke({ input: "Weather in Paris and Rome?" }, { threadId: "t1" }));
    const fork = await executor.fork(source.runId as string, { at: 1 });
    expect(fork.output).toBe("Sunny in both.");
    // The fork's exchange, as the store keeps it: the copied turn's model message once, before both results.
    const thread = await store.readThreadMessages("t1", {});
    expect(thread.filter((entry) => entry.runId === fork.runId).map((entry) => (entry.message as { type: string }).type)).toEqual(["human", "ai", "tool", "tool", "ai"]);
    const next = await lastValueFrom(executor.invoke({ input: "And Oslo?" }, { threadId: "t1" }));
    expect(next.output).toBe("Sunny in Oslo too.");
    expect(server.rejections).toEqual([]);
    // The thread holds both runs' exchanges, the parallel turn once in each, and each run's answer
    // as the model sent it, its reasoning with it.
    // (A Chat Completions server takes reasoning_content back with a turn that called tools only.)
    const answers = provider === "chat" ? [null, null] : ["Done.", "Done again."];
    const expected = sentOf(provider, ["Two cities: both at once.", answers[0] ?? null, "Two cities: both at once.", answers[1] ?? null, "Now Oslo."]);
    // Gemini's answers carry their thought unsigned: this server signs a turn's first call only.
    if (provider === "gemini") expected.splice(1, 3, "Done.", expected[2], "Done again.");
    expect(server.reasoningSent(server.requests()[4])).toEqual(expected);
  });
});
