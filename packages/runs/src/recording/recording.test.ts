import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentStreamEvent, RunBusyError, RunLeaseLostError, RunNotFoundError, RunStoreError, type RunStore, type RunWrite } from "@agentrx/executors";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryRunStore } from "../memory/index";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
const usage = { inputTokens: 10, outputTokens: 2 };

/** `store` with some methods replaced. */
function withMethods(store: RunStore, methods: Partial<RunStore>): RunStore {
  const delegate = (name: keyof RunStore) => (store[name] as (...args: unknown[]) => unknown).bind(store);
  const base = Object.fromEntries(
    (["createRun", "claimRun", "write", "getRun", "readEvents", "listRuns", "deleteRun", "pruneRuns", "close"] as const).map((name) => [name, delegate(name)]),
  ) as unknown as RunStore;
  return { ...base, ...methods };
}

function weatherTool(log: string[] = []) {
  return tool(
    async ({ city }: { city: string }) => {
      log.push(city);
      return city === "Paris" ? "sunny" : "rainy";
    },
    { name: "weather", description: "Weather for a city.", schema: z.object({ city: z.string() }) },
  );
}

function twoTurnModel() {
  return new ScriptedChatModel({
    streaming: true,
    responses: [
      { toolCalls: [{ name: "weather", args: { city: "Paris" } }, { name: "weather", args: { city: "Oslo" } }], usage },
      { content: "Sunny in Paris, rainy in Oslo.", usage },
    ],
  });
}

function executorFor(options: { store?: RunStore; log?: string[] } = {}) {
  const weather = weatherTool(options.log);
  const agent = createToolCallingAgent({ llm: twoTurnModel(), tools: [weather], prompt });
  return new AgentExecutor({ agent, tools: [weather], ...(options.store ? { store: options.store } : {}) });
}

const collect = <T>(source: import("rxjs").Observable<T>) => lastValueFrom(source.pipe(toArray()));

/** An event without what differs between two runs (ids, times, durations). */
function shape(event: AgentStreamEvent): unknown {
  switch (event.type) {
    case "start":
      return { type: "start", inputs: event.inputs, resumed: event.resumed };
    case "action":
      return { type: "action", iteration: event.iteration, tool: event.action.tool, input: event.action.toolInput };
    case "step":
      return { type: "step", iteration: event.iteration, observation: event.step.observation };
    case "output":
      return { type: "output", output: event.output, stopReason: event.stopReason, usage: event.usage };
    default:
      return { ...event, at: 0 };
  }
}

