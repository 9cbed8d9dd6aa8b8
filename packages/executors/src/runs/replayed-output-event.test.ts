// The `output` event read back from a record (`replayRun`, and what `resume` re-emits for a run
// that ended or paused) is the live one (docs/runs.md): its `structuredOutput`, and a pause's
// `intermediateSteps` with the paused turn's finished calls.
import { MemoryRunStore, replayRun } from "@agentrx/runs";
import type { AgentAction, AgentStep } from "@agentrx/core";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentExecutor } from "../executor/agent-executor";
import type { AgentStreamEvent, OutputEvent } from "../executor/events";

/** The last event of `events`, which must be an `output` event. */
async function outputOf(events: Promise<AgentStreamEvent[]>): Promise<OutputEvent> {
  const last = (await events).at(-1);
  if (last?.type !== "output") throw new Error(`the last event is ${last?.type}, not output`);
  return last;
}

describe("the output event read back from a record", () => {
  it("carries structuredOutput, as the live one does (replayRun, and resume of a finished run)", async () => {
    const agent = RunnableLambda.from(() => ({ returnValues: { output: '{"city":"Oslo","celsius":4}' }, log: "" }));
    const store = new MemoryRunStore();
    const executor = new AgentExecutor({ agent, tools: [], store, outputSchema: z.object({ city: z.string(), celsius: z.number() }) });
    const live = await outputOf(lastValueFrom(executor.stream({ input: "go" }, { runId: "r" }).pipe(toArray())));
    expect(live.structuredOutput).toEqual({ city: "Oslo", celsius: 4 });
    const replayed = await outputOf(lastValueFrom(replayRun(store, "r").pipe(toArray())));
    expect(replayed.structuredOutput).toEqual({ city: "Oslo", celsius: 4 });
    const resumed = await outputOf(lastValueFrom(executor.resume("r").pipe(toArray())));
    expect(resumed.structuredOutput).toEqual({ city: "Oslo", celsius: 4 });
    expect((await executor.resume("r")).structuredOutput).toEqual({ city: "Oslo", celsius: 4 });
  });

  it("of a run without outputSchema has no structuredOutput", async () => {
    const agent = RunnableLambda.from(() => ({ returnValues: { output: "plain" }, log: "" }));
    const store = new MemoryRunStore();
    await new AgentExecutor({ agent, tools: [], store }).invoke({ input: "go" }, { runId: "r" });
    expect(await outputOf(lastValueFrom(replayRun(store, "r").pipe(toArray())))).not.toHaveProperty("structuredOutput");
  });

  it("of a paused parallel turn has the intermediateSteps of its finished calls, as the live one (replayRun, and resume without decisions)", async () => {
    const work = tool(async ({ n }: { n: number }) => `done ${n}`, { name: "work", description: "Works.", schema: z.object({ n: z.number() }) });
    const agent = RunnableLambda.from((input: { steps: AgentStep[] }) =>
      input.steps.length === 0 ? [1, 2, 3].map((n): AgentAction => ({ tool: "work", toolInput: { n }, log: "" })) : { returnValues: { output: "ok" }, log: "" },
    );
    const store = new MemoryRunStore();
    const executor = new AgentExecutor({ agent, tools: [work], store, returnIntermediateSteps: true, needsApproval: (action) => (action.toolInput as { n: number }).n === 3 });
    const live = await outputOf(lastValueFrom(executor.stream({ input: "go" }, { runId: "r" }).pipe(toArray())));
    expect(live.stopReason).toBe("interrupted");
    const observations = (output: OutputEvent) => output.intermediateSteps?.map((step) => step.observation);
    expect(observations(live)).toEqual(["done 1", "done 2"]);
    const replayed = await outputOf(lastValueFrom(replayRun(store, "r").pipe(toArray())));
    expect(observations(replayed)).toEqual(["done 1", "done 2"]);
    const again = await outputOf(lastValueFrom(executor.resume("r").pipe(toArray())));
    expect([again.stopReason, observations(again)]).toEqual(["interrupted", ["done 1", "done 2"]]);
    // The paused turn's steps stay pending: once it goes on, its steps come once, in call order.
    const done = await executor.resume("r", { decisions: { "call-0-2": "approve" } });
    expect(done.intermediateSteps.map((step) => step.observation)).toEqual(["done 1", "done 2", "done 3"]);
    const final = await outputOf(lastValueFrom(replayRun(store, "r").pipe(toArray())));
    expect(observations(final)).toEqual(["done 1", "done 2", "done 3"]);
  });
});
