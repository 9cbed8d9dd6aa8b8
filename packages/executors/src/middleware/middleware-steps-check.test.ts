// Steps a middleware gives the agent call (prepareStep's `steps`, or the `steps` of the request a
// wrapModelCall passes to `next`) must all be AgentSteps: one that is not fails the run with a
// MiddlewareError naming the hook and the element, not with a TypeError from deep in the scratchpad.
import type { AgentStep } from "@agentrx/core";
import { AgentExecutor, type AgentMiddleware, MiddlewareError } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { act, echoTool, finish, scriptedAgent } from "../executor/test-helpers";

async function failure(middleware: AgentMiddleware): Promise<{ error: unknown; agentCalls: number }> {
  const { agent, inputs } = scriptedAgent([act("echo", { text: "a" }), finish("done")]);
  const executor = new AgentExecutor({ agent, tools: [echoTool], middleware: [{ name: "view", ...middleware }] });
  const error = await executor.invoke({ input: "hi" }).then(() => undefined, (caught: unknown) => caught);
  return { error, agentCalls: inputs.length };
}

describe("steps a middleware gives the agent call", () => {
  it("prepareStep: an element that is not an AgentStep fails the run, naming the hook and the element", async () => {
    const { error, agentCalls } = await failure({ prepareStep: () => ({ steps: [1, 2] as never }) });
    expect(MiddlewareError.isInstance(error)).toBe(true);
    expect((error as MiddlewareError).hook).toBe("prepareStep");
    expect((error as Error).message).toBe(
      'Middleware "view" failed in prepareStep: `steps` must be an array of AgentSteps ({ action: { tool, toolInput, log }, observation }), but steps[0] is a number.',
    );
    expect(agentCalls).toBe(0);
  });

  it("names the first bad element and what is wrong with it", async () => {
    const step: AgentStep = { action: { tool: "echo", toolInput: { text: "a" }, log: "" }, observation: "a" };
    const cases: [unknown[], RegExp][] = [
      [[step, null], /but steps\[1\] is null\.$/],
      [[step, { observation: "x" }], /but steps\[1\]\.action is undefined\.$/],
      [[{ action: { toolInput: {} }, observation: "x" }], /but steps\[0\]\.action\.tool is undefined, not a tool name\.$/],
      [[{ action: { tool: "echo", toolInput: {}, log: "" } }], /but steps\[0\]\.observation is undefined, not a string or message content\.$/],
    ];
    for (const [steps, message] of cases) {
      const { error } = await failure({ prepareStep: ({ iteration }) => (iteration === 1 ? { steps: steps as AgentStep[] } : undefined) });
      expect(MiddlewareError.isInstance(error), JSON.stringify(steps)).toBe(true);
      expect((error as Error).message).toMatch(message);
    }
  });

  it("wrapModelCall: steps passed to next() are checked the same way", async () => {
    const { error, agentCalls } = await failure({ wrapModelCall: (request, next) => next({ ...request, steps: ["a step"] as never }) });
    expect(MiddlewareError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      'Middleware "view" failed in wrapModelCall: next() was given the request with `steps` that are not all AgentSteps ({ action: { tool, toolInput, log }, observation }): steps[0] is a string.',
    );
    expect(agentCalls).toBe(0);
  });

  it("takes steps that are AgentSteps, message content as an observation included", async () => {
    const { agent, inputs } = scriptedAgent([act("echo", { text: "a" }), finish("done")]);
    const extra: AgentStep = { action: { tool: "note", toolInput: "", log: "" }, observation: [{ type: "text", text: "a note" }] };
    const executor = new AgentExecutor({ agent, tools: [echoTool], middleware: [{ prepareStep: ({ steps }) => ({ steps: [...steps, extra] }) }] });
    expect((await executor.invoke({ input: "hi" })).output).toBe("done");
    expect(inputs[1]?.steps.at(-1)).toEqual(extra);
  });
});
