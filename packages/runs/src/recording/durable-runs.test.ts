import { type AgentAction, type AgentStep, getIdempotencyKey, idempotencyKeyOf } from "@agentrx/core";
import { AgentExecutor, InDoubtToolCallError, RunLeaseLostError, RunStoreError, type StoredRunEvent, restoreRunState } from "@agentrx/executors";
import { withApproval, withInDoubt } from "@agentrx/tools";
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel, type ScriptedCall, type ScriptedResponse } from "@agentrx/core/testing";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { type Observable, lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryRunStore } from "../memory/index";
import { replayRun } from "../replay/replay-run";
import { delegate, durableFixture, slowStore } from "./durable-test-fixtures";

const collect = <T>(source: Observable<T>) => lastValueFrom(source.pipe(toArray()));

describe("write-ahead", () => {
  it("records a turn's actions before any of its tools starts, and every result before the next model call, even with a slow store", async () => {
    const inner = new MemoryRunStore();
    const store = slowStore(inner, { delayMs: 15 });
    const { agent, tools, seen } = durableFixture({ turns: 3, width: 3, store: inner });
    const executor = new AgentExecutor({ agent, tools, store });
    const result = await executor.invoke({ input: "go" }, { runId: "run" });
    expect(result.output.split(", ")).toHaveLength(9);
    expect(seen.started).toHaveLength(9);
    expect(seen.violations).toEqual([]);
  });

  it("records the decisions of a resume before the approved tool starts", async () => {
    const store = new MemoryRunStore();
    const typesAtStart: string[][] = [];
    const refund = withApproval(
      tool(
        async () => {
          typesAtStart.push((await store.readEvents("r")).map((event) => event.type));
          return "refunded";
        },
        { name: "refund", description: "Refunds.", schema: z.object({}) },
      ),
    );
    const agent = RunnableLambda.from((input: { steps: AgentStep[] }) =>
      input.steps.length === 0 ? { tool: "refund", toolInput: {}, log: "", toolCallId: "c1" } : { returnValues: { output: input.steps[0]?.observation }, log: "" },
    );
    const executor = new AgentExecutor({ agent, tools: [refund], store });
    await executor.invoke({ input: "x" }, { runId: "r" });
    const result = await executor.resume("r", { decisions: { "call-0-0": "approve" } });
    expect(result.output).toBe("refunded");
    expect(typesAtStart).toHaveLength(1);
    expect(typesAtStart[0]?.slice(-2)).toEqual(["start", "decisions"]);
  });
});

describe("a store that stops answering, or a lease that is lost", () => {
  it("fails the run with a timeout RunStoreError within storeTimeoutMs, and starts nothing after the store froze", async () => {
    const store = slowStore(new MemoryRunStore(), { stuckAfter: 2 });
    const { agent, tools, seen } = durableFixture({ turns: 5, width: 2 });
    const executor = new AgentExecutor({ agent, tools, store, storeTimeoutMs: 200 });
    const startedAt = Date.now();
    const error = await executor.invoke({ input: "go" }, { runId: "run" }).then(() => undefined, (e: unknown) => e);
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ reason: "timeout", op: "write", runId: "run" });
    // It waited for the stuck write as long as storeTimeoutMs said, and not much longer.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(195);
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    const startedWhenFailed = seen.started.length;
    // Writes 1 and 2 (the start, the first turn's actions) were acknowledged: that turn's tools ran, nothing after.
    expect(startedWhenFailed).toBeLessThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen.started).toHaveLength(startedWhenFailed);
    expect(seen.agentCalls.length).toBeLessThanOrEqual(2);
  });

  it("stops at once, with RunLeaseLostError, when the store refuses a write because another process took the run over", async () => {
    const store = slowStore(new MemoryRunStore(), { leaseLostAfter: 3 });
    const { agent, tools, seen } = durableFixture({ turns: 4, width: 2 });
    const executor = new AgentExecutor({ agent, tools, store });
    const error = await executor.invoke({ input: "go" }, { runId: "run" }).then(() => undefined, (e: unknown) => e);
    expect(RunLeaseLostError.isInstance(error)).toBe(true);
    const started = seen.started.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen.started).toHaveLength(started);
    expect(started).toBeLessThanOrEqual(2);
  });

  it("starts no tool when no write was acknowledged for a whole lease (a store slower than the lease)", async () => {
    const store = slowStore(new MemoryRunStore(), { delayMs: 150 });
    const { agent, tools, seen } = durableFixture({ turns: 1, width: 1 });
    const executor = new AgentExecutor({ agent, tools, store, leaseMs: 100 });
    const error = await executor.invoke({ input: "go" }, { runId: "run" }).then(() => undefined, (e: unknown) => e);
    expect(RunLeaseLostError.isInstance(error)).toBe(true);
    expect((error as RunLeaseLostError).message).toMatch(/no write acknowledged for its whole lease \(100 ms\)/);
    expect(seen.started).toEqual([]);
  });
});

