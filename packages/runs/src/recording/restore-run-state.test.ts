import type { AgentAction } from "@agentrx/core";
import { AgentExecutor, restoreRunState } from "@agentrx/executors";
import { OutputParserException } from "@langchain/core/output_parsers";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryRunStore } from "../memory/index";

const echo = tool(async ({ text }: { text: string }) => text, { name: "echo", description: "Echo.", schema: z.object({ text: z.string() }) });
const act = (text: string): AgentAction => ({ tool: "echo", toolInput: { text }, log: `echo ${text}` });

describe("restoreRunState", () => {
  it("rebuilds steps (parsing errors included, in order), iterations and the recorded output", async () => {
    const store = new MemoryRunStore();
    let calls = 0;
    const agent = RunnableLambda.from(() => {
      calls++;
      if (calls === 1) return [act("one"), act("two")];
      if (calls === 2) throw new OutputParserException("bad output", "gibberish");
      if (calls === 3) return act("three");
      return { returnValues: { output: "done" }, log: "" };
    });
    const executor = new AgentExecutor({ agent, tools: [echo], store, handleParsingErrors: true, returnIntermediateSteps: true });
    const result = await lastValueFrom(executor.invoke({ input: "go" }, { runId: "r" }));

    const info = await store.getRun("r");
    const restored = restoreRunState(info!, await store.readEvents("r"));
    expect(restored.state.steps.map((step) => step.observation)).toEqual(result.intermediateSteps?.map((step) => step.observation));
    expect(restored.state.steps.map((step) => step.action.tool)).toEqual(["echo", "echo", "_Exception", "echo"]);
    expect(restored.state.iteration).toBe(4); // four agent calls, the one that answered included (as the live run counts)
    expect(restored.state.turn).toBeUndefined();
    expect(restored.output).toMatchObject({ type: "output", output: "done", runId: "r" });
    expect(restored.output?.intermediateSteps?.map((step) => step.observation)).toEqual(["one", "two", "Invalid or incomplete response", "three"]);
    expect(restored.lastSeq).toBe(info?.eventCount);
  });

  it("gives back the last turn's actions with the results recorded so far", async () => {
    const store = new MemoryRunStore();
    const slow = tool(
      async ({ text }: { text: string }, config) =>
        text === "fast" ? text : new Promise<string>((_, reject) => config?.signal?.addEventListener("abort", () => reject(new Error("aborted")))),
      { name: "echo", description: "Echo.", schema: z.object({ text: z.string() }) },
    );
    const agent = RunnableLambda.from(() => [act("slow"), act("fast")]);
    const executor = new AgentExecutor({ agent, tools: [slow], store });
    const subscription = executor.stream({ input: "go" }, { runId: "r" }).subscribe((event) => {
      if (event.type === "step") setTimeout(() => subscription.unsubscribe(), 0);
    });
    while ((await store.getRun("r"))?.status !== "cancelled") await new Promise((resolve) => setTimeout(resolve, 5));

    const restored = restoreRunState((await store.getRun("r"))!, await store.readEvents("r"));
    expect(restored.output).toBeUndefined();
    expect(restored.state.phase).toBe("tools");
    expect(restored.state.turn?.actions.map((a) => a.toolInput)).toEqual([{ text: "slow" }, { text: "fast" }]);
    expect(restored.state.turn?.results.map((step) => step?.observation)).toEqual([undefined, "fast"]);
    expect(restored.state.steps).toEqual([]);
    expect(restored.state.iteration).toBe(1);
  });

  it("names the run and the event when a record cannot be read", () => {
    const info = { runId: "r", status: "running" as const, inputs: {}, createdAt: 0, updatedAt: 0, eventCount: 1 };
    expect(() => restoreRunState(info, [{ seq: 1, type: "step", at: 0, data: { type: "step", iteration: 0, index: 3, observation: "x" } }])).toThrow(
      /resume: event 1 of run "r" is corrupt: it cannot be read: step 1 refers to action 3 of iteration 0/,
    );
  });
});
