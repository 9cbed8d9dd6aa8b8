import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, RunNotFoundError, RunStoreError, type StoredRunEvent } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ChannelHub } from "../internal/channel-hub";
import { encodeWire } from "../internal/wire";
import { type FollowItem, followRun } from "./follow-run";

/** A finished run recorded in a memory store: a few steps, so its record has several entries. */
async function recordedRun(): Promise<{ store: MemoryRunStore; runId: string }> {
  const store = new MemoryRunStore();
  const echo = tool(async ({ n }: { n: number }) => `echo ${n}`, { name: "echo", description: "Echoes.", schema: z.object({ n: z.number() }) });
  const llm = new ScriptedChatModel({ responses: [{ toolCalls: [0, 1, 2].map((n) => ({ name: "echo", args: { n } })) }, "done"] });
  const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
  const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [echo], prompt }), tools: [echo], store });
  await lastValueFrom(executor.stream({ input: "go" }, { runId: "run-1" }));
  return { store, runId: "run-1" };
}

function fakeHub(): { hub: ChannelHub; publish: (message: string) => void } {
  let listener: ((message: string) => void) | undefined;
  const hub = {
    listen: async (_channel: string, heard: (message: string) => void) => ((listener = heard), () => (listener = undefined)),
    onReconnect: () => () => undefined,
    onClose: () => () => undefined,
  } as unknown as ChannelHub;
  return { hub, publish: (message) => listener?.(message) };
}

describe("followRun's pace", () => {
  it("pauses the replay while the consumer is full, and goes on once it drained", async () => {
    const { store, runId } = await recordedRun();
    const { hub } = fakeHub();
    let drained: (() => void) | undefined;
    const items: FollowItem[] = [];
    const pace = () => (items.length === 1 ? new Promise<void>((resolve) => (drained = resolve)) : undefined);
    const context = { store, hub, channel: "c", pollIntervalMs: 60_000, resumePending: async () => false, reconcile: async () => undefined };
    let completed = false;
    const subscription = followRun(context, runId, 0, pace).subscribe({ next: (item) => items.push(item), complete: () => (completed = true) });
    try {
      await expect.poll(() => drained).toBeDefined();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(items).toHaveLength(1); // paused after the first entry
      drained?.();
      await expect.poll(() => completed).toBe(true);
      expect(items.length).toBe((await store.getRun(runId))?.eventCount);
    } finally {
      subscription.unsubscribe();
    }
  });

  it("a paused replay goes on anyway once too many channel messages wait (the consumer's bound then decides)", async () => {
    const { store, runId } = await recordedRun();
    const { hub, publish } = fakeHub();
    const items: FollowItem[] = [];
    const never = new Promise<void>(() => undefined);
    const context = { store, hub, channel: "c", pollIntervalMs: 60_000, resumePending: async () => false, reconcile: async () => undefined };
    let completed = false;
    const subscription = followRun(context, runId, 0, () => never).subscribe({ next: (item) => items.push(item), complete: () => (completed = true) });
    try {
      await expect.poll(() => items.length).toBe(1);
      for (let i = 0; i < 1_000; i++) publish(encodeWire([{ end: { status: "running" } }]));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(items).toHaveLength(1); // still paused: the inbox is within its limit
      publish(encodeWire([{ end: { status: "running" } }]));
      await expect.poll(() => completed).toBe(true);
      expect(items.length).toBe((await store.getRun(runId))?.eventCount);
    } finally {
      subscription.unsubscribe();
    }
  });
});

describe("followRun while the channel cannot be heard (Redis unreachable)", () => {
  const deaf = { listen: () => new Promise<never>(() => undefined), onReconnect: () => () => undefined, onClose: () => () => undefined } as unknown as ChannelHub;
  const context = (store: MemoryRunStore) => ({ store, hub: deaf, channel: "c", pollIntervalMs: 60_000, resumePending: async () => false, reconcile: async () => undefined });

  it("gives a finished run's events from its record and completes: the record says all", async () => {
    const { store, runId } = await recordedRun();
    const items = await lastValueFrom(followRun(context(store), runId, 0).pipe(toArray()));
    expect(items).toHaveLength((await store.getRun(runId))?.eventCount ?? -1);
    expect(items.at(-1)).toMatchObject({ event: { type: "output", output: "done" } });
    // A follower that had everything already completes too.
    await expect(lastValueFrom(followRun(context(store), runId, items.length).pipe(toArray()))).resolves.toEqual([]);
  });

  it("errors with RunNotFoundError for an unknown run", async () => {
    const { store } = await recordedRun();
    await expect(lastValueFrom(followRun(context(store), "no-such-run", 0))).rejects.toSatisfy((error) => RunNotFoundError.isInstance(error));
  });

  it("errors with a corrupt RunStoreError for a record no process can read (an event that cannot be decoded, a missing one)", async () => {
    const { store, runId } = await recordedRun();
    const read = store.readEvents.bind(store);
    const garble = (events: StoredRunEvent[]) => events.map((event) => (event.seq === 2 ? { ...event, data: { ...event.data, type: "no-such-event" } } : event));
    store.readEvents = async (id, options) => garble(await read(id, options));
    const undecodable = await lastValueFrom(followRun(context(store), runId, 0)).catch((error: unknown) => error);
    expect(RunStoreError.isInstance(undecodable) && [undecodable.reason, undecodable.message]).toEqual(["corrupt", expect.stringMatching(/event 2 of run "run-1" cannot be decoded/)]);
    store.readEvents = async (id, options) => (await read(id, options)).filter((event) => event.seq !== 2);
    const missing = await lastValueFrom(followRun(context(store), runId, 0)).catch((error: unknown) => error);
    expect(RunStoreError.isInstance(missing) && [missing.reason, missing.message]).toEqual(["corrupt", expect.stringMatching(/event 2 of run "run-1" is missing from the store/)]);
  });
});