/** A run of 2 turns of 2 calls, recorded as far as it got when it was stopped mid-run. */
async function recorded(options: { returnIntermediateSteps?: boolean } = {}) {
  const store = new MemoryRunStore();
  const { agent, tools, seen } = durableFixture({ turns: 2, width: 2 });
  const executor = new AgentExecutor({ agent, tools, store, ...options });
  const run = executor.invoke({ input: "go" }, { runId: "run" }).subscribe();
  await new Promise((resolve) => setTimeout(resolve, 2)); // mid-run
  run.unsubscribe();
  return { store, executor, seen };
}

describe("a damaged record", () => {

  it("is refused by resume when an event is missing from the middle, and nothing runs", async () => {
    const { store, executor, seen } = await recorded();
    const gappy = delegate(store);
    gappy.readEvents = async (runId, options) => (await store.readEvents(runId, options)).filter((event) => event.seq !== 2);
    const before = seen.started.length;
    const error = await executor.resume("run", { store: gappy }).then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ name: "RunStoreError", reason: "corrupt" });
    expect((error as Error).message).toMatch(/resume: event 2 of run "run" is corrupt: it is missing or out of order/);
    expect(seen.started).toHaveLength(before);
  });

  it("is refused when its checkpoint has an unknown schemaVersion", async () => {
    const { store, executor } = await recorded();
    const future = delegate(store);
    future.getRun = async (runId) => {
      const info = await store.getRun(runId);
      return info && { ...info, checkpoint: { schemaVersion: 999, iteration: 0, elapsedMs: 0, phase: "agent" } };
    };
    future.claimRun = async (runId, claim) => ({ ...(await store.claimRun(runId, claim)), checkpoint: { schemaVersion: 999, iteration: 0, elapsedMs: 0, phase: "agent" } });
    const error = await executor.resume("run", { store: future }).then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ name: "RunStoreError", reason: "unsupported" });
    expect((error as Error).message).toMatch(/schemaVersion 999.*A newer release of @agentrx\/executors wrote it/);
    // A version no release wrote (below the known ones) is damage.
    const past = delegate(store);
    const zero = { schemaVersion: 0, iteration: 0, elapsedMs: 0, phase: "agent" };
    past.getRun = async (runId) => {
      const info = await store.getRun(runId);
      return info && { ...info, checkpoint: zero };
    };
    past.claimRun = async (runId, claim) => ({ ...(await store.claimRun(runId, claim)), checkpoint: zero });
    const damaged = await executor.resume("run", { store: past }).then(() => undefined, (e: unknown) => e);
    expect(damaged).toMatchObject({ name: "RunStoreError", reason: "corrupt" });
    expect((damaged as Error).message).not.toMatch(/newer release/);
  });

  it("is refused when an event cannot follow from the state (a step for an action that was never recorded)", () => {
    const info = { runId: "r", status: "running" as const, inputs: {}, createdAt: 0, updatedAt: 0, eventCount: 2 };
    const events: StoredRunEvent[] = [
      { seq: 1, type: "start", at: 0, data: { type: "start", at: 0, runId: "r", inputs: {}, resumed: false } },
      { seq: 2, type: "decisions", at: 0, data: { type: "decisions", at: 0, decisions: { x: "approve" } } },
    ];
    expect(() => restoreRunState(info, events)).toThrow(/event 2 of run "r" is corrupt: it does not follow from the run's state: decisions recorded while the run waits for none/);
  });
});

