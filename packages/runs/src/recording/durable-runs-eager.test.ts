import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentStep, type InDoubtPolicy, getIdempotencyKey } from "@agentrx/core";
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel, type ScriptedCall, deferred } from "@agentrx/core/testing";
import { AgentExecutor, InDoubtToolCallError, type RunStore, restoreRunState } from "@agentrx/executors";
import { withApproval, withInDoubt } from "@agentrx/tools";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { DynamicTool, tool } from "@langchain/core/tools";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryRunStore } from "../memory/index";
import { SqliteRunStore } from "../sqlite/index";

// Calls in doubt (docs/runs.md): an early tool call (`eagerTools`) recorded as started
// (`tool_intent`) whose turn never was, because the run died while the model still streamed.

const dir = mkdtempSync(join(tmpdir(), "agentrx-eager-doubt-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stores: [string, () => RunStore][] = [
  ["memory", () => new MemoryRunStore()],
  ["sqlite", () => new SqliteRunStore({ path: join(dir, `runs-${Math.random().toString(36).slice(2)}.db`) })],
];

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);

/**
 * A run cancelled while its model streams two charges, after the first started early and before
 * the model's answer (its turn) was recorded: the record is `start, tool_intent`. Returns an
 * executor (on a model started afresh, as in another process) to resume it with.
 */
async function crashedMidStream(store: RunStore, policy: { inDoubt?: InDoubtPolicy; tool?: InDoubtPolicy; withoutIds?: boolean } = {}) {
  const keys: string[] = [];
  const started = deferred<void>();
  const charge = tool(
    async (_input: { cents: number }, config) => {
      keys.push(getIdempotencyKey(config) ?? "none");
      started.resolve();
      if (keys.length === 1) await new Promise((_, reject) => config?.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
      return "charged";
    },
    { name: "charge", description: "Charges.", schema: z.object({ cents: z.number() }) },
  );
  const tools = [policy.tool ? withInDoubt(charge, policy.tool) : charge];
  const executorOf = (llm: ScriptedChatModel) =>
    new AgentExecutor({ agent: createToolCallingAgent({ llm, tools, prompt }), tools, store, eagerTools: true, ...(policy.inDoubt ? { inDoubt: policy.inDoubt } : {}) });
  const id = policy.withoutIds ? { id: "" } : {};
  const first = new ScriptedChatModel({ tokenDelayMs: 30, responses: [{ toolCalls: [{ name: "charge", args: { cents: 5 }, ...id }, { name: "charge", args: { cents: 7 }, ...id }] }, "paid"] });
  const subscription = executorOf(first).stream({ input: "pay" }, { runId: "e" }).subscribe({ error: () => undefined });
  await started.promise;
  subscription.unsubscribe();
  await new Promise((resolve) => setTimeout(resolve, 20));
  const recorded = (await store.readEvents("e")).map((event) => event.type);
  // What the crash left: the early call's intent, no turn (the model's answer never came).
  expect(recorded).toEqual(["start", "tool_intent"]);
  const model = new ScriptedChatModel({ responses: ["paid"] });
  return { keys, executor: executorOf(model), model };
}

describe.each(stores)("an early call in flight when the run died (%s)", (_name, makeStore) => {
  it("keeps the key it started with when the model streamed it without an id", async () => {
    const store = makeStore();
    const { keys, executor } = await crashedMidStream(store, { withoutIds: true });
    expect((await executor.resume("e")).output).toBe("paid");
    expect(keys).toEqual(["e:0:early-0", "e:0:early-0"]);
    // The turn's recorded action carries it too: a second crash would retry under it again.
    const actions = (await store.readEvents("e")).filter((event) => event.type === "action");
    expect(actions.map((event) => (event.data as { idempotencyKey?: string }).idempotencyKey)).toEqual(["e:0:early-0"]);
  });

  it("sends a string tool's call in doubt back to the model with the object arguments it streamed", async () => {
    const store = makeStore();
    const started = deferred<void>();
    const inputs: string[] = [];
    const echo = new DynamicTool({
      name: "echo",
      description: "Echoes.",
      func: async (input: string, _runManager, config) => {
        inputs.push(input);
        started.resolve();
        if (inputs.length === 1) await new Promise((_, reject) => config?.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
        return `echo ${input}`;
      },
    });
    const executorOf = (llm: ScriptedChatModel) => new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [echo], prompt }), tools: [echo], store, eagerTools: true });
    const first = new ScriptedChatModel({ tokenDelayMs: 30, responses: [{ toolCalls: [{ name: "echo", args: { __arg1: "hi" } }, { name: "echo", args: { __arg1: "there" } }] }, "done"] });
    const subscription = executorOf(first).stream({ input: "go" }, { runId: "e" }).subscribe({ error: () => undefined });
    await started.promise;
    subscription.unsubscribe();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const model = new ScriptedChatModel({ responses: ["done"] });
    expect((await executorOf(model).resume("e")).output).toBe("done");
    expect(inputs).toEqual(["hi", "hi"]);
    const sent = (model.calls as ScriptedCall[])[0]?.messages.find((message) => message.getType() === "ai") as { tool_calls?: { args: unknown }[] } | undefined;
    expect(sent?.tool_calls?.map((call) => call.args)).toEqual([{ __arg1: "hi" }]);
  });

  it("is in doubt on resume: retried by default with the same idempotency key, before the model is asked again", async () => {
    const store = makeStore();
    const { keys, executor, model } = await crashedMidStream(store);
    const restored = restoreRunState((await store.getRun("e"))!, await store.readEvents("e"));
    expect(restored.state.earlyCalls?.actions.map((action) => action.toolInput)).toEqual([{ cents: 5 }]);
    const result = await executor.resume("e");
    expect(result.output).toBe("paid");
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]); // the same call, under the same key: not a new call
    expect(keys[0]).toMatch(/^e:/);
    // The model was asked once, after the call, and saw it as its own tool call with its result.
    const sent = (model.calls as ScriptedCall[]).map((call) => call.messages.map((message) => message.getType()));
    expect(sent).toEqual([["human", "ai", "tool"]]);
    // The record holds together: the turn made of the early call, its step, then the answer.
    const after = restoreRunState((await store.getRun("e"))!, await store.readEvents("e"));
    expect(after.state.phase).toBe("done");
    expect(after.state.steps.map((step: AgentStep) => [step.action.toolInput, step.observation])).toEqual([[{ cents: 5 }, "charged"]]);
    expect(after.state.earlyCalls).toBeUndefined();
  });

  it('with inDoubt "interrupt" pauses for a person; a supplied result means the charge never runs again', async () => {
    const store = makeStore();
    const { keys, executor, model } = await crashedMidStream(store, { inDoubt: "interrupt" });
    const paused = await executor.resume("e");
    expect(paused.stopReason).toBe("interrupted");
    expect(paused.interrupts).toEqual([{ id: "call-0-0", tool: "charge", toolInput: { cents: 5 }, iteration: 0, index: 0, reason: "in_doubt", toolCallId: expect.any(String) }]);
    expect(model.calls).toHaveLength(0);
    const result = await executor.resume("e", { decisions: { "call-0-0": { type: "result", observation: "already charged" } } });
    expect(result.output).toBe("paid");
    expect(keys).toHaveLength(1);
  });

  it('with the tool\'s own "fail" (withInDoubt) fails the run, naming the call, and runs nothing', async () => {
    const store = makeStore();
    const { keys, executor, model } = await crashedMidStream(store, { inDoubt: "retry", tool: "fail" });
    const error = await executor.resume("e").then(() => undefined, (e: unknown) => e);
    expect(InDoubtToolCallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ tool: "charge", iteration: 0, index: 0, runId: "e" });
    expect(keys).toHaveLength(1);
    expect(model.calls).toHaveLength(0);
  });
});

