import { createToolCallingAgent } from "@agentrx/agents";
import { getStepMetadata } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
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

describe("fork at", () => {
  it("refuses an `at` past the last complete turn of a run whose final model call was recorded (that call is never made again)", async () => {
    const store = new InProcessRunStore();
    const lookup = tool(async () => "found", { name: "lookup", description: "l", schema: z.object({}) });
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ id: "c1", name: "lookup", args: {} }] }, "done"] });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]);
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [lookup], prompt }), tools: [lookup], store });
    await executor.invoke({ input: "go" }, { runId: "src" });
    expect((await store.readEvents("src")).some((event) => event.type === "model_call" && event.data["iteration"] === 1)).toBe(true);
    const refused = await executor.fork("src", { at: 2, runId: "fork" }).catch((error: unknown) => error);
    expect((refused as Error).message).toBe('AgentExecutor.fork: run "src" has no complete turn boundary at iteration 2 (its complete turns end before iteration 1); pick an `at` between 0 and that.');
    expect(llm.calls).toHaveLength(2);
    expect(await store.getRun("fork")).toBeUndefined();
  });
});