describe("resume reads the record while it claims the run", () => {
  it("reads the events again when a write landed between its read and its claim, and goes on from the whole record", async () => {
    const { store, executor, seen } = await recorded({ returnIntermediateSteps: true });
    const recordedSteps = (await store.readEvents("run")).filter((event) => event.type === "step").length;
    const calls: string[] = [];
    const racing = delegate(store);
    racing.claimRun = async (runId, claim) => (calls.push("claimRun"), store.claimRun(runId, claim));
    racing.readEvents = async (runId, options) => {
      calls.push("readEvents");
      const events = await store.readEvents(runId, options);
      // The first read is made before the claim: as if the run's last write landed after it.
      return calls.filter((call) => call === "readEvents").length === 1 ? events.slice(0, -1) : events;
    };
    const before = seen.started.length;
    const result = await executor.resume("run", { store: racing });
    expect(calls).toEqual(["readEvents", "claimRun", "readEvents"]);
    expect(result.stopReason).toBe("finish");
    expect(result.intermediateSteps).toHaveLength(4); // 2 turns of 2 calls, none lost nor doubled
    // The calls whose results were recorded before the resume did not run again.
    expect(seen.started.length - before).toBeLessThanOrEqual(4 - recordedSteps);
    expect(seen.violations).toEqual([]);
  });

  it("fails with the read's error when the read fails before the claim returns, and gives the lease back", async () => {
    const { store, executor, seen } = await recorded();
    await new Promise((resolve) => setTimeout(resolve, 20)); // its last write is in
    const failing = delegate(store);
    failing.readEvents = async () => Promise.reject(new Error("disk read failed"));
    failing.claimRun = async (runId, claim) => (await new Promise((resolve) => setTimeout(resolve, 30)), store.claimRun(runId, claim));
    const before = seen.started.length;
    const error = await executor.resume("run", { store: failing }).then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ name: "RunStoreError", message: expect.stringMatching(/disk read failed/) });
    expect(seen.started).toHaveLength(before);
    expect((await store.getRun("run"))?.owner).toBeUndefined(); // released: another resume may take it at once
  });
  it("does not read the events of a run another process holds a live lease on: the claim is refused first", async () => {
    const store = new MemoryRunStore();
    const { agent, tools } = durableFixture({ turns: 2, width: 2 });
    const executor = new AgentExecutor({ agent, tools, store });
    const run = executor.invoke({ input: "go" }, { runId: "run" }).subscribe();
    await new Promise((resolve) => setTimeout(resolve, 2)); // mid-run: the lease is live
    const calls: string[] = [];
    const counting = delegate(store);
    counting.claimRun = async (runId, claim) => (calls.push("claimRun"), store.claimRun(runId, claim));
    counting.readEvents = async (runId, options) => (calls.push("readEvents"), store.readEvents(runId, options));
    const error = await new AgentExecutor({ agent, tools, store: counting }).resume("run").then(() => undefined, (e: unknown) => e);
    run.unsubscribe();
    expect(error).toMatchObject({ name: "RunBusyError" });
    expect(calls).toEqual(["claimRun"]);
  });
});

