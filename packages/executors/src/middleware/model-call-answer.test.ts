import { AgentExecutor, type AgentMiddleware, InvalidAgentOutputError, MiddlewareError } from "@agentrx/executors";
import type { AgentOutput } from "@agentrx/core";
import { describe, expect, it } from "vitest";
import { echoTool, finish, scriptedAgent } from "../executor/test-helpers";

describe("a wrapModelCall that resolves to something that is no agent output", () => {
  it("fails naming the middleware, not the agent", async () => {
    const { agent } = scriptedAgent([finish("done")]);
    const wrong = { name: "shaper", wrapModelCall: async () => ({ output: "done" }) as unknown as AgentOutput } satisfies AgentMiddleware;
    const failed = new AgentExecutor({ agent, tools: [echoTool], middleware: [wrong] }).invoke({ input: "hi" });
    await expect(failed).rejects.toSatisfy((error) => MiddlewareError.isInstance(error) && !InvalidAgentOutputError.isInstance(error));
    await expect(new AgentExecutor({ agent: scriptedAgent([finish("done")]).agent, tools: [echoTool], middleware: [wrong] }).invoke({ input: "hi" })).rejects.toThrow(
      'Middleware "shaper" failed in wrapModelCall: wrapModelCall must resolve to the agent\'s output (an AgentFinish, an AgentAction or a non-empty array of AgentActions, as `next(request)` resolves to), got an object with keys output.',
    );
    const empty = { name: "emptied", wrapModelCall: async () => [] as unknown as AgentOutput } satisfies AgentMiddleware;
    await expect(new AgentExecutor({ agent: scriptedAgent([finish("done")]).agent, tools: [echoTool], middleware: [empty] }).invoke({ input: "hi" })).rejects.toThrow(
      /Middleware "emptied" failed in wrapModelCall: .*, got an empty array\./,
    );
  });

  it("still blames the agent for what it returned itself, passed through by the middleware", async () => {
    const { agent } = scriptedAgent([{ output: "bad" } as unknown as AgentOutput]);
    const pass = { name: "pass", wrapModelCall: (request, next) => next(request) } satisfies AgentMiddleware;
    await expect(new AgentExecutor({ agent, tools: [echoTool], middleware: [pass] }).invoke({ input: "hi" })).rejects.toSatisfy(InvalidAgentOutputError.isInstance);
  });

  it("blames the inner middleware that made it, not the outer one it passed through", async () => {
    const { agent } = scriptedAgent([finish("done")]);
    const outer = { name: "outer", wrapModelCall: (request, next) => next(request) } satisfies AgentMiddleware;
    const inner = { name: "inner", wrapModelCall: async () => "done" as unknown as AgentOutput } satisfies AgentMiddleware;
    await expect(new AgentExecutor({ agent, tools: [echoTool], middleware: [outer, inner] }).invoke({ input: "hi" })).rejects.toThrow(/^Middleware "inner" failed in wrapModelCall/);
  });
});
