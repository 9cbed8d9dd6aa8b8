import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentMiddleware, type MiddlewareEvent, type StepEvent, modelFallback } from "@agentrx/executors";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { act, collect, echoTool, finish, scriptedAgent } from "../executor/test-helpers";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]);

function middlewareEvents(events: readonly { type: string }[]): MiddlewareEvent[] {
  return events.filter((event): event is MiddlewareEvent => event.type === "middleware");
}

describe("report in the \"generate\" call of early stopping", () => {
  it("records what a wrapModelCall reports around the generate call, as around every agent call", async () => {
    const { agent } = scriptedAgent([act("echo", { text: "a" }), finish("final")]);
    const measure: AgentMiddleware = {
      name: "measure",
      async wrapModelCall(request, next) {
        const output = await next(request);
        request.report({ call: request.iteration });
        return output;
      },
    };
    const executor = new AgentExecutor({ agent, tools: [echoTool], maxIterations: 1, earlyStoppingMethod: "generate", middleware: [measure] });
    const events = await collect(executor.stream({ input: "hi" }));
    expect(events.at(-1)).toMatchObject({ type: "output", output: "final", stopReason: "max_iterations" });
    expect(middlewareEvents(events).map(({ name, iteration, data }) => ({ name, iteration, data }))).toEqual([
      { name: "measure", iteration: 0, data: { call: 0 } },
      { name: "measure", iteration: 1, data: { call: 1 } },
    ]);
  });

  it("records modelFallback's switch in the generate call, in the stream and the record, before the output", async () => {
    const primary = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "echo", args: { text: "a" } }] }, new Error("503 overloaded")] });
    const backup = new ScriptedChatModel({ responses: ["final from backup"] });
    const store = new InProcessRunStore();
    const agent = createToolCallingAgent({ llm: primary, tools: [echoTool], prompt });
    const executor = new AgentExecutor({ agent, tools: [echoTool], maxIterations: 1, earlyStoppingMethod: "generate", store, middleware: [modelFallback([backup])] });
    const events = await collect(executor.stream({ input: "hi" }, { runId: "generate-fallback" }));
    expect(events.at(-1)).toMatchObject({ type: "output", output: "final from backup", stopReason: "max_iterations" });
    const expected = { name: "modelFallback", iteration: 1, data: { fallback: 1, model: expect.any(String), error: "Error: 503 overloaded" } };
    expect(middlewareEvents(events)).toEqual([expect.objectContaining(expected)]);
    const recorded = (await store.readEvents("generate-fallback")).map((event) => event.data);
    const at = recorded.findIndex((data) => data["type"] === "middleware");
    expect(recorded[at]).toMatchObject(expected);
    expect(at).toBeLessThan(recorded.findIndex((data) => data["type"] === "output"));
  });
});

describe("what the record says of a call a wrapToolCall changed", () => {
  const lookup = tool(async ({ id }: { id: string }) => (id === "bad" ? Promise.reject(new Error("no such id")) : `record ${id}`), {
    name: "lookup",
    description: "Looks up a record.",
    schema: z.object({ id: z.string() }),
  });

  it("keeps the action the model asked for and records the input the tool ran with in the step's metadata", async () => {
    const { agent, inputs } = scriptedAgent([act("lookup", { id: "A-1" }), finish("done")]);
    const normalize: AgentMiddleware = {
      name: "normalize",
      wrapToolCall: (call, next) => next({ ...call, action: { ...call.action, toolInput: { id: String((call.action.toolInput as { id: string }).id).toLowerCase() } } }),
    };
    const store = new InProcessRunStore();
    const executor = new AgentExecutor({ agent, tools: [lookup], store, middleware: [normalize] });
    const events = await collect(executor.stream({ input: "hi" }, { runId: "changed-input" }));
    const step = events.find((event): event is StepEvent => event.type === "step");
    expect(step?.step).toMatchObject({ action: { tool: "lookup", toolInput: { id: "A-1" } }, observation: "record a-1" });
    expect(step?.metadata).toEqual({ ranWith: { tool: "lookup", toolInput: { id: "a-1" } } });
    expect(inputs[1]?.steps[0]?.action.toolInput).toEqual({ id: "A-1" });
    const recorded = (await store.readEvents("changed-input")).map((event) => event.data).find((data) => data["type"] === "step");
    expect(recorded?.["metadata"]).toEqual({ ranWith: { tool: "lookup", toolInput: { id: "a-1" } } });
  });

  it("leaves the metadata alone when the action given to next is the same call", async () => {
    const { agent } = scriptedAgent([act("lookup", { id: "a-1" }), finish("done")]);
    const copy: AgentMiddleware = { wrapToolCall: (call, next) => next({ ...call, action: { ...call.action, toolInput: { ...(call.action.toolInput as object) } } }) };
    const events = await collect(new AgentExecutor({ agent, tools: [lookup], middleware: [copy] }).stream({ input: "hi" }));
    expect(events.find((event): event is StepEvent => event.type === "step")?.metadata).toBeUndefined();
  });

  it("does not mark a failed call failed when a wrapToolCall answered with an observation of its own", async () => {
    const { agent } = scriptedAgent([act("lookup", { id: "bad" }), act("lookup", { id: "bad" }), finish("done")]);
    let calls = 0;
    const fallback: AgentMiddleware = {
      name: "fallback",
      async wrapToolCall(call, next) {
        const observation = await next(call);
        // The first call's failure is answered from a cache; the second's is passed on as it is.
        return calls++ === 0 ? "record bad (cached)" : observation;
      },
    };
    const executor = new AgentExecutor({ agent, tools: [lookup], handleToolRuntimeErrors: true, middleware: [fallback] });
    const steps = (await collect(executor.stream({ input: "hi" }))).filter((event): event is StepEvent => event.type === "step");
    expect(steps.map((event) => event.step.observation)).toEqual(["record bad (cached)", expect.stringContaining("no such id")]);
    expect(steps[0]?.metadata?.failed).toBeUndefined();
    expect(steps[0]?.metadata?.error).toBeUndefined();
    expect(steps[1]?.metadata?.failed).toBe(true);
  });
});