describe("idempotency keys and calls in doubt", () => {
  /** A run cancelled while its one tool call is in flight: the call is in doubt. */
  async function cancelledMidTool(options: { inDoubt?: "retry" | "interrupt" | "fail"; toolPolicy?: "retry" | "interrupt" | "fail"; writeDelayMs?: number } = {}) {
    const store = new MemoryRunStore();
    const writeDelayMs = options.writeDelayMs ?? 0;
    const keys: string[] = [];
    let release: (() => void) | undefined;
    const started = new Promise<void>((resolve) => (release = resolve));
    let charge = tool(
      async (_input: { cents: number }, config) => {
        keys.push(getIdempotencyKey(config) ?? "none");
        release?.();
        await new Promise((resolve) => setTimeout(resolve, keys.length === 1 ? 10_000 : 1));
        return "charged";
      },
      { name: "charge", description: "Charges.", schema: z.object({ cents: z.number() }) },
    );
    if (options.toolPolicy) charge = withInDoubt(charge, options.toolPolicy);
    const agent = RunnableLambda.from((input: { steps: AgentStep[] }) =>
      input.steps.length === 0
        ? ({ tool: "charge", toolInput: { cents: 5 }, log: "", toolCallId: "pay-1" } as AgentAction)
        : { returnValues: { output: `then: ${input.steps[0]?.observation}` }, log: "" },
    );
    const executor = new AgentExecutor({ agent, tools: [charge], store: writeDelayMs > 0 ? slowStore(store, { delayMs: writeDelayMs }) : store, ...(options.inDoubt ? { inDoubt: options.inDoubt } : {}) });
    const run = executor.invoke({ input: "pay" }, { runId: "pay" }).subscribe({ error: () => undefined });
    await started;
    run.unsubscribe();
    await new Promise((resolve) => setTimeout(resolve, 10 + 2 * writeDelayMs));
    return { store, executor, keys };
  }

  it("keys a call without a toolCallId by its run, turn and place (idempotencyKeyOf); one with an id by its run, turn and id", async () => {
    const keys: string[] = [];
    const record = tool(async ({ n }: { n: number }, config) => (keys.push(getIdempotencyKey(config) ?? "none"), String(n)), { name: "record", description: "Records.", schema: z.object({ n: z.number() }) });
    let turn = 0;
    const agent = RunnableLambda.from(async (): Promise<AgentAction[] | { returnValues: { output: string }; log: string }> => {
      turn++;
      if (turn === 1) return [0, 1].map((n) => ({ tool: "record", toolInput: { n }, log: "" }));
      if (turn === 2) return [{ tool: "record", toolInput: { n: 2 }, log: "", toolCallId: "call-x" } as AgentAction];
      return { returnValues: { output: "done" }, log: "" };
    });
    await new AgentExecutor({ agent, tools: [record] }).invoke({ input: "x" }, { runId: "keyed" });
    expect(keys).toEqual([idempotencyKeyOf("keyed", 0, 0), idempotencyKeyOf("keyed", 0, 1), "keyed:1:call-x"]);
  });

  it("retries a call in doubt by default, with the same idempotency key", async () => {
    const { executor, keys } = await cancelledMidTool();
    const result = await executor.resume("pay");
    expect(result.output).toBe("then: charged");
    expect(keys).toEqual(["pay:0:pay-1", "pay:0:pay-1"]);
  });

  it('with inDoubt "interrupt" pauses for a person, who can supply the result: the tool does not run again', async () => {
    const { executor, keys } = await cancelledMidTool({ inDoubt: "interrupt" });
    const paused = await executor.resume("pay");
    expect(paused.stopReason ?? "interrupted").toBe("interrupted");
    expect(paused.interrupts).toEqual([{ id: "call-0-0", toolCallId: "pay-1", tool: "charge", toolInput: { cents: 5 }, iteration: 0, index: 0, reason: "in_doubt" }]);
    const events = await collect(executor.resume("pay", { decisions: { "call-0-0": { type: "result", observation: "already charged" } } }));
    expect(events.at(-1)).toMatchObject({ type: "output", output: "then: already charged", stopReason: "finish" });
    expect(keys).toHaveLength(1);
  });

  it('with "fail" (here the tool\'s own policy over the executor\'s "retry") fails the run, naming the call', async () => {
    const { executor, keys } = await cancelledMidTool({ inDoubt: "retry", toolPolicy: "fail" });
    const error = await executor.resume("pay").then(() => undefined, (e: unknown) => e);
    expect(InDoubtToolCallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ tool: "charge", iteration: 0, index: 0, runId: "pay" });
    expect(keys).toHaveLength(1);
  });

  it('with "fail", the record says failed by the time the caller sees the error, on a store whose writes take a while', async () => {
    const { executor, store, keys } = await cancelledMidTool({ toolPolicy: "fail", writeDelayMs: 40 });
    const error = await executor.resume("pay").then(() => undefined, (e: unknown) => e);
    expect(InDoubtToolCallError.isInstance(error)).toBe(true);
    expect((await store.getRun("pay"))?.status).toBe("failed");
    expect((await store.getRun("pay"))?.error).toMatch(/InDoubtToolCallError/);
    expect(keys).toHaveLength(1);
  });

  it("refuses a decision that is too large or cannot be written as JSON, and runs nothing", async () => {
    const { executor, keys } = await cancelledMidTool({ inDoubt: "interrupt" });
    await executor.resume("pay");
    await expect(executor.resume("pay", { decisions: { "call-0-0": { type: "result", observation: "x".repeat(1_000_001) } } })).rejects.toThrow(/at most 1000000 are accepted/);
    const deep: Record<string, unknown> = {};
    let node = deep;
    for (let i = 0; i < 20_000; i++) node = (node["a"] = {}) as Record<string, unknown>;
    await expect(executor.resume("pay", { decisions: { "call-0-0": { type: "edit", toolInput: deep } } })).rejects.toThrow(/cannot be written as JSON|does not fit/);
    expect(keys).toHaveLength(1);
  });
});

