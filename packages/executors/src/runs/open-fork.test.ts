import { getStepMetadata } from "@agentrx/core";
import { AgentExecutor } from "@agentrx/executors";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { act, finish, scriptedAgent } from "../executor/test-helpers";
import { InProcessRunStore } from "./in-process-run-store";

const broken = tool(
  async (): Promise<string> => {
    throw new Error("backend down");
  },
  { name: "broken", description: "Fails.", schema: z.object({}) },
);
/** Returns 50 characters, and reports (as a retry policy would) that it took 2 attempts. */
const long = tool(
  async (_input, config) => {
    const metadata = getStepMetadata(config);
    if (metadata !== undefined) metadata.attempts = 2;
    return "x".repeat(50);
  },
  { name: "long", description: "Returns 50 characters.", schema: z.object({}) },
);

/** The metadata of the fork's last recorded step. */
async function forkedStepMetadata(store: InProcessRunStore, runId: string): Promise<unknown> {
  const steps = (await store.readEvents(runId)).filter((event) => event.type === "step");
  return steps.at(-1)?.data["metadata"];
}

describe("fork with edit.observation", () => {
  it("records the edited step as an edit, not as the source's failed call", async () => {
    const store = new InProcessRunStore();
    const { agent, inputs } = scriptedAgent([act("broken"), finish("done"), (input) => finish(`saw ${String(input.steps[0]?.observation)}`)]);
    const executor = new AgentExecutor({ agent, tools: [broken], store, handleToolRuntimeErrors: true });
    const source = await executor.invoke({ input: "go" }, { runId: "src" });
    expect((await store.readEvents("src")).find((event) => event.type === "step")?.data["metadata"]).toMatchObject({ failed: true });
    const fork = await executor.fork(source.runId as string, { at: 1, edit: { observation: "fine" }, runId: "fork" });
    expect(fork.output).toBe("saw fine");
    expect(inputs.at(-1)?.steps.map((step) => step.observation)).toEqual(["fine"]);
    expect(await forkedStepMetadata(store, "fork")).toEqual({ observationEdited: true });
  });

  it("drops the source's observationLength (a truncated observation) and keeps what describes the call", async () => {
    const store = new InProcessRunStore();
    const { agent } = scriptedAgent([act("long"), finish("done"), finish("done again")]);
    const executor = new AgentExecutor({ agent, tools: [long], store, maxObservationLength: 10 });
    await executor.invoke({ input: "go" }, { runId: "src" });
    expect((await store.readEvents("src")).find((event) => event.type === "step")?.data["metadata"]).toEqual({ attempts: 2, observationLength: 50 });
    await executor.fork("src", { at: 1, edit: { observation: "short" }, runId: "fork" });
    expect(await forkedStepMetadata(store, "fork")).toEqual({ attempts: 2, observationEdited: true });
  });

  it("copies a step without an edit as it was", async () => {
    const store = new InProcessRunStore();
    const { agent } = scriptedAgent([act("broken"), finish("done"), finish("done again")]);
    const executor = new AgentExecutor({ agent, tools: [broken], store, handleToolRuntimeErrors: true });
    await executor.invoke({ input: "go" }, { runId: "src" });
    await executor.fork("src", { at: 1, runId: "fork" });
    expect(await forkedStepMetadata(store, "fork")).toMatchObject({ failed: true });
  });
});
