import { MemoryRunStore } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import { lastValueFrom } from "rxjs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AgentExecutor } from "./agent-executor";
import type { RunObservable } from "./run-observable";
import { echoTool, finish, scriptedAgent, toolCall } from "./test-helpers";

/** Awaits `run`, which must fail, and gives the id it says its awaited run had. */
async function awaitedIdOfFailed(run: RunObservable<unknown, unknown>): Promise<string | undefined> {
  await expect(Promise.resolve(run)).rejects.toThrow("model unreachable");
  return run.awaitedRunId();
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("RunObservable.awaitedRunId", () => {
  it("is the id of a failed awaited run, from invoke (common and verbose), stream and resume", async () => {
    vi.spyOn(process.stdout, "write").mockImplementation(() => true); // verbose prints its trace
    const failing = (options: { verbose?: boolean } = {}) => new AgentExecutor({ agent: scriptedAgent([new Error("model unreachable")]).agent, tools: [], ...options });
    expect(await awaitedIdOfFailed(failing().invoke({ input: "x" }, { runId: "invoked" }))).toBe("invoked");
    expect(await awaitedIdOfFailed(failing({ verbose: true }).invoke({ input: "x" }, { runId: "verbose" }))).toBe("verbose");
    expect(await awaitedIdOfFailed(failing().stream({ input: "x" }, { runId: "streamed" }))).toBe("streamed");

    const store = new MemoryRunStore();
    const { agent } = scriptedAgent([[toolCall("echo", { text: "a" }, "c1")], new Error("model unreachable")]);
    const executor = new AgentExecutor({ agent, tools: [withApproval(echoTool)], store });
    const paused = await executor.invoke({ input: "x" }, { runId: "paused" });
    const id = paused.interrupts?.[0]?.id as string;
    expect(await awaitedIdOfFailed(executor.resume("paused", { decisions: { [id]: "approve" } }))).toBe("paused");
  });

  it("is a fresh run's id too, and undefined before the run is awaited", async () => {
    const { agent } = scriptedAgent([new Error("model unreachable")]);
    const run = new AgentExecutor({ agent, tools: [] }).invoke({ input: "x" });
    expect(run.awaitedRunId()).toBeUndefined();
    const id = await awaitedIdOfFailed(run);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("is the awaited run's, not another subscription's, and awaiting runs the run once", async () => {
    const { agent, inputs } = scriptedAgent([finish("first"), new Error("model unreachable")]);
    const executor = new AgentExecutor({ agent, tools: [] });
    const run = executor.invoke({ input: "x" });
    const other = await lastValueFrom(run); // a subscription of its own: a run of its own
    expect(other.output).toBe("first");
    const id = await awaitedIdOfFailed(run);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(id).not.toBe(other.runId);
    await expect(Promise.resolve(run)).rejects.toThrow("model unreachable"); // awaited again: not run again
    expect(inputs).toHaveLength(2);
  });
});