describe("fork", () => {
  function weatherRun(store: MemoryRunStore) {
    const calls: string[] = [];
    const asked: string[][] = [];
    const weather = tool(
      async ({ city }: { city: string }) => {
        calls.push(city);
        return city === "Paris" ? "sunny" : "rain";
      },
      { name: "weather", description: "Weather.", schema: z.object({ city: z.string() }) },
    );
    const agent = RunnableLambda.from((input: { input: string; steps: AgentStep[] }) => {
      asked.push(input.steps.map((step) => String(step.observation)));
      const cities = input.input.split(",");
      const next = cities[input.steps.length];
      if (next !== undefined) return { tool: "weather", toolInput: { city: next }, log: "", toolCallId: `w${input.steps.length}` } as AgentAction;
      return { returnValues: { output: input.steps.map((step) => step.observation).join("+") }, log: "" };
    });
    return { executor: new AgentExecutor({ agent, tools: [weather], store }), calls, asked };
  }

  it("copies the recorded turns without running them, changes the last observation, and goes on live", async () => {
    const store = new MemoryRunStore();
    const { executor, calls, asked } = weatherRun(store);
    const first = await executor.invoke({ input: "Paris,Rome" }, { runId: "src" });
    expect(first.output).toBe("sunny+rain");
    calls.length = 0;
    asked.length = 0;
    const events = await collect(executor.fork("src", { at: 1, edit: { observation: "snow" }, runId: "fork" }));
    expect(events[0]).toMatchObject({ type: "start", runId: "fork", resumed: true, forkOf: { runId: "src", iteration: 1 } });
    expect(events.at(-1)).toMatchObject({ type: "output", output: "snow+rain", runId: "fork" });
    expect(calls).toEqual(["Rome"]); // Paris's call was copied, not run again
    expect(asked[0]).toEqual(["snow"]);
    const recorded = await store.readEvents("fork");
    expect(recorded[0]?.data).toMatchObject({ type: "start", runId: "fork", forkOf: { runId: "src", iteration: 1 }, inputs: { input: "Paris,Rome" } });
    expect((await store.readEvents("src")).some((event) => JSON.stringify(event.data).includes("snow"))).toBe(false);
  });

  it("forks at every complete turn by default, at 0 with new inputs, and refuses a cut that is no turn boundary", async () => {
    const store = new MemoryRunStore();
    const { executor, calls } = weatherRun(store);
    await executor.invoke({ input: "Paris,Rome" }, { runId: "src" });
    calls.length = 0;
    const whole = await executor.fork("src", { runId: "f1" });
    expect(whole.output).toBe("sunny+rain");
    expect(calls).toEqual([]);
    const fresh = await executor.fork("src", { at: 0, inputs: { input: "Rome" }, runId: "f2" });
    expect(fresh.output).toBe("rain");
    await expect(executor.fork("src", { at: 7, runId: "f3" })).rejects.toThrow(/no complete turn boundary at iteration 7/);
    expect(() => executor.fork("src", { at: -1 })).toThrow(/`at` must be an integer >= 0/);
  });
});

