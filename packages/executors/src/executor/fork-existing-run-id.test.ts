// `fork` with the id of a run that exists already (`options.runId`) is bad input: it rejects
// with an InvalidArgumentError naming `options.runId`, and neither run changes.
import { InvalidArgumentError } from "@agentrx/core";
import { AgentExecutor } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { act, echoTool, finish, scriptedAgent } from "./test-helpers";

describe("fork with the id of a run that exists", () => {
  it("rejects with an InvalidArgumentError naming options.runId; neither run changes", async () => {
    const store = new InProcessRunStore();
    const { agent } = scriptedAgent([act("echo", { text: "a" }), finish("one"), act("echo", { text: "b" }), finish("two")]);
    const executor = new AgentExecutor({ agent, tools: [echoTool], store });
    await executor.invoke({ input: "x" }, { runId: "source" });
    await executor.invoke({ input: "y" }, { runId: "taken" });
    const before = { source: await store.readEvents("source"), taken: await store.readEvents("taken") };
    const error = await Promise.resolve(executor.fork("source", { at: 1, runId: "taken" })).catch((thrown: unknown) => thrown);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ argument: "runId", value: "taken" });
    expect((error as Error).message).toMatch(/options\.runId.*"taken".*exists already/);
    expect(await store.readEvents("source")).toEqual(before.source);
    expect(await store.readEvents("taken")).toEqual(before.taken);
  });
});
