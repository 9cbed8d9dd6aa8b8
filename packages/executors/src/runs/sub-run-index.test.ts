// A sub-run's calls (an executor called as a tool) are recorded in the calling run's record with
// the index of each call in the sub-run's own turn, so a reader (replayRun, the trace page) tells
// two calls of one sub-run turn apart. Records written before the index was kept still read.
import type { AgentAction } from "@agentrx/core";
import { RunnableLambda } from "@langchain/core/runnables";
import { describe, expect, it } from "vitest";
import type { AgentStreamEvent } from "../executor/events";
import { AgentExecutor } from "../executor/agent-executor";
import { echoTool, finish } from "../executor/test-helpers";
import { InProcessRunStore } from "./in-process-run-store";
import { RunEventDecoder, encodeRunEvent } from "./run-event-codec";

const echo = (text: string): AgentAction => ({ tool: "echo", toolInput: { text }, log: "" });

describe("a sub-run's action and step events", () => {
  it("are recorded with the index of their call in the sub-run's turn, and read back with it", async () => {
    const store = new InProcessRunStore();
    // The sub-agent calls echo twice in one turn, then answers.
    const inner = new AgentExecutor({
      agent: RunnableLambda.from((input: { steps: unknown[] }) => (input.steps.length === 0 ? [echo("a"), echo("b")] : finish("both"))),
      tools: [echoTool],
    });
    const helper = inner.asTool({ name: "helper", description: "Helps." });
    const outer = new AgentExecutor({
      agent: RunnableLambda.from((input: { steps: unknown[] }) => (input.steps.length === 0 ? ({ tool: "helper", toolInput: { input: "go" }, log: "" } as AgentAction) : finish("done"))),
      tools: [helper],
      store,
    });
    expect((await outer.invoke({ input: "x" }, { runId: "r" })).output).toBe("done");

    const stored = await store.readEvents("r");
    const sub = stored.filter((event) => Array.isArray(event.data["subRun"]) && (event.data["type"] === "action" || event.data["type"] === "step"));
    expect(sub.map((event) => [event.data["type"], event.data["index"]])).toEqual([
      ["action", 0],
      ["action", 1],
      ["step", 0],
      ["step", 1],
    ]);
    const decoder = new RunEventDecoder("r");
    const decoded = stored.map((event) => decoder.decode(event)).filter((event): event is AgentStreamEvent => (event.type === "action" || event.type === "step") && (event as AgentStreamEvent).subRun !== undefined);
    expect(decoded.map((event) => [event.type, (event as { index?: number }).index, event.type === "action" ? event.action.toolInput : event.type === "step" ? event.step.action.toolInput : undefined])).toEqual([
      ["action", 0, { text: "a" }],
      ["action", 1, { text: "b" }],
      ["step", 0, { text: "a" }],
      ["step", 1, { text: "b" }],
    ]);
  });

  it("round-trip the index; a record without it (an earlier release's) reads as before", () => {
    const path = { subRun: ["helper"], subRunCallIds: ["call_1"] };
    const action = encodeRunEvent({ type: "action", iteration: 0, index: 1, action: echo("b"), messages: [], at: 1, ...path });
    const step = encodeRunEvent({ type: "step", iteration: 0, index: 1, step: { action: echo("b"), observation: "b" }, messages: [], durationMs: 0, at: 2, ...path });
    const parsingError = encodeRunEvent({ type: "step", iteration: 0, step: { action: { tool: "_Exception", toolInput: "", log: "" }, observation: "bad" }, messages: [], durationMs: 0, at: 2, ...path });
    expect([action["index"], step["index"], parsingError["index"]]).toEqual([1, 1, undefined]);
    expect(step["action"]).toMatchObject({ tool: "echo", toolInput: { text: "b" } }); // a sub-run's step carries its action
    const decoder = new RunEventDecoder("r");
    expect(decoder.decode({ seq: 2, type: "action", at: 1, data: action })).toMatchObject({ type: "action", index: 1, subRun: ["helper"] });
    expect(decoder.decode({ seq: 3, type: "step", at: 2, data: step })).toMatchObject({ type: "step", index: 1, step: { observation: "b", action: { toolInput: { text: "b" } } } });
    expect(decoder.decode({ seq: 4, type: "step", at: 2, data: parsingError })).not.toHaveProperty("index");
    expect(decoder.steps).toEqual([]); // none of them is the calling run's

    // As an earlier release recorded them: every sub-run action at index 0, steps without one.
    const { index: _, ...oldStep } = step;
    expect(decoder.decode({ seq: 5, type: "action", at: 1, data: { ...action, index: 0 } })).toMatchObject({ type: "action", index: 0 });
    expect(decoder.decode({ seq: 6, type: "step", at: 2, data: oldStep })).not.toHaveProperty("index");
    // A damaged one is refused, naming the event.
    expect(() => decoder.decode({ seq: 7, type: "step", at: 2, data: { ...step, index: -1 } })).toThrow(/event 7 \(step\) has an index that is not a whole number from 0 up: -1/);
  });
});