describe("a fork whose copy cannot be written", () => {
  async function forkWith(failDelete: boolean) {
    const inner = new MemoryRunStore();
    const agent = RunnableLambda.from((input: { steps: AgentStep[] }) =>
      input.steps.length === 0 ? ({ tool: "echo", toolInput: { text: "hi" }, log: "", toolCallId: "c1" } as AgentAction) : { returnValues: { output: "done" }, log: "" },
    );
    const echo = tool(async ({ text }: { text: string }) => text, { name: "echo", description: "Echoes.", schema: z.object({ text: z.string() }) });
    await new AgentExecutor({ agent, tools: [echo], store: inner }).invoke({ input: "x" }, { runId: "src" });
    const store = delegate(inner);
    store.write = async (runId, write) => {
      if (runId === "fork") throw new Error("disk full");
      return inner.write(runId, write);
    };
    if (failDelete) store.deleteRun = async () => Promise.reject(new Error("connection lost"));
    const error = await new AgentExecutor({ agent, tools: [echo], store }).fork("src", { runId: "fork" }).then(() => undefined, (caught: unknown) => caught);
    return { inner, error };
  }

  it("fails with the write's error and leaves no run behind (the run it created is deleted)", async () => {
    const { inner, error } = await forkWith(false);
    expect((error as Error).message).toMatch(/disk full/);
    expect(await inner.getRun("fork")).toBeUndefined();
    expect((await inner.listRuns()).map((run) => run.runId)).toEqual(["src"]);
  });

  it("says which run is left behind when deleting it fails too", async () => {
    const { inner, error } = await forkWith(true);
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      'AgentExecutor.fork: writing the copy of run "src" to its fork "fork" failed (disk full), and deleting the fork\'s empty run failed too (connection lost); it is left behind with status "running": delete it with store.deleteRun("fork").',
    );
    expect(((error as Error).cause as Error).message).toBe("disk full");
    expect((await inner.getRun("fork"))?.status).toBe("running");
  });
});

describe("fork with a tool-calling agent on a model started afresh (as in another process)", () => {
  it("sends each live turn's model message, even when the new model's ids repeat the recorded ones", async () => {
    const store = new MemoryRunStore();
    const weather = tool(async ({ city }: { city: string }) => `weather in ${city}`, { name: "weather", description: "Weather.", schema: z.object({ city: z.string() }) });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const script = () => new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "weather", args: { city: "Paris" } }] }, { toolCalls: [{ name: "weather", args: { city: "Rome" } }] }, "done"] });
    const executorOf = (llm: ScriptedChatModel) => new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [weather], prompt }), tools: [weather], store });
    await executorOf(script()).invoke({ input: "Paris, then Rome" }, { runId: "src" });
    // A fresh model numbers its ids from 0 again: call_0_0 and scripted-0, as the recorded first turn's.
    const fresh = script();
    expect((await executorOf(fresh).fork("src", { at: 1, runId: "fork" })).output).toBe("done");
    const sent = (fresh.calls as ScriptedCall[]).map((call) => call.messages.map((message) => message.getType()));
    expect(sent).toEqual([
      ["human", "ai", "tool"],
      ["human", "ai", "tool", "ai", "tool"],
      ["human", "ai", "tool", "ai", "tool", "ai", "tool"],
    ]);
  });
});

describe("smaller defects", () => {
  it("a rejection in one turn does not stop a later returnDirect turn from returning directly", async () => {
    const store = new MemoryRunStore();
    const risky = withApproval(tool(async () => "done", { name: "risky", description: "Risky.", schema: z.object({}) }));
    const lookup = tool(async () => "the answer", { name: "lookup", description: "Looks up.", schema: z.object({}), returnDirect: true });
    const agent = RunnableLambda.from((input: { steps: AgentStep[] }) =>
      input.steps.length === 0 ? ({ tool: "risky", toolInput: {}, log: "", toolCallId: "r1" } as AgentAction) : ({ tool: "lookup", toolInput: {}, log: "", toolCallId: "l1" } as AgentAction),
    );
    const executor = new AgentExecutor({ agent, tools: [risky, lookup], store });
    await executor.invoke({ input: "x" }, { runId: "r" });
    const result = await executor.resume("r", { decisions: { "call-0-0": { type: "reject" } } });
    expect(result.output).toBe("the answer");
  });

  it("a tool that throws a revoked Proxy gives an observation, not a failed run", async () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const bad = tool(
      async () => {
        throw proxy;
      },
      { name: "bad", description: "Throws.", schema: z.object({}) },
    );
    const agent = RunnableLambda.from((input: { steps: AgentStep[] }) =>
      input.steps.length === 0 ? ({ tool: "bad", toolInput: {}, log: "" } as AgentAction) : { returnValues: { output: String(input.steps[0]?.observation) }, log: "" },
    );
    const result = await new AgentExecutor({ agent, tools: [bad] }).invoke({ input: "x" });
    expect(result.output).toMatch(/^Tool "bad" failed with error: /);
  });
});

