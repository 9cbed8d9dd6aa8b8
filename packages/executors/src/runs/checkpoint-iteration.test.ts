// A run's checkpoint counts its iterations as a resume will: the agent calls whose outcome is
// recorded (docs/runs.md, Resume). A run cancelled while its model streams the answer of iteration
// i (its signal, an unsubscribe, or `cancelRun` from another process), or whose process dies then,
// shows i turns until it is resumed (what `agentrx runs`, `agentrx show`, the ui's run list and the
// trace page read), not the i + 1 the live run had counted.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentExecutorOptions, type AgentStreamEvent, type RunStore, restoreRunState } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { OutputParserException } from "@langchain/core/output_parsers";
import { RunnableLambda } from "@langchain/core/runnables";
import { describe, expect, it } from "vitest";
import { InProcessRunStore } from "./in-process-run-store";
import { ANSWER, Streaming, prompt, search, unsubscribeOnFirstToken } from "../executor/cut-stream-fixture";

/** One turn asking for `search`, then a streamed answer (slow enough to be cut). */
function twoTurns(tokenDelayMs = 5, answer = ANSWER) {
  return new Streaming({ streaming: true, tokenDelayMs, responses: [{ toolCalls: [{ name: "search", args: { query: "Paris" } }] }, answer] });
}

function executorOn(llm: ScriptedChatModel, store: RunStore, options: Partial<AgentExecutorOptions> = {}) {
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [search], prompt }), tools: [search], store, ...options });
}

/** The run's checkpoint iteration, and the iteration a resume restores from its record. */
async function counts(store: RunStore, runId: string): Promise<{ checkpoint: number | undefined; restored: number }> {
  const info = await store.getRun(runId);
  if (info === undefined) throw new Error(`run "${runId}" is not in the store`);
  return { checkpoint: info.checkpoint?.iteration, restored: restoreRunState(info, await store.readEvents(runId)).state.iteration };
}

describe("the checkpoint of a run cancelled while the model streams", () => {
  it("counts the turns whose outcome is recorded (stream, unsubscribed on iteration 1's first token)", async () => {
    const store = new InProcessRunStore();
    const executor = executorOn(twoTurns(), store);
    await unsubscribeOnFirstToken(executor, "cut", 1);
    await expect.poll(async () => (await store.getRun("cut"))?.status).toBe("cancelled");
    // Iteration 1's tokens are recorded, not its outcome: one turn, as the resume counts it.
    expect(await counts(store, "cut")).toEqual({ checkpoint: 1, restored: 1 });

    const again = new ScriptedChatModel({ streaming: true, responses: [ANSWER] });
    await expect(executorOn(again, store).resume("cut")).resolves.toMatchObject({ output: ANSWER });
    expect(await counts(store, "cut")).toEqual({ checkpoint: 2, restored: 2 });
  });

  it("the same under invoke, cancelled through its signal (nothing of iteration 1 recorded)", async () => {
    const store = new InProcessRunStore();
    const llm = twoTurns();
    const controller = new AbortController();
    llm.afterFirstChunk = (call) => void (call === 1 && controller.abort());
    const error = await executorOn(llm, store)
      .invoke({ input: "Weather in Paris?" }, { runId: "cut", signal: controller.signal })
      .catch((caught: unknown) => caught);
    expect((error as Error).name).toBe("AbortError");
    expect((await store.getRun("cut"))?.status).toBe("cancelled");
    expect(await counts(store, "cut")).toEqual({ checkpoint: 1, restored: 1 });
  });

  it("a write made while the model streams counts the same (recordTokens: each), and so does cancelRun from another process", async () => {
    const store = new MemoryRunStore();
    // A word every 50 ms for over a second: still streaming when its first tokens are written.
    const executor = executorOn(twoTurns(50, `${ANSWER} ${"More about the weather in Paris today. ".repeat(5)}`), store, { recordTokens: "each" });
    const running = new Promise<unknown>((resolve) => {
      executor.stream({ input: "Weather in Paris?" }, { runId: "cut" }).subscribe({ error: resolve, complete: () => resolve(undefined) });
    });
    // A write of iteration 1's tokens lands while its answer streams: the run could die right now.
    await expect.poll(async () => (await store.readEvents("cut")).some((event) => event.type === "token" && event.data["iteration"] === 1), { timeout: 5000 }).toBe(true);
    expect((await store.getRun("cut"))?.status).toBe("running");
    expect(await counts(store, "cut")).toEqual({ checkpoint: 1, restored: 1 });
    await store.cancelRun("cut", { reason: "stopped from the ui", at: Date.now() });
    expect((await running) as Error).toMatchObject({ name: "RunLeaseLostError" });
    expect((await store.getRun("cut"))?.status).toBe("cancelled");
    expect(await counts(store, "cut")).toEqual({ checkpoint: 1, restored: 1 });
  });
});

describe("the checkpoint's iteration is the resume's count", () => {
  it("after turns, a handled parsing error, a halt and its generate call", async () => {
    const store = new InProcessRunStore();
    let calls = 0;
    const agent = RunnableLambda.from(async (input: { steps: unknown[] }) => {
      calls++;
      if (calls === 2) throw new OutputParserException("not an answer", "raw");
      return [{ tool: "search", toolInput: { query: `q${input.steps.length}` }, log: "", toolCallId: `c${calls}` }];
    });
    const executor = new AgentExecutor({ agent, tools: [search], store, maxIterations: 3, handleParsingErrors: true });
    const result = await executor.invoke({ input: "x" }, { runId: "halted" });
    expect(result.stopReason).toBe("max_iterations");
    expect(await counts(store, "halted")).toEqual({ checkpoint: 3, restored: 3 });
  });
});

describe("the checkpoint of a run halted while the model streamed", () => {
  // Streamed a word every 40 ms, far longer than the time limit: cut off well after iteration 0 ended.
  const slowAnswer = "A long answer that streams slowly, one word after another, word by word, for well over a second, so that the time limit of the run cuts it off halfway, before the model could finish it.";

  function halting(store: RunStore) {
    const llm = new ScriptedChatModel({ streaming: true, tokenDelayMs: 40, responses: [{ toolCalls: [{ name: "search", args: { query: "Paris" } }] }, slowAnswer, "Generated after the halt."] });
    return executorOn(llm, store, { maxExecutionTime: 400, earlyStoppingMethod: "generate" });
  }

  it("counts the cut-off call once the generate call after it answered, as the resume does", async () => {
    const store = new InProcessRunStore();
    const events: AgentStreamEvent[] = [];
    await new Promise<void>((resolve, reject) => {
      halting(store).stream({ input: "Weather in Paris?" }, { runId: "halted" }).subscribe({ next: (event) => void events.push(event), error: reject, complete: resolve });
    });
    expect(events.at(-1)).toMatchObject({ type: "output", stopReason: "max_execution_time" });
    // Iteration 1 was cut off (its tokens only), the generate call is iteration 2.
    expect(events.filter((event) => event.type === "token").map((event) => (event as { iteration: number }).iteration)).toEqual(expect.arrayContaining([1, 2]));
    expect(await counts(store, "halted")).toEqual({ checkpoint: 3, restored: 3 });
  });

  it("cancelled during the generate call: the calls before it count, not the generate call", async () => {
    const store = new InProcessRunStore();
    const executor = halting(store);
    await unsubscribeOnFirstToken(executor, "halted", 2);
    await expect.poll(async () => (await store.getRun("halted"))?.status).toBe("cancelled");
    expect(await counts(store, "halted")).toEqual({ checkpoint: 2, restored: 2 });
  });
});
