import { AgentExecutor } from "@agentrx/executors";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { latch } from "@agentrx/core/testing";
import { act, collect, deferred, finish, scriptedAgent } from "./test-helpers";


/** A tool that counts how many of its calls run at once (`counts.peak`, the most). */
function busyTool() {
  const counts = { running: 0, peak: 0 };
  const busy = tool(
    async () => {
      counts.running++;
      counts.peak = Math.max(counts.peak, counts.running);
      await new Promise((resolve) => setImmediate(resolve));
      counts.running--;
      return "ok";
    },
    { name: "busy", description: "b", schema: z.object({}) },
  );
  return { busy, counts };
}

describe("AgentExecutor parallel tools", () => {
  it("runs the tool calls of one turn concurrently (both reach a shared latch)", async () => {
    const both = latch(2);
    const meet = tool(
      async ({ id }: { id: string }) => {
        await both.arrive();
        return `met ${id}`;
      },
      { name: "meet", description: "m", schema: z.object({ id: z.string() }) },
    );
    const { agent } = scriptedAgent([[act("meet", { id: "a" }), act("meet", { id: "b" })], finish("done")]);
    // Sequential tools would deadlock here: the first would wait forever for the second.
    const [result] = await collect(new AgentExecutor({ agent, tools: [meet], returnIntermediateSteps: true }).invoke({ input: "go" }));
    expect(result?.intermediateSteps?.map((step) => step.observation)).toEqual(["met a", "met b"]);
  });

  it("keeps steps in action order while step events come in completion order", async () => {
    const gates = { slow: deferred(), fast: deferred() };
    const started: string[] = [];
    const wait = tool(
      async ({ id }: { id: "slow" | "fast" }) => {
        started.push(id);
        if (started.length === 2) gates.fast.resolve();
        await gates[id].promise;
        if (id === "fast") gates.slow.resolve();
        return id;
      },
      { name: "wait", description: "w", schema: z.object({ id: z.enum(["slow", "fast"]) }) },
    );
    const { agent, inputs } = scriptedAgent([[act("wait", { id: "slow" }), act("wait", { id: "fast" })], finish("done")]);
    const events = await collect(new AgentExecutor({ agent, tools: [wait] }).stream({ input: "go" }));
    const stepOrder = events.flatMap((event) => (event.type === "step" ? [event.step.observation] : []));
    expect(stepOrder).toEqual(["fast", "slow"]);
    expect(inputs[1]?.steps.map((step) => step.observation)).toEqual(["slow", "fast"]);
    const actionOrder = events.flatMap((event) => (event.type === "action" ? [event.action.toolInput] : []));
    expect(actionOrder).toEqual([{ id: "slow" }, { id: "fast" }]);
  });

  it("runs at most maxConcurrency tool calls at once", async () => {
    const { busy, counts } = busyTool();
    const turn = Array.from({ length: 5 }, () => act("busy"));
    const { agent } = scriptedAgent([turn, finish("done")]);
    const [result] = await collect(
      new AgentExecutor({ agent, tools: [busy], maxConcurrency: 2, returnIntermediateSteps: true }).invoke({ input: "go" }),
    );
    expect(counts.peak).toBe(2);
    expect(result?.intermediateSteps).toHaveLength(5);
  });

  it("a call's maxConcurrency lowers the executor's for its run (the lower holds), and a bad one names the option", async () => {
    const { busy, counts } = busyTool();
    const turn = Array.from({ length: 5 }, () => act("busy"));
    const peakOf = async (executorCap: number | undefined, callCap: number | undefined) => {
      counts.peak = 0;
      const { agent } = scriptedAgent([turn, finish("done")]);
      const executor = new AgentExecutor({ agent, tools: [busy], ...(executorCap === undefined ? {} : { maxConcurrency: executorCap }) });
      await collect(executor.invoke({ input: "go" }, callCap === undefined ? undefined : { maxConcurrency: callCap }));
      return counts.peak;
    };
    expect(await peakOf(undefined, 1)).toBe(1);
    expect(await peakOf(undefined, 3)).toBe(3);
    expect(await peakOf(2, 4)).toBe(2);
    expect(await peakOf(3, 2)).toBe(2);
    expect(await peakOf(undefined, Number.POSITIVE_INFINITY)).toBe(5);
    const { agent } = scriptedAgent([finish("done")]);
    await expect(collect(new AgentExecutor({ agent, tools: [busy] }).invoke({ input: "go" }, { maxConcurrency: 0 }))).rejects.toThrow(
      "AgentExecutor: `maxConcurrency` must be an integer >= 1 or Infinity (how many of a turn's tool calls run at once), got 0.",
    );
  });

  it("fails the run and aborts the sibling tools when a tool throws with handleToolRuntimeErrors: false", async () => {
    const siblingAborted = deferred<unknown>();
    const started = latch(2);
    const hang = tool(
      async (_input: Record<string, never>, config) => {
        config.signal?.addEventListener("abort", () => siblingAborted.resolve(config.signal?.reason));
        await started.arrive();
        return new Promise<string>(() => undefined);
      },
      { name: "hang", description: "h", schema: z.object({}) },
    );
    const boom = tool(
      async () => {
        await started.arrive();
        throw new Error("kaboom");
      },
      { name: "boom", description: "b", schema: z.object({}) },
    );
    const { agent, inputs } = scriptedAgent([[act("hang"), act("boom")], finish("never")]);
    const executor = new AgentExecutor({ agent, tools: [hang, boom], handleToolRuntimeErrors: false });
    await expect(collect(executor.invoke({ input: "go" }))).rejects.toThrow("kaboom");
    expect(await siblingAborted.promise).toBeInstanceOf(Error);
    expect(inputs).toHaveLength(1);
  });
});