describe("sub-runs in the record", () => {
  it("records an asTool sub-run's events and usage in the caller's record, without touching the caller's own turns", async () => {
    const store = new MemoryRunStore();
    const note = tool(async ({ topic }: { topic: string }) => `notes on ${topic}`, { name: "note", description: "Notes.", schema: z.object({ topic: z.string() }) });
    const inner = new AgentExecutor({
      agent: RunnableLambda.from((input: { input: string; steps: AgentStep[] }) =>
        input.steps.length === 0 ? ({ tool: "note", toolInput: { topic: input.input }, log: "" } as AgentAction) : { returnValues: { output: String(input.steps[0]?.observation) }, log: "" },
      ),
      tools: [note],
    });
    const researcher = inner.asTool({ name: "researcher", description: "Researches." });
    const outer = new AgentExecutor({
      agent: RunnableLambda.from((input: { steps: AgentStep[] }) =>
        input.steps.length === 0 ? ({ tool: "researcher", toolInput: { input: "tides" }, log: "", toolCallId: "r1" } as AgentAction) : { returnValues: { output: `found: ${input.steps[0]?.observation}` }, log: "" },
      ),
      tools: [researcher],
      store,
      returnIntermediateSteps: true,
    });
    const result = await outer.invoke({ input: "go" }, { runId: "parent" });
    expect(result.output).toBe("found: notes on tides");
    const replayed = await collect(replayRun(store, "parent"));
    const sub = replayed.filter((event) => event.subRun !== undefined);
    expect(sub.map((event) => event.type)).toEqual(["start", "action", "step", "output"]);
    expect(sub.every((event) => event.subRun?.join(">") === "researcher")).toBe(true);
    expect(sub.at(-1)).toMatchObject({ type: "output", output: "notes on tides" });
    expect(replayed.at(-1)).toMatchObject({ type: "output", output: "found: notes on tides" });
    expect(replayed.at(-1)?.subRun).toBeUndefined();
    const restored = restoreRunState((await store.getRun("parent"))!, await store.readEvents("parent"));
    expect(restored.state.steps).toEqual(result.intermediateSteps);
    expect(restored.output?.output).toBe("found: notes on tides");
  });
});

describe("a tool input nested too deeply to record", () => {
  const nested = (depth: number): unknown => {
    let value: unknown = "x";
    for (let i = 0; i < depth; i++) value = { a: value };
    return value;
  };
  const search = tool(async () => "ok", { name: "search", description: "Searches.", schema: z.object({ query: z.any() }) });
  const depthOf = (value: unknown): number => {
    let depth = 0;
    for (let current = value; typeof current === "object" && current !== null; current = (current as { a?: unknown }).a) depth++;
    return depth;
  };

  it("from a custom agent: the run emits what it emits without a store, and the record keeps the input up to MAX_RECORDED_DEPTH", async () => {
    const run = async (store?: MemoryRunStore) => {
      let calls = 0;
      const agent = RunnableLambda.from(async () => (calls++ === 0 ? { tool: "search", toolInput: { query: nested(50_000) }, log: "", toolCallId: "c1" } : { returnValues: { output: "done" }, log: "" }));
      const executor = new AgentExecutor({ agent, tools: [search], returnIntermediateSteps: true, ...(store ? { store } : {}) });
      const result = await executor.invoke({ input: "x" }, { runId: "deep" });
      return { output: result.output, observations: result.intermediateSteps?.map((step) => step.observation) };
    };
    const store = new MemoryRunStore();
    expect(await run(store)).toEqual(await run());
    expect((await store.getRun("deep"))?.status).toBe("finished");
    const events = await store.readEvents("deep");
    expect(events.map((event) => event.type)).toEqual(["start", "action", "step", "output"]);
    const query = ((events[1]?.data["action"] as { toolInput: { query: unknown } }).toolInput).query;
    expect(depthOf(query)).toBe(98); // toolInput is level 1 of `action.toolInput`, query level 2
    expect(JSON.stringify(query)).toContain("nested more than 100 levels deep: left out of the run record");
    expect(JSON.stringify(query)).toContain("[action.toolInput.query.a.a.");
    // The record reads back (a resume of the finished run answers its output).
    const executor = new AgentExecutor({ agent: RunnableLambda.from(async () => ({ returnValues: { output: "again" }, log: "" })), tools: [search], store });
    expect((await executor.resume("deep")).output).toBe("done");
  });

  it("from a model (tool-calling agent): the call gets its observation as without a store, and a resume of the record goes on", async () => {
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const executorWith = (responses: ScriptedResponse[], store?: MemoryRunStore) => {
      const llm = new ScriptedChatModel({ responses });
      const agent = createToolCallingAgent({ llm, tools: [search], prompt });
      return new AgentExecutor({ agent, tools: [search], returnIntermediateSteps: true, ...(store ? { store } : {}) });
    };
    const deepCall: ScriptedResponse = { toolCalls: [{ name: "search", args: { query: nested(50_000) } }] };
    const plain = await executorWith([deepCall, "Sunny"]).invoke({ input: "x" });
    const store = new MemoryRunStore();
    const recorded = await executorWith([deepCall, "Sunny"], store).invoke({ input: "x" }, { runId: "deep" });
    expect(recorded.output).toBe("Sunny");
    expect(recorded.intermediateSteps?.map((step) => step.observation)).toEqual(plain.intermediateSteps?.map((step) => step.observation));
    expect(String(recorded.intermediateSteps?.[0]?.observation)).toContain("nested more than 100 levels deep");
    expect((await store.getRun("deep"))?.status).toBe("finished");

    // A run that stops after the deep call's step (its second model call fails) resumes from its record.
    const broken = new MemoryRunStore();
    await expect(executorWith([deepCall], broken).invoke({ input: "x" }, { runId: "cut" })).rejects.toThrow();
    expect((await broken.readEvents("cut")).map((event) => event.type)).toContain("step");
    const resumed = await executorWith(["Sunny"], broken).resume("cut");
    expect(resumed.output).toBe("Sunny");
    expect(String(resumed.intermediateSteps?.[0]?.observation)).toContain("nested more than 100 levels deep");
  });
});