describe("recording a run", () => {
  it("records a streamed run without changing what it emits", async () => {
    const plain = await collect(executorFor().stream({ input: "Weather?" }));
    const store = new MemoryRunStore();
    const recorded = await collect(executorFor({ store }).stream({ input: "Weather?" }));
    expect(recorded.map(shape)).toEqual(plain.map(shape));

    const runId = (recorded[0] as Extract<AgentStreamEvent, { type: "start" }>).runId;
    const output = recorded.at(-1) as Extract<AgentStreamEvent, { type: "output" }>;
    expect(output.runId).toBe(runId);
    expect(output.usage).toMatchObject({ input_tokens: 20, output_tokens: 4, total_tokens: 24 });

    const info = await store.getRun(runId);
    expect(info).toMatchObject({ status: "finished", stopReason: "finish", usage: output.usage, inputs: { input: "Weather?" } });
    expect(info?.owner).toBeUndefined();
    const types = (await store.readEvents(runId)).map((event) => event.type);
    // Tokens are kept coalesced: one token event per model call that streamed text.
    expect(types).toEqual(["start", "usage", "model_call", "action", "action", "step", "step", "token", "usage", "model_call", "output"]);
    const tokens = (await store.readEvents(runId)).filter((event) => event.type === "token");
    expect(tokens[0]?.data["text"]).toBe("Sunny in Paris, rainy in Oslo.");
    expect(recorded.filter((event) => event.type === "token").length).toBeGreaterThan(1);
  });

  it("records invoke runs too, with config.runId, threadId and the total usage in the result", async () => {
    const store = new MemoryRunStore();
    const result = await lastValueFrom(executorFor({ store }).invoke({ input: "Weather?" }, { runId: "run-42", threadId: "t-1" }));
    expect(result).toMatchObject({ output: "Sunny in Paris, rainy in Oslo.", runId: "run-42", usage: { total_tokens: 24 } });
    expect(await store.getRun("run-42")).toMatchObject({ status: "finished", threadId: "t-1" });
    await lastValueFrom(executorFor().invoke({ input: "again" }, { store, configurable: { thread_id: "t-1" } }));
    expect((await store.listRuns({ threadId: "t-1" })).map((run) => run.status)).toEqual(["finished", "finished"]);
  });

  it("reports usage in invoke's result without a store or a stream", async () => {
    const result = await lastValueFrom(executorFor().invoke({ input: "Weather?" }));
    expect(result.usage).toMatchObject({ input_tokens: 20, output_tokens: 4, total_tokens: 24 });
    expect(typeof result.runId).toBe("string");
  });

  it("writes each tool step twice (the turn before its tools, the results before the next model call), and never a write of nothing", async () => {
    const store = new MemoryRunStore();
    const writes: RunWrite[] = [];
    // Each write is acknowledged after a timer, as a store over a network acknowledges it after I/O.
    const counted = withMethods(store, {
      write: async (runId, write) => {
        writes.push(write);
        await new Promise((resolve) => setTimeout(resolve, 1));
        return store.write(runId, write);
      },
    });
    const noop = tool(async ({ i }: { i: number }) => `ok ${i}`, { name: "noop", description: "Does nothing.", schema: z.object({ i: z.number() }) });
    const steps = 5;
    const model = new ScriptedChatModel({
      responses: [...Array.from({ length: steps }, (_, i) => ({ toolCalls: [{ name: "noop", args: { i } }] })), { content: "done" }],
    });
    const agent = createToolCallingAgent({ llm: model, tools: [noop], prompt });
    await lastValueFrom(new AgentExecutor({ agent, tools: [noop], store: counted }).invoke({ input: "go" }));
    const carryOnlyCheckpoint = writes.filter((write) => write.events.length === 0 && Object.keys(write.update ?? {}).every((key) => key === "checkpoint" || key === "usage"));
    expect(carryOnlyCheckpoint).toEqual([]);
    // The start, two per step, and the last turn with the output.
    expect(writes.length).toBe(1 + 2 * steps + 1);
  });

  it("fails the run with a RunStoreError naming the run when the store fails", async () => {
    const store = new MemoryRunStore();
    const failing = withMethods(store, {
      write: async () => {
        throw new Error("disk full");
      },
    });
    const log: string[] = [];
    const seen: string[] = [];
    const error = await new Promise((resolve) =>
      executorFor({ store: failing, log })
        .stream({ input: "Weather?" }, { runId: "doomed" })
        .subscribe({ next: (event) => seen.push(event.type), error: resolve, complete: () => resolve("completed") }),
    );
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect((error as RunStoreError).runId).toBe("doomed");
    expect((error as Error).message).toMatch(/doomed.*disk full/);
    // The first write failed: the run ended there, with no output.
    expect(seen).not.toContain("output");
    expect(log.length).toBeLessThanOrEqual(2);
  });

  it("fails a run whose runId is recorded already, naming it, and leaves the first record alone", async () => {
    const store = new MemoryRunStore();
    await lastValueFrom(executorFor({ store }).invoke({ input: "first" }, { runId: "same" }));
    const error = await lastValueFrom(executorFor({ store }).invoke({ input: "second" }, { runId: "same" })).catch((e: unknown) => e);
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/same/);
    expect(await store.getRun("same")).toMatchObject({ status: "finished", inputs: { input: "first" } });
  });

  it("refuses an object that is not a RunStore, naming the option", () => {
    const agent = createToolCallingAgent({ llm: twoTurnModel(), tools: [weatherTool()], prompt });
    expect(() => new AgentExecutor({ agent, tools: [weatherTool()], store: {} as RunStore })).toThrow(/`store` must be a RunStore.*createRun/);
  });
});

