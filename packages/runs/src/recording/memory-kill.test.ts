// The conversation memory under SIGKILL: a run's answer is in its record before its thread gets
// the run's messages, and a resume of a run whose process died in between appends them, once,
// with the recorded answer; no model call is made again (docs/memory.md).
import type { RunStore } from "@agentrx/executors";
import { expect, it } from "vitest";
import { type ChildArgs, type KillCases, type KillSetup, describeKillTests, modelCalls, run, start } from "./durable-kill-harness";

const id = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 8)}`;

const ANSWER = "j0 ok, j1 ok; told: nothing";

/** The thread's messages: run, type and text, in order. */
async function thread(store: RunStore, threadId: string): Promise<{ runId?: string; type: unknown; text: unknown }[]> {
  return (await store.readThreadMessages(threadId)).map(({ runId, message }) => {
    const { type, data } = message as { type: string; data: { content: unknown } };
    return { ...(runId === undefined ? {} : { runId }), type, text: data.content };
  });
}

/** The run's exchange, as the thread should hold it once: the input, both turns and the answer. */
function exchange(runId: string) {
  return [
    { runId, type: "human", text: "Two jobs, please." },
    { runId, type: "ai", text: "" },
    { runId, type: "tool", text: "j0 ok" },
    { runId, type: "ai", text: "" },
    { runId, type: "tool", text: "j1 ok" },
    { runId, type: "ai", text: ANSWER },
  ];
}

function killedAround(point: "memory-append" | "memory-appended", setup: () => KillSetup): void {
  const when = point === "memory-append" ? "before the thread had the run's messages" : "after the thread had them, before the run's end was written";
  it(`killed ${when}: the answer was recorded first; the resume gives the thread the run's messages once, with that answer, and calls no model`, async () => {
    const { store, target, dir } = setup();
    const runId = id("mem");
    const threadId = id("thread");
    const base: Omit<ChildArgs, "mode" | "label"> = { store: target, runId, dir, threadId };
    const a = `${runId}-a`;
    const running = start({ ...base, mode: "run", label: a, blocks: [point] });
    try {
      const reached = await running.reached(point);
      if (point === "memory-append") expect(reached).toEqual({ append: threadId, output: true }); // write-ahead: the answer first
      expect((await store.readEvents(runId)).filter((event) => event.type === "output")).toHaveLength(1);
      expect((await store.getRun(runId))?.status).toBe("running");
    } finally {
      await running.kill();
    }
    expect(await thread(store, threadId)).toEqual(point === "memory-append" ? [] : exchange(runId));

    const b = `${runId}-b`;
    expect(await run({ ...base, mode: "resume", label: b })).toMatchObject({ output: ANSWER, stopReason: "finish" });
    expect(modelCalls(dir, b)).toEqual([]);
    expect(await thread(store, threadId)).toEqual(exchange(runId));
    expect((await store.getRun(runId))?.status).toBe("finished");
    // Resumed again, the finished run gives its answer and adds nothing.
    expect(await run({ ...base, mode: "resume", label: `${runId}-c` })).toMatchObject({ output: ANSWER });
    expect(await thread(store, threadId)).toEqual(exchange(runId));
  }, 60_000);
}

const cases: KillCases = [(setup) => killedAround("memory-append", setup), (setup) => killedAround("memory-appended", setup)];
await describeKillTests("the conversation memory of a run whose process is killed", { sqlite: cases, postgres: cases });