describe("a call in doubt whose input the record does not hold all of", () => {
  /**
   * A run of `tool` (named `name`) called once with input nested 50,000 levels deep, whose process
   * died after the call was recorded as started (its action), before its result; then resumed.
   * The agent answers with `answer` of the step's observation.
   */
  async function resumedAfterDeepCall(name: string, returnDirect: boolean, answer: (observation: string) => string) {
    let value: unknown = "x";
    for (let i = 0; i < 50_000; i++) value = { a: value };
    const seen: unknown[] = [];
    const called = tool(async (input) => (seen.push(input), "ok"), { name, description: "Does it.", schema: z.object({ query: z.any() }), returnDirect });
    const agent = RunnableLambda.from(async (input: { steps: AgentStep[] }) =>
      input.steps.length === 0 ? { tool: name, toolInput: { query: value }, log: "", toolCallId: "c1" } : { returnValues: { output: answer(String(input.steps[0]?.observation)) }, log: "" },
    );
    const source = new MemoryRunStore();
    await new AgentExecutor({ agent, tools: [called], store: source }).invoke({ input: "x" }, { runId: "src" });
    const [start, action] = await source.readEvents("src");
    const store = new MemoryRunStore();
    await store.createRun({ runId: "cut", inputs: { input: "x" }, status: "running", owner: "o", leaseMs: 1, at: 0 });
    await store.write("cut", { owner: "o", leaseMs: 1, epoch: 1, at: 0, events: [start as StoredRunEvent, action as StoredRunEvent], update: { checkpoint: { schemaVersion: 1, iteration: 1, elapsedMs: 0, phase: "tools" } } });
    await new Promise((resolve) => setTimeout(resolve, 5)); // the lease ran out
    seen.length = 0;
    const result = await new AgentExecutor({ agent, tools: [called], store }).resume("cut");
    return { result, seen, store };
  }

  it("is not run again on resume: it gets an observation naming the left-out part, and the run goes on", async () => {
    const { result, seen, store } = await resumedAfterDeepCall("search", false, (observation) => observation);
    expect(seen).toEqual([]);
    expect(result.output).toContain('The call to tool "search" could not run again on resume');
    expect(result.output).toContain("[action.toolInput.query.a.a.");
    expect((await store.getRun("cut"))?.status).toBe("finished");
  });

  it("goes back to the model even when its tool is returnDirect: the observation is no answer for the user", async () => {
    const { result, seen } = await resumedAfterDeepCall("send", true, (observation) => `model saw: ${observation}`);
    expect(seen).toEqual([]);
    expect(result.stopReason).toBe("finish");
    expect(result.output).toMatch(/^model saw: The call to tool "send" could not run again on resume/);
  });
});