describe("resume", () => {
  it("emits a finished run's recorded output and runs nothing", async () => {
    const store = new MemoryRunStore();
    const log: string[] = [];
    const first = await lastValueFrom(executorFor({ store, log }).invoke({ input: "Weather?" }, { runId: "done" }));
    const events = await collect(executorFor({ store, log }).resume("done"));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "output", output: first.output, runId: "done", stopReason: "finish" });
    expect(log).toEqual(["Paris", "Oslo"]);
  });

  it("continues a cancelled run: the recorded turn is not asked again and only missing tool calls run", async () => {
    const store = new MemoryRunStore();
    const calls: string[] = [];
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const slow = tool(
      async ({ city }: { city: string }, config) => {
        calls.push(city);
        if (city === "Oslo") {
          await new Promise<void>((resolve, reject) => {
            blocked.then(resolve);
            config?.signal?.addEventListener("abort", () => reject(new Error("aborted")));
          });
        }
        return city === "Paris" ? "sunny" : "rainy";
      },
      { name: "weather", description: "Weather.", schema: z.object({ city: z.string() }) },
    );
    const model = twoTurnModel();
    const agent = createToolCallingAgent({ llm: model, tools: [slow], prompt });
    const executor = new AgentExecutor({ agent, tools: [slow], store });
    const seen: AgentStreamEvent[] = [];
    const subscription = executor.stream({ input: "Weather?" }, { runId: "r1" }).subscribe((event) => {
      seen.push(event);
      // Paris finished, Oslo is in flight: cancel.
      if (event.type === "step") queueMicrotask(() => subscription.unsubscribe());
    });
    await vi_waitFor(async () => (await store.getRun("r1"))?.status === "cancelled");
    expect(model.calls).toHaveLength(1);
    release();

    const resumed = await collect(executor.resume("r1"));
    expect(resumed[0]).toMatchObject({ type: "start", runId: "r1", resumed: true, inputs: { input: "Weather?" } });
    expect(resumed.filter((event) => event.type === "action")).toHaveLength(0);
    expect(resumed.filter((event) => event.type === "step").map((event) => event.step.observation)).toEqual(["rainy"]);
    expect(resumed.at(-1)).toMatchObject({ type: "output", output: "Sunny in Paris, rainy in Oslo.", runId: "r1" });
    // One model call per turn over both segments; Paris ran once, Oslo twice (it was in flight).
    expect(model.calls).toHaveLength(2);
    expect(calls).toEqual(["Paris", "Oslo", "Oslo"]);
    const second = model.calls[1]?.messages.map((message) => message.getType());
    expect(second).toEqual(["human", "ai", "tool", "tool"]);
    expect(await store.getRun("r1")).toMatchObject({ status: "finished", usage: { total_tokens: 24 } });
  });

  it("refuses a run another segment is running, and an unknown run", async () => {
    const store = new MemoryRunStore();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const waiting = tool(async () => gate.then(() => "ok"), { name: "weather", description: "w", schema: z.object({ city: z.string() }) });
    const agent = createToolCallingAgent({ llm: twoTurnModel(), tools: [waiting], prompt });
    const executor = new AgentExecutor({ agent, tools: [waiting], store });
    const done = collect(executor.stream({ input: "x" }, { runId: "busy" }));
    await vi_waitFor(async () => (await store.readEvents("busy")).some((event) => event.type === "action"));
    const error = await collect(executor.resume("busy")).catch((e: unknown) => e);
    expect(RunBusyError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/"busy" is running in another process/);
    release();
    await done;
    await expect(collect(executor.resume("nope"))).rejects.toSatisfy((e: unknown) => RunNotFoundError.isInstance(e));
    await expect(collect(new AgentExecutor({ agent, tools: [waiting] }).resume("busy"))).rejects.toThrow(/no store to resume from/);
  });

  it("takes over a run whose process stopped writing once its lease expired, counting iterations over the whole run", async () => {
    const store = new MemoryRunStore();
    // A process that "dies" after the first turn's actions are recorded: its writes never come back.
    let dead = false;
    const dying = withMethods(store, {
      write: (runId, write) => (dead ? new Promise<void>(() => {}) : store.write(runId, write)),
    });
    const log: string[] = [];
    const weather = tool(
      async ({ city }: { city: string }) => {
        log.push(city);
        if (city === "Paris") return "sunny";
        // Oslo: the process dies while this call is in flight (after Paris's result was written).
        setTimeout(() => (dead = true), 20);
        return new Promise<string>(() => {});
      },
      { name: "weather", description: "w", schema: z.object({ city: z.string() }) },
    );
    const model = twoTurnModel();
    const agent = createToolCallingAgent({ llm: model, tools: [weather], prompt });
    const crashed = new AgentExecutor({ agent, tools: [weather], store: dying, leaseMs: 100 });
    // Cut off from its store, the process stops acting once its lease runs out: it fails with RunLeaseLostError.
    let zombieError: unknown;
    const zombie = crashed.stream({ input: "Weather?" }, { runId: "r2" }).subscribe({ error: (error: unknown) => (zombieError = error) });
    await vi_waitFor(async () => dead);

    const live = weatherTool(log);
    const resumer = new AgentExecutor({ agent: createToolCallingAgent({ llm: model, tools: [live], prompt }), tools: [live], store, maxIterations: 2, leaseMs: 100 });
    await vi_waitFor(async () => ((await store.getRun("r2"))?.leaseExpiresAt ?? Infinity) < Date.now(), 2_000);
    const result = await lastValueFrom(resumer.resume("r2"));
    expect(result).toMatchObject({ type: "output", output: "Sunny in Paris, rainy in Oslo.", stopReason: "finish" });
    expect(model.calls).toHaveLength(2);
    // Paris finished before the crash and is not repeated; Oslo was in flight and runs again.
    expect(log).toEqual(["Paris", "Oslo", "Oslo"]);
    expect(RunLeaseLostError.isInstance(zombieError)).toBe(true);
    zombie.unsubscribe();
  });
});

