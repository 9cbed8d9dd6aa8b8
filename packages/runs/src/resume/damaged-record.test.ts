// A damaged or edited record is refused by resume, fork and replay alike (RunStoreError, reason
// "corrupt", naming the event): nothing runs from it. These records each hold an event that the
// live run could never have written: a call recorded twice, a turn with a gap in its calls, an
// iteration or an index that is not a count (docs/runs.md, "A damaged record").
import type { AgentAction } from "@agentrx/core";
import { AgentExecutor, RunStoreError, type JsonObject, type StoredRunEvent } from "@agentrx/executors";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryRunStore } from "../memory/index";
import { replayRun } from "../replay/index";

function setup() {
  const store = new MemoryRunStore();
  const counts = { agent: 0, tool: 0 };
  const t = tool(async ({ q }: { q: string }) => (counts.tool++, `found ${q}`), { name: "t", description: "Looks up.", schema: z.object({ q: z.string() }) });
  // Calls `t` until it has a result, then answers.
  const agent = RunnableLambda.from((input: { steps: unknown[] }) => {
    counts.agent++;
    return input.steps.length === 0 ? ({ tool: "t", toolInput: { q: "x" }, log: "" } as AgentAction) : { returnValues: { output: "done" }, log: "" };
  });
  // Calls `t` every time: only `maxIterations` ends it (a run past 10 calls fails, so a damaged
  // record that makes `maxIterations` miss fails the test rather than running on).
  const always = RunnableLambda.from(() => {
    if (++counts.agent > 10) throw new Error("the agent was called more than 10 times");
    return { tool: "t", toolInput: { q: "x" }, log: "" } as AgentAction;
  });
  return { store, counts, tools: [t], agent, always };
}

/** A new run "d" whose record is `data`, one event each, released (cancelled, or paused) so it can be resumed. */
async function damaged(store: MemoryRunStore, data: JsonObject[], runId = "d", status: "cancelled" | "interrupted" = "cancelled"): Promise<void> {
  await store.createRun({ runId, inputs: { input: "x" }, status: "running", owner: "o", leaseMs: 1000, at: 1 });
  const events: StoredRunEvent[] = data.map((entry, i) => ({ seq: i + 1, type: String(entry["type"]), at: 1, data: entry }));
  await store.write(runId, { owner: "o", epoch: 1, leaseMs: 1000, at: 2, update: { status, release: true }, events });
}

/** The events a normal run records: the agent calls `t` once, then answers. */
async function recordedRun(store: MemoryRunStore, agent: ReturnType<typeof setup>["agent"], tools: ReturnType<typeof setup>["tools"]): Promise<JsonObject[]> {
  await new AgentExecutor({ agent, tools, store }).invoke({ input: "x" }, { runId: "source" });
  return (await store.readEvents("source")).map((event) => event.data);
}

const start: JsonObject = { type: "start", at: 1, inputs: { input: "x" } };
const action = (fields: JsonObject): JsonObject => ({ type: "action", at: 1, action: { tool: "t", toolInput: { q: "x" }, log: "" }, ...fields });
const step = (fields: JsonObject): JsonObject => ({ type: "step", at: 1, observation: "found x", durationMs: 0, ...fields });

async function refused(call: () => PromiseLike<unknown>, seq: number): Promise<RunStoreError> {
  const error = await Promise.resolve(call()).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(RunStoreError.isInstance(error), String(error)).toBe(true);
  expect(error).toMatchObject({ reason: "corrupt" });
  expect((error as Error).message).toContain(`event ${seq} of run "d" is corrupt`);
  return error as RunStoreError;
}

async function replayed(store: MemoryRunStore, runId = "d"): Promise<unknown[]> {
  const events: unknown[] = [];
  await new Promise<void>((resolve, reject) => replayRun(store, runId).subscribe({ next: (event) => events.push(event), error: reject, complete: resolve }));
  return events;
}

describe("a record whose action is recorded twice", () => {
  it("is refused by resume, fork and replay, and the tool does not run again", async () => {
    const { store, counts, tools, agent } = setup();
    const events = await recordedRun(store, agent, tools);
    expect(events.map((event) => event["type"])).toEqual(["start", "action", "step", "output"]);
    const [first, act, result] = events as [JsonObject, JsonObject, JsonObject];
    await damaged(store, [first, act, result, act]);
    counts.agent = counts.tool = 0;
    const executor = new AgentExecutor({ agent, tools, store });
    const error = await refused(() => executor.resume("d"), 4);
    expect(error.message).toMatch(/action 0 of iteration 0 .*already/);
    await refused(() => executor.fork("d", { at: 0, runId: "f" }), 4);
    await refused(() => replayed(store), 4);
    expect(counts).toEqual({ agent: 0, tool: 0 });
  });

  it("is refused when the second copy comes before the result, too", async () => {
    const { store, counts, tools, agent } = setup();
    await damaged(store, [start, action({ iteration: 0, index: 0 }), action({ iteration: 0, index: 0 })]);
    await refused(() => new AgentExecutor({ agent, tools, store }).resume("d"), 3);
    expect(counts).toEqual({ agent: 0, tool: 0 });
  });

  it("is refused when an action of an earlier, ended turn comes after a later turn", async () => {
    const { store, tools, agent } = setup();
    await damaged(store, [start, action({ iteration: 0, index: 0 }), step({ iteration: 0, index: 0 }), action({ iteration: 1, index: 0 }), step({ iteration: 1, index: 0 }), action({ iteration: 1, index: 0 })]);
    await refused(() => new AgentExecutor({ agent, tools, store }).resume("d"), 6);
  });
});

