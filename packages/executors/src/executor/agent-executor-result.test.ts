import { AgentExecutor } from "@agentrx/executors";
import { RunnableLambda } from "@langchain/core/runnables";
import { describe, expect, it } from "vitest";
import { echoTool } from "./test-helpers";

const looping = RunnableLambda.from(() => ({ tool: "echo", toolInput: { text: "again" }, log: "" }));
const answering = RunnableLambda.from(() => ({ returnValues: { output: "done", type: "answer" }, log: "" }));

describe("AgentExecutor result", () => {
  it("carries why the run ended, for invoke and an awaited stream alike", async () => {
    const executor = new AgentExecutor({ agent: looping, tools: [echoTool], maxIterations: 2 });
    const invoked = await executor.invoke({ input: "x" });
    expect(invoked.stopReason).toBe("max_iterations");
    const streamed = await executor.stream({ input: "x" });
    expect(streamed.stopReason).toBe("max_iterations");
    expect((await new AgentExecutor({ agent: answering, tools: [] }).invoke({ input: "x" })).stopReason).toBe("finish");
  });

  it("is not an event: a `type` input or return value is not echoed", async () => {
    const result = await new AgentExecutor({ agent: answering, tools: [] }).invoke({ input: "x", type: "support" });
    expect(result).toEqual({ input: "x", output: "done", runId: expect.any(String), stopReason: "finish" });
  });

  it("echoes the inputs in their order, an own `__proto__` input as an own key (the result's prototype stays Object's)", async () => {
    const inputs = JSON.parse('{"input": "x", "__proto__": {"polluted": true}, "lang": "en"}') as Record<string, unknown>;
    const result = await new AgentExecutor({ agent: answering, tools: [] }).invoke(inputs);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect((result as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.keys(result)).toEqual(["input", "__proto__", "lang", "output", "runId", "stopReason"]);
  });

  it("can be awaited with catch and finally, as a Promise, running the agent once", async () => {
    let calls = 0;
    const failing = RunnableLambda.from(() => {
      calls += 1;
      throw new Error("service unavailable");
    });
    const run = new AgentExecutor({ agent: failing, tools: [] }).invoke({ input: "x" });
    expect(await run.catch((error: Error) => error.message)).toBe("service unavailable");
    let settled = false;
    await expect(run.finally(() => (settled = true))).rejects.toThrow("service unavailable");
    expect(settled).toBe(true);
    expect(calls).toBe(1);
  });
});
