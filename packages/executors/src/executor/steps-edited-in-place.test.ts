// A trim function, an agent or a middleware hook that edits the step list it is given in place does
// not change the run's steps (what `intermediateSteps` returns, what the next agent call sees).
import type { AgentStep } from "@agentrx/core";
import { AgentExecutor, type AgentMiddleware, MiddlewareError } from "@agentrx/executors";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { RunnableLambda } from "@langchain/core/runnables";
import { describe, expect, it } from "vitest";
import { act, echoTool, finish } from "./test-helpers";

/** How many steps each agent call was given. */
let calls: number[] = [];

/** Calls echo once per iteration for four iterations, then answers with how many steps it was given. */
const agentOf = (edit: (steps: AgentStep[]) => void = () => undefined) =>
  RunnableLambda.from((input: { steps: AgentStep[] }) => {
    const seen = input.steps.length;
    edit(input.steps);
    return calls.push(seen) > 4 ? finish(`saw ${seen}`) : act("echo", { text: `t${calls.length}` });
  });

describe("steps edited in place by the run's user code", () => {
  it("a trim function that splices the list it is given", async () => {
    calls = [];
    const executor = new AgentExecutor({ agent: agentOf(), tools: [echoTool], returnIntermediateSteps: true, trimIntermediateSteps: (steps) => (steps.splice(0, steps.length - 1), steps) });
    const result = await executor.invoke({ input: "x" });
    expect(result.intermediateSteps?.map((step) => step.observation)).toEqual(["t1", "t2", "t3", "t4"]);
    expect(calls).toEqual([0, 1, 1, 1, 1]);
  });

  it("an agent that empties the list it is given", async () => {
    calls = [];
    const executor = new AgentExecutor({ agent: agentOf((steps) => steps.splice(0)), tools: [echoTool], returnIntermediateSteps: true });
    const result = await executor.invoke({ input: "x" });
    expect(result.intermediateSteps?.map((step) => step.observation)).toEqual(["t1", "t2", "t3", "t4"]);
    expect(calls).toEqual([0, 1, 2, 3, 4]);
  });

  it("an agent that empties the list it is given under a middleware", async () => {
    calls = [];
    const passOn: AgentMiddleware = { wrapModelCall: (request, next) => next(request) };
    const executor = new AgentExecutor({ agent: agentOf((steps) => steps.splice(0)), tools: [echoTool], middleware: [passOn], returnIntermediateSteps: true, trimIntermediateSteps: 3 });
    const result = await executor.invoke({ input: "x" });
    expect(result.intermediateSteps?.map((step) => step.observation)).toEqual(["t1", "t2", "t3", "t4"]);
    expect(calls).toEqual([0, 1, 2, 3, 3]);
  });

  it("middleware hooks that splice the steps and run steps they are given", async () => {
    calls = [];
    const seenByHooks: number[] = [];
    const splicing: AgentMiddleware = {
      prepareStep({ steps, runSteps }) {
        seenByHooks.push(runSteps.length);
        (steps as AgentStep[]).splice(0);
        (runSteps as AgentStep[]).splice(0);
      },
      wrapModelCall(request, next) {
        (request.runSteps as AgentStep[]).splice(0);
        return next(request);
      },
      afterTurn({ steps }) {
        (steps as AgentStep[]).splice(0);
      },
    };
    const executor = new AgentExecutor({ agent: agentOf(), tools: [echoTool], middleware: [splicing], returnIntermediateSteps: true });
    const result = await executor.invoke({ input: "x" });
    expect(result.intermediateSteps?.map((step) => step.observation)).toEqual(["t1", "t2", "t3", "t4"]);
    expect(seenByHooks).toEqual([0, 1, 2, 3, 4]);
    // The hook emptied its own copy, which is also the request's steps: the agent saw none.
    expect(calls).toEqual([0, 0, 0, 0, 0]);
  });

  // The steps themselves (not only the list) are the run's: an edit in place would change what the
  // result and later calls see while the record keeps the original. They are read-only.
  it("a middleware hook that rewrites a step's observation in place fails, named, and the run is unchanged", async () => {
    calls = [];
    const redact: AgentMiddleware = {
      name: "redact",
      prepareStep({ steps }) {
        const first = steps[0] as { observation: unknown } | undefined;
        if (first !== undefined) first.observation = "[redacted]";
      },
    };
    const store = new InProcessRunStore();
    const executor = new AgentExecutor({ agent: agentOf(), tools: [echoTool], middleware: [redact], store });
    const error = await executor.invoke({ input: "x" }, { runId: "redact-in-place" }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(MiddlewareError);
    expect((error as MiddlewareError).hook).toBe("prepareStep");
    expect(String((error as MiddlewareError).cause)).toMatch(/read.only|observation/);
    const steps = (await store.readEvents("redact-in-place")).filter((event) => event.type === "step");
    expect(steps).toHaveLength(1);
    expect(JSON.stringify(steps[0]?.data)).toContain('"t1"');
    expect(JSON.stringify(steps[0]?.data)).not.toContain("redacted");
  });

  it("an agent that edits a step or its action in place fails the run; the result's steps are read-only", async () => {
    calls = [];
    const editing = new AgentExecutor({ agent: agentOf((steps) => { if (steps[0]) (steps[0].action as { toolInput: unknown }).toolInput = { text: "other" }; }), tools: [echoTool] });
    await expect(editing.invoke({ input: "x" })).rejects.toThrow(TypeError);
    calls = [];
    const executor = new AgentExecutor({ agent: agentOf(), tools: [echoTool], returnIntermediateSteps: true });
    const result = await executor.invoke({ input: "x" });
    const step = result.intermediateSteps?.[0] as AgentStep;
    expect(Object.isFrozen(step) && Object.isFrozen(step.action) && Object.isFrozen(step.action.toolInput)).toBe(true);
    // A changed copy is how a hook or a caller changes a step.
    expect({ ...step, observation: "changed" }.observation).toBe("changed");
  });
});
