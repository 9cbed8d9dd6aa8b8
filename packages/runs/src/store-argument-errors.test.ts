// A store that refuses what it was given (an id too long, a NUL in it) names the caller's mistake:
// the executor passes its InvalidArgumentError on, not a RunStoreError (a store failure).
import { InvalidArgumentError } from "@agentrx/core";
import { AgentExecutor, RunStoreError } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { finish, scriptedAgent } from "../../executors/src/executor/test-helpers";
import { MemoryRunStore } from "@agentrx/runs";

describe("ids a store refuses", () => {
  it.each([
    ["resume of a run id too long", (executor: AgentExecutor) => executor.resume("x".repeat(2000))],
    ["invoke with a run id too long", (executor: AgentExecutor) => executor.invoke({ input: "a" }, { runId: "y".repeat(2000) })],
    ["invoke with a NUL in the run id", (executor: AgentExecutor) => executor.invoke({ input: "a" }, { runId: "a\u0000b" })],
  ])("%s: an InvalidArgumentError, not a store failure", async (_name, call) => {
    const { agent, inputs } = scriptedAgent([finish("never")]);
    const executor = new AgentExecutor({ agent, tools: [], store: new MemoryRunStore() });
    const error = await Promise.resolve(call(executor)).then(() => undefined, (thrown: unknown) => thrown);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(RunStoreError.isInstance(error)).toBe(false);
    expect(inputs).toHaveLength(0);
  });
});
