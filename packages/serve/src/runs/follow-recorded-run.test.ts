import { createToolCallingAgent } from "@agentrx/agents";
import { isAbortError } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, RunNotFoundError } from "@agentrx/executors";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { MemoryRunStore, replayRun } from "@agentrx/runs";
import { catchError, firstValueFrom, lastValueFrom, of, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toAGUIEvents } from "../ag-ui/to-ag-ui-events";
import { ANSWER, weatherExecutor } from "../test-helpers/weather-executor";
import { workExecutor, workTool } from "../test-helpers/work-executor";
import { toUIMessageChunks } from "../ui-message-stream/to-ui-message-chunks";
import { followRecordedRun } from "./follow-recorded-run";

const strip = <T extends { at?: number }>(events: T[]) => events.map(({ at: _at, ...event }) => event);

describe("followRecordedRun", () => {
  it("follows a running run from its first event until it stops: every recorded event once", async () => {
    const store = new MemoryRunStore();
    const executor = weatherExecutor({ store, tokenDelayMs: 5, toolMs: 30 });
    const running = lastValueFrom(executor.stream({ input: "Weather?" }, { runId: "live" }));
    // Join once the run is recorded and under way.
    await expect.poll(async () => (await store.getRun("live"))?.eventCount ?? 0).toBeGreaterThan(1);
    expect((await store.getRun("live"))?.status).toBe("running");
    const followed = lastValueFrom(followRecordedRun(store, "live", { pollMs: 10 }).pipe(toArray()));
    await running;
    const events = await followed;
    expect(events.at(-1)).toMatchObject({ type: "output", output: ANSWER });
    expect(strip(events)).toEqual(strip(await lastValueFrom(replayRun(store, "live").pipe(toArray()))));
    const text = events.flatMap((event) => (event.type === "token" ? [event.text] : [])).join("");
    expect(text).toBe(`Let me check. ${ANSWER}`);
  });

  it("completes at once after the record of a finished run, and errors for an unknown run", async () => {
    const store = new MemoryRunStore();
    await lastValueFrom(weatherExecutor({ store }).invoke({ input: "Weather?" }, { runId: "done" }));
    const events = await lastValueFrom(followRecordedRun(store, "done").pipe(toArray()));
    expect(events.map((event) => event.type)).toEqual((await lastValueFrom(replayRun(store, "done").pipe(toArray()))).map((event) => event.type));
    await expect(firstValueFrom(followRecordedRun(store, "nope"))).rejects.toSatisfy((error) => RunNotFoundError.isInstance(error));
    expect(() => followRecordedRun(store, "done", { pollMs: 0 })).toThrow(/pollMs/);
  });
});

describe("followRecordedRun, a run that stopped without an output", () => {
  it("errors as the run did: a failed run with its recorded reason, a cancelled one with an AbortError; the streams made of it end so", async () => {
    const store = new MemoryRunStore();
    const failing = tool(
      async () => {
        throw new Error("weather service down");
      },
      { name: "work", description: "Works.", schema: z.object({ name: z.string() }) },
    );
    const failed = workExecutor(failing, [{ toolCalls: [{ name: "work", args: { name: "a" } }] }], { store, handleToolRuntimeErrors: false });
    const liveChunks = await lastValueFrom(failed.stream({ input: "go" }, { runId: "failed" }).pipe(toUIMessageChunks(), toArray()));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const slow = workExecutor(workTool({ slowMs: 2_000 }), [{ toolCalls: [{ name: "work", args: { name: "a" } }] }], { store });
    await lastValueFrom(slow.stream({ input: "go" }, { runId: "cancelled", signal: controller.signal }).pipe(catchError(() => of(undefined))));
    expect([(await store.getRun("failed"))?.status, (await store.getRun("cancelled"))?.status]).toEqual(["failed", "cancelled"]);

    await expect(lastValueFrom(followRecordedRun(store, "failed"))).rejects.toThrow("weather service down");
    await expect(lastValueFrom(followRecordedRun(store, "cancelled"))).rejects.toSatisfy(isAbortError);

    // useChat, reconnecting: the call ends in an error and the message with the run's error (or
    // aborted), not as a success with the call still running.
    const failedChunks = await lastValueFrom(followRecordedRun(store, "failed").pipe(toUIMessageChunks(), toArray()));
    expect(failedChunks.map((chunk) => chunk.type).slice(-3)).toEqual(["tool-output-error", "finish-step", "error"]);
    // The same text as the live stream's (the record keeps `Error: weather service down`).
    expect(failedChunks.at(-1)).toEqual({ type: "error", errorText: "weather service down" });
    expect(failedChunks.at(-1)).toEqual(liveChunks.at(-1));
    const cancelledChunks = await lastValueFrom(followRecordedRun(store, "cancelled").pipe(toUIMessageChunks(), toArray()));
    expect(cancelledChunks.map((chunk) => chunk.type).slice(-3)).toEqual(["tool-output-error", "finish-step", "abort"]);
    // AG-UI: RUN_ERROR, and a cancelled outcome (never a success whose calls the client must answer).
    const agUi = (runId: string) => lastValueFrom(toAGUIEvents(followRecordedRun(store, runId), { threadId: "t", runId }).pipe(toArray()));
    expect((await agUi("failed")).at(-1)).toEqual({ type: "RUN_ERROR", message: "weather service down", timestamp: expect.any(Number) });
    expect((await agUi("cancelled")).at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "cancelled" } });
  });
});

describe("followRecordedRun, with the executor's other features", () => {
  it("leaves out the record-only intents of early tool calls: the events are replayRun's", async () => {
    const store = new MemoryRunStore();
    const work = tool(async ({ name }: { name: string }) => `${name} done`, { name: "work", description: "Works.", schema: z.object({ name: z.string() }) });
    const llm = new ScriptedChatModel({ streaming: true, tokenDelayMs: 2, responses: [{ toolCalls: [{ name: "work", args: { name: "a" } }, { name: "work", args: { name: "b" } }] }, "All done."] });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [work], prompt }), tools: [work], eagerTools: true, store });
    const live = await lastValueFrom(executor.stream({ input: "go" }, { runId: "eager" }).pipe(toArray()));
    expect(live.filter((event) => event.type === "action").every((event) => event.type === "action" && event.early === true)).toBe(true);
    const events = await lastValueFrom(followRecordedRun(store, "eager").pipe(toArray()));
    expect(events.map((event) => event.type)).not.toContain("tool_intent");
    expect(strip(events)).toEqual(strip(await lastValueFrom(replayRun(store, "eager").pipe(toArray()))));
  });

  it("reads a person's edit of a paused call as replayRun does: the call's step carries the edited input", async () => {
    const store = new MemoryRunStore();
    const weather = tool(async ({ city }: { city: string }) => `sunny in ${city}`, { name: "weather", description: "Weather.", schema: z.object({ city: z.string() }) });
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "weather", args: { city: "Paris" } }] }, "Done."] });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [weather], prompt }), tools: [weather], needsApproval: () => true, store });
    await lastValueFrom(executor.stream({ input: "Weather?" }, { runId: "edited" }).pipe(toArray()));
    await lastValueFrom(executor.resume("edited", { decisions: { "call-0-0": { type: "edit", toolInput: { city: "Rome" } } } }).pipe(toArray()));
    const events = await lastValueFrom(followRecordedRun(store, "edited").pipe(toArray()));
    const replayed = await lastValueFrom(replayRun(store, "edited").pipe(toArray()));
    expect(strip(events)).toEqual(strip(replayed));
    expect(events.find((event) => event.type === "step")).toMatchObject({ step: { observation: "sunny in Rome" } });
  });
});