describe("a record whose action has a damaged iteration or index", () => {
  it("without an iteration is refused, rather than running until the agent stops on its own", async () => {
    const { store, counts, tools, always } = setup();
    await damaged(store, [start, action({ index: 0 })]);
    const error = await refused(() => new AgentExecutor({ agent: always, tools, store, maxIterations: 3 }).resume("d"), 2);
    expect(error.message).toContain("iteration");
    expect(counts).toEqual({ agent: 0, tool: 0 });
  });

  it.each([
    ["-1", { iteration: -1, index: 0 }],
    ["0.5", { iteration: 0.5, index: 0 }],
    ['"0"', { iteration: "0", index: 0 }],
    ["1e20", { iteration: 1e20, index: 0 }],
  ])("with the iteration %s is refused", async (_label, fields) => {
    const { store, counts, tools, always } = setup();
    await damaged(store, [start, action(fields)]);
    const error = await refused(() => new AgentExecutor({ agent: always, tools, store, maxIterations: 3 }).resume("d"), 2);
    expect(error.message).toMatch(/event 2 \(action\) has an iteration that is not a whole number from 0/);
    expect(counts).toEqual({ agent: 0, tool: 0 });
  });

  it.each([
    ["-1", -1],
    ["0.5", 0.5],
    ['"0"', "0"],
    ["1e8", 1e8],
    ["null", null],
  ])("with the index %s is refused", async (_label, index) => {
    const { store, counts, tools, always } = setup();
    await damaged(store, [start, action({ iteration: 0, index })]);
    const error = await refused(() => new AgentExecutor({ agent: always, tools, store, maxIterations: 3 }).resume("d"), 2);
    expect(error.message).toMatch(/has an index that is not a whole number from 0 up|action 100000000 of iteration 0 comes before action 0/);
    expect(counts).toEqual({ agent: 0, tool: 0 });
  });

  it("naming index 1 of a turn without index 0 is refused (a gap in the turn's calls)", async () => {
    const { store, counts, tools, always } = setup();
    await damaged(store, [start, action({ iteration: 0, index: 1 })]);
    const error = await refused(() => new AgentExecutor({ agent: always, tools, store, maxIterations: 3 }).resume("d"), 2);
    expect(error.message).toContain("action 1 of iteration 0 comes before action 0");
    await damaged(store, [start, action({ iteration: 0, index: 0 }), action({ iteration: 0, index: 2 })], "d2");
    await expect(new AgentExecutor({ agent: always, tools, store }).resume("d2")).rejects.toMatchObject({ reason: "corrupt" });
    expect(counts).toEqual({ agent: 0, tool: 0 });
  });

  it("of an iteration far ahead of the agent calls recorded is refused, rather than counting calls never made", async () => {
    const { store, counts, tools, always } = setup();
    await damaged(store, [start, action({ iteration: 0, index: 0 }), step({ iteration: 0, index: 0 }), action({ iteration: 7, index: 0 })]);
    const error = await refused(() => new AgentExecutor({ agent: always, tools, store, maxIterations: 10 }).resume("d"), 4);
    expect(error.message).toContain("an action of iteration 7 comes after 1 agent call(s)");
    expect(counts).toEqual({ agent: 0, tool: 0 });
  });

  it("an interrupt that waits for an action never recorded is refused, rather than pausing for a call that does not exist", async () => {
    const { store, counts, tools, always } = setup();
    const interrupts = [0, 3].map((index) => ({ id: `call-0-${index}`, tool: "t", toolInput: { q: "x" }, iteration: 0, index, reason: "approval" }));
    const paused: JsonObject = { type: "output", at: 1, runId: "d", output: "", returnValues: {}, messages: [], stopReason: "interrupted" };
    await damaged(store, [start, action({ iteration: 0, index: 0 }), { type: "interrupt", at: 1, runId: "d", interrupts }, paused], "d", "interrupted");
    const error = await refused(() => new AgentExecutor({ agent: always, tools, store }).resume("d", { decisions: { "call-0-0": "approve", "call-0-3": "approve" } }), 3);
    expect(error.message).toContain('the interrupt "call-0-3" waits for action 3 of iteration 0, which is not recorded');
    expect(counts).toEqual({ agent: 0, tool: 0 });
  });

  it("a step or an early call (tool_intent) with a damaged iteration or index is refused too", async () => {
    const { store, tools, always } = setup();
    const cases: JsonObject[][] = [
      [start, action({ iteration: 0, index: 0 }), step({ iteration: 0, index: 0.5 })],
      [start, action({ iteration: 0, index: 0 }), step({ index: 0 })],
      [start, { type: "token", at: 1, iteration: 0, text: "x" }, { type: "tool_intent", at: 1, action: { tool: "t", toolInput: { q: "x" }, log: "" } }],
      [start, { type: "token", at: 1, iteration: 0, text: "x" }, { type: "tool_intent", at: 1, iteration: -2, action: { tool: "t", toolInput: { q: "x" }, log: "" } }],
      [start, { type: "token", at: 1, iteration: 0, text: "x" }, { type: "token", at: 1, iteration: Number.NaN, text: "x" }],
      // (A reader that only shows a record shows a token without one; a resume, fork or replay refuses it.)
      [start, { type: "token", at: 1, iteration: 0, text: "x" }, { type: "token", at: 1, text: "x" }],
    ];
    for (const [i, record] of cases.entries()) {
      await damaged(store, JSON.parse(JSON.stringify(record)), `d${i}`);
      const error = await new AgentExecutor({ agent: always, tools, store, maxIterations: 3 }).resume(`d${i}`).catch((thrown: unknown) => thrown);
      expect(error, JSON.stringify(record[2])).toMatchObject({ reason: "corrupt" });
      expect((error as Error).message).toContain("event 3 of run");
    }
  });
});