describe("fork and an early call without a result", () => {
  it("refuses a cut after it (the call belongs to no complete turn), and forks before it without the call", async () => {
    const store = new MemoryRunStore();
    const { keys, executor } = await crashedMidStream(store);
    // The model's text streamed so far was recorded too (recordTokens "each"): iteration 0 began.
    const info = (await store.getRun("e"))!;
    const events = await store.readEvents("e");
    await store.createRun({ runId: "src", inputs: info.inputs, status: "running", owner: "w", leaseMs: 1000, at: Date.now() });
    const token = { seq: 2, type: "token", at: Date.now(), data: { type: "token", iteration: 0, text: "Paying", at: Date.now() } };
    const copy = [{ ...events[0]!, data: { ...events[0]!.data, runId: "src" } }, token, { ...events[1]!, seq: 3 }];
    await store.write("src", { owner: "w", leaseMs: 1000, epoch: 1, events: copy, update: { status: "cancelled" }, at: Date.now() });
    await expect(executor.fork("src", { at: 1, runId: "f1" })).rejects.toThrow(/no complete turn boundary at iteration 1/);
    const fresh = await executor.fork("src", { runId: "f0" });
    expect(fresh.output).toBe("paid");
    expect((await store.readEvents("f0")).some((event) => event.type === "tool_intent")).toBe(false);
    expect(keys).toHaveLength(1); // neither fork ran the source's call
  });
});

describe("a rejection, and how its turn ends", () => {
  /** Rejects `a`, approves `b` (both returnDirect); with `crash`, the run dies while `b` runs, and is resumed. */
  async function scenario(crash: boolean): Promise<string> {
    const store = new MemoryRunStore();
    let bRuns = 0;
    const bStarted = deferred<void>();
    const a = withApproval(tool(async () => "A done", { name: "a", description: "a", schema: z.object({}), returnDirect: true }));
    const b = withApproval(
      tool(
        async (_input, config) => {
          bRuns++;
          bStarted.resolve();
          if (crash && bRuns === 1) await new Promise((_, reject) => config?.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
          return "B done";
        },
        { name: "b", description: "b", schema: z.object({}), returnDirect: true },
      ),
    );
    const agent = RunnableLambda.from((input: { steps: AgentStep[] }) =>
      input.steps.length === 0
        ? [
            { tool: "a", toolInput: {}, log: "", toolCallId: "ca" },
            { tool: "b", toolInput: {}, log: "", toolCallId: "cb" },
          ]
        : { returnValues: { output: "answered after the rejection" }, log: "" },
    );
    const executor = new AgentExecutor({ agent, tools: [a, b], store });
    await executor.invoke({ input: "x" }, { runId: "r" });
    const decisions = { "call-0-0": { type: "reject" as const }, "call-0-1": "approve" as const };
    if (!crash) return (await executor.resume("r", { decisions })).output;
    const subscription = executor.resume("r", { decisions }).subscribe({ error: () => undefined });
    await bStarted.promise;
    subscription.unsubscribe();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const restored = restoreRunState((await store.getRun("r"))!, await store.readEvents("r"));
    expect(restored.state.rejectedIn).toBe(0);
    return (await executor.resume("r")).output;
  }

  it("is the same for a resumed run as for the live one (the rejection is in the run's state)", async () => {
    const live = await scenario(false);
    expect(live).toBe("answered after the rejection");
    expect(await scenario(true)).toBe(live);
  });
});