/** Polls `check` until it holds (the store is written asynchronously). */
async function vi_waitFor(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("queued runs", () => {
  it("resume starts a run that was recorded as queued: resumed is false, and it runs from its recorded inputs", async () => {
    const store = new MemoryRunStore();
    await store.createRun({ runId: "q1", threadId: "t", inputs: { input: "Weather?" }, status: "queued", at: Date.now() });
    const events = await collect(executorFor({ store }).resume("q1"));
    expect(events[0]).toMatchObject({ type: "start", runId: "q1", resumed: false, inputs: { input: "Weather?" }, threadId: "t" });
    expect(events.at(-1)).toMatchObject({ type: "output", output: "Sunny in Paris, rainy in Oslo." });
    expect(await store.getRun("q1")).toMatchObject({ status: "finished" });
  });
});

describe("recordTokens", () => {
  it('"each" records every token event; the default coalesces them per model call', async () => {
    const store = new MemoryRunStore();
    const weather = weatherTool();
    const agent = createToolCallingAgent({ llm: twoTurnModel(), tools: [weather], prompt });
    const streamed = await collect(new AgentExecutor({ agent, tools: [weather], store, recordTokens: "each" }).stream({ input: "x" }, { runId: "each" }));
    const live = streamed.filter((event) => event.type === "token").length;
    const recorded = (await store.readEvents("each")).filter((event) => event.type === "token");
    expect(live).toBeGreaterThan(1);
    expect(recorded).toHaveLength(live);
    expect(() => new AgentExecutor({ agent, tools: [weather], recordTokens: "some" as never })).toThrow(/recordTokens/);
  });

  it('"each" writes the tokens while the model streams, so a reader of the record sees the text before the call ends', async () => {
    const store = new MemoryRunStore();
    const text = "one two three four five six seven eight nine ten eleven twelve";
    // A slow stream (about 300 ms per word), so the call is still streaming when the record is read.
    const llm = new ScriptedChatModel({ streaming: true, tokenDelayMs: 300, responses: [text] });
    const agent = createToolCallingAgent({ llm, tools: [], prompt });
    const run = lastValueFrom(new AgentExecutor({ agent, tools: [], store, recordTokens: "each" }).stream({ input: "x" }, { runId: "live-tokens" }));
    // Poll the store for the first written token, as the ui's live page does.
    let events = await store.readEvents("live-tokens").catch(() => []);
    while (!events.some((event) => event.type === "token")) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      events = await store.readEvents("live-tokens").catch(() => []);
    }
    expect(events.some((event) => event.type === "model_call")).toBe(false); // the call still streams
    await run;
    const recorded = (await store.readEvents("live-tokens")).filter((event) => event.type === "token");
    expect(recorded.map((event) => event.data["text"]).join("")).toBe(text);
  }, 60_000);
});
