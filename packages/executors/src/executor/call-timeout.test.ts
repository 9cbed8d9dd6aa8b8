// The call's `timeout` limits each agent and tool call: past it the run fails with a
// CallTimeoutError, whether or not the call honours its signal.
import { AgentExecutor, CallTimeoutError } from "@agentrx/executors";
import type { RunnableConfig } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { act, finish, scriptedAgent } from "./test-helpers";

function failure(promise: PromiseLike<unknown>): PromiseLike<unknown> {
  return promise.then(() => undefined, (error: unknown) => error);
}

describe("the call's timeout", () => {
  it("fails the run when a tool call takes longer, aborting the call's signal with the error", async () => {
    let reason: unknown;
    const slow = tool((_input, config: RunnableConfig) => new Promise<string>((_resolve, reject) => config.signal?.addEventListener("abort", () => reject((reason = config.signal?.reason)))), {
      name: "slow",
      description: "never answers before its signal",
      schema: z.object({}),
    });
    for (let i = 0; i < 5; i++) {
      const { agent } = scriptedAgent([act("slow"), finish("never")]);
      const executor = new AgentExecutor({ agent, tools: [slow] });
      const error = await failure(executor.invoke({ input: "go" }, { timeout: 30, runId: `r${i}` }));
      expect(CallTimeoutError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ call: "tool", tool: "slow", timeoutMs: 30, runId: `r${i}` });
      expect((error as Error).message).toContain('the call of tool "slow" took longer than the call\'s timeout (30 ms)');
      expect(reason).toBe(error);
    }
  });

  it("fails the run when a tool ignores its signal", async () => {
    const stuck = tool(() => new Promise<string>(() => undefined), { name: "stuck", description: "never settles", schema: z.object({}) });
    const { agent } = scriptedAgent([act("stuck"), finish("never")]);
    const error = await failure(new AgentExecutor({ agent, tools: [stuck] }).invoke({ input: "go" }, { timeout: 30 }));
    expect(error).toMatchObject({ name: "CallTimeoutError", call: "tool", tool: "stuck" });
  });

  it("fails the run when the agent call takes longer", async () => {
    const { agent } = scriptedAgent([() => new Promise(() => undefined)]);
    const error = await failure(new AgentExecutor({ agent, tools: [] }).invoke({ input: "go" }, { timeout: 30 }));
    expect(error).toMatchObject({ name: "CallTimeoutError", call: "agent", tool: undefined });
  });

  it("leaves calls that finish in time alone, and is not passed on in the calls' config", async () => {
    const configs: RunnableConfig[] = [];
    const quick = tool(async (_input, config: RunnableConfig) => (configs.push(config), "done"), { name: "quick", description: "answers at once", schema: z.object({}) });
    const { agent } = scriptedAgent([act("quick"), act("quick"), finish("all done")]);
    // A generous timeout (a loaded machine may stall a quick call for tens of ms), then a wait past it.
    const result = await new AgentExecutor({ agent, tools: [quick] }).invoke({ input: "go" }, { timeout: 400 });
    expect(result.output).toBe("all done");
    expect(configs).toHaveLength(2);
    for (const config of configs) expect(config.timeout).toBeUndefined();
    // The timers were cleared: nothing fails after the run's end.
    await new Promise((resolve) => setTimeout(resolve, 450));
  });
});
