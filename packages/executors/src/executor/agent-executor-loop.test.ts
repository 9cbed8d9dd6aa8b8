import { EARLY_STOP_OUTPUT } from "@agentrx/core";
import { AgentExecutor, type AgentStreamEvent } from "@agentrx/executors";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { act, collect, echoTool, finish, scriptedAgent, toolCall } from "./test-helpers";

const counter = tool(async ({ n }: { n: number }) => n + 1, {
  name: "increment",
  description: "Adds one.",
  schema: z.object({ n: z.number() }),
});

function summarize(event: AgentStreamEvent): string {
  switch (event.type) {
    case "action":
      return `action#${event.iteration} ${event.action.tool}`;
    case "step":
      return `step#${event.iteration} ${event.step.action.tool} -> ${event.step.observation}`;
    case "output":
      return `output ${event.stopReason}: ${event.output}`;
    default:
      return event.type;
  }
}

describe("AgentExecutor loop", () => {
  it("runs a 3-step run and returns the output and every step in action order", async () => {
    const { agent, inputs } = scriptedAgent([
      act("echo", { text: "one" }),
      [act("echo", { text: "two" }), act("increment", { n: 2 })],
      (input) => finish(`saw ${input.steps.map((step) => step.observation).join(",")}`),
    ]);
    const executor = new AgentExecutor({ agent, tools: [echoTool, counter], returnIntermediateSteps: true });
    const results = await collect(executor.invoke({ input: "go" }));
    expect(results).toHaveLength(1);
    const [result] = results;
    expect(result?.output).toBe("saw one,two,3");
    expect(result?.input).toBe("go");
    expect(result?.intermediateSteps?.map((step) => [step.action.tool, step.observation])).toEqual([
      ["echo", "one"],
      ["echo", "two"],
      ["increment", "3"],
    ]);
    expect(inputs.map((input) => input.steps.length)).toEqual([0, 1, 3]);
    expect(inputs[0]).toEqual({ input: "go", steps: [] });
  });

  it("omits intermediateSteps unless returnIntermediateSteps is set", async () => {
    const { agent } = scriptedAgent([act("echo", { text: "x" }), finish("done")]);
    const [result] = await collect(new AgentExecutor({ agent, tools: [echoTool] }).invoke({ input: "go" }));
    expect(result).toEqual({ input: "go", output: "done", runId: expect.any(String), stopReason: "finish" });
  });

  it("streams actions, steps and a final output event", async () => {
    const { agent } = scriptedAgent([act("echo", { text: "hi" }), [act("increment", { n: 1 })], finish("bye")]);
    const events = await collect(new AgentExecutor({ agent, tools: [echoTool, counter] }).stream({ input: "go" }));
    expect(events.map(summarize)).toMatchInlineSnapshot(`
      [
        "start",
        "action#0 echo",
        "step#0 echo -> hi",
        "action#1 increment",
        "step#1 increment -> 2",
        "output finish: bye",
      ]
    `);
    expect(events.at(-1)?.type).toBe("output");
  });

  it("gives action and step events their messages", async () => {
    const { agent } = scriptedAgent([[act("echo", { text: "plain" }), toolCall("echo", { text: "tc" }, "call_7")], finish("ok")]);
    const events = await collect(new AgentExecutor({ agent, tools: [echoTool] }).stream({ input: "go" }));
    const actions = events.filter((event) => event.type === "action");
    expect(actions[0]?.messages[0]?.text).toBe("calling echo");
    const steps = events.filter((event) => event.type === "step");
    const byTool = Object.fromEntries(steps.map((event) => [event.step.observation, event.messages[0]]));
    expect(byTool["plain"]).toBeInstanceOf(HumanMessage);
    expect(byTool["tc"]).toBeInstanceOf(ToolMessage);
    expect((byTool["tc"] as ToolMessage).tool_call_id).toBe("call_7");
    const output = events.at(-1);
    expect(output?.type === "output" && output.messages[0]?.text).toBe("ok");
  });

  it("tells the agent about an unknown tool, naming the valid ones", async () => {
    const { agent, inputs } = scriptedAgent([act("serch", { q: 1 }), finish("done")]);
    const [result] = await collect(
      new AgentExecutor({ agent, tools: [echoTool, counter], returnIntermediateSteps: true }).invoke({ input: "go" }),
    );
    expect(result?.intermediateSteps?.[0]?.observation).toBe("serch is not a valid tool, try one of [echo, increment].");
    expect(inputs[1]?.steps[0]?.observation).toBe("serch is not a valid tool, try one of [echo, increment].");
  });

  it("matches tool names exactly (case and whitespace count)", async () => {
    const { agent, inputs } = scriptedAgent([[act("Echo", { text: "a" }), act(" echo", { text: "b" }), act("echo", { text: "c" })], finish("done")]);
    await collect(new AgentExecutor({ agent, tools: [echoTool, counter] }).invoke({ input: "go" }));
    expect(inputs[1]?.steps.map((step) => step.observation)).toEqual([
      "Echo is not a valid tool, try one of [echo, increment].",
      " echo is not a valid tool, try one of [echo, increment].",
      "c",
    ]);
  });

  it("returns a returnDirect tool's observation as the output", async () => {
    const direct = tool(async () => "direct answer", { name: "direct", description: "d", schema: z.object({}) });
    direct.returnDirect = true;
    const { agent, inputs } = scriptedAgent([act("direct"), finish("never")]);
    const events = await collect(new AgentExecutor({ agent, tools: [direct] }).stream({ input: "go" }));
    const output = events.at(-1);
    expect(output).toMatchObject({ type: "output", output: "direct answer", stopReason: "return_direct" });
    expect(inputs).toHaveLength(1);
  });

  it("ignores returnDirect when a turn has several actions", async () => {
    const direct = tool(async () => "direct answer", { name: "direct", description: "d", schema: z.object({}) });
    direct.returnDirect = true;
    const { agent, inputs } = scriptedAgent([[act("direct"), act("echo", { text: "x" })], finish("final")]);
    const [result] = await collect(new AgentExecutor({ agent, tools: [direct, echoTool] }).invoke({ input: "go" }));
    expect(result?.output).toBe("final");
    expect(inputs).toHaveLength(2);
  });

  it("serialises non-string tool results to JSON", async () => {
    const json = tool(async () => ({ a: [1, 2] }), { name: "json", description: "j", schema: z.object({}) });
    const { agent, inputs } = scriptedAgent([act("json"), finish("ok")]);
    await collect(new AgentExecutor({ agent, tools: [json] }).invoke({ input: "go" }));
    expect(inputs[1]?.steps[0]?.observation).toBe('{"a":[1,2]}');
  });

  it("never calls the agent with maxIterations: 0 and stops with max_iterations", async () => {
    const { agent, inputs } = scriptedAgent([finish("never")]);
    const events = await collect(new AgentExecutor({ agent, tools: [], maxIterations: 0 }).stream({ input: "go" }));
    expect(inputs).toHaveLength(0);
    expect(events.map((event) => event.type)).toEqual(["start", "output"]);
    expect(events[1]).toMatchObject({ type: "output", output: EARLY_STOP_OUTPUT, stopReason: "max_iterations" });
    expect(EARLY_STOP_OUTPUT).toBe("Agent stopped due to iteration limit or time limit.");
  });

  it("stops after maxIterations agent calls with the force output, keeping the steps", async () => {
    const { agent, inputs } = scriptedAgent([act("echo", { text: "1" }), act("echo", { text: "2" }), act("echo", { text: "3" })]);
    const [result] = await collect(
      new AgentExecutor({ agent, tools: [echoTool], maxIterations: 2, returnIntermediateSteps: true }).invoke({ input: "go" }),
    );
    expect(inputs).toHaveLength(2);
    expect(result?.output).toBe(EARLY_STOP_OUTPUT);
    expect(result?.intermediateSteps).toHaveLength(2);
  });

  it("is cold: nothing runs before subscription and each subscription is its own run", async () => {
    const { agent, inputs } = scriptedAgent([finish("a"), finish("b")]);
    const observable = new AgentExecutor({ agent, tools: [] }).invoke({ input: "go" });
    await Promise.resolve();
    expect(inputs).toHaveLength(0);
    const first = await collect(observable);
    const second = await collect(observable);
    expect([first[0]?.output, second[0]?.output]).toEqual(["a", "b"]);
  });

  it("makes a non-string final output a string", async () => {
    const { agent } = scriptedAgent([{ returnValues: { output: { n: 1 }, extra: true }, log: "" }]);
    const [result] = await collect(new AgentExecutor({ agent, tools: [] }).invoke({ input: "go" }));
    expect(result).toEqual({ input: "go", output: '{"n":1}', extra: true, runId: expect.any(String), stopReason: "finish" });
  });

  it("fails the run when the agent returns something that is not an action or a finish", async () => {
    const { agent } = scriptedAgent([[] as never]);
    await expect(collect(new AgentExecutor({ agent, tools: [] }).invoke({ input: "go" }))).rejects.toMatchObject({
      name: "InvalidAgentOutputError",
    });
  });

  it.each([
    ["a string", "hello", "string"],
    ["null", null, "null"],
    ["an array", ["hello"], "an array"],
    ["undefined", undefined, "undefined"],
    ["a promise (not awaited)", Promise.resolve({ input: "hello" }), "a Promise (did you forget to `await` the inputs?)"],
    ["a Map", new Map([["input", "hello"]]), "a Map (pass Object.fromEntries(map))"],
  ])("errors the observable when inputs are %s, naming the problem", async (_name, value, shown) => {
    const { agent, inputs } = scriptedAgent([finish("a")]);
    const executor = new AgentExecutor({ agent, tools: [] });
    await expect(collect(executor.invoke(value as never))).rejects.toThrow(`\`inputs\` must be an object such as { input: "..." }, got ${shown}`);
    await expect(collect(executor.stream(value as never))).rejects.toMatchObject({ name: "InvalidArgumentError", argument: "inputs" });
    expect(inputs).toHaveLength(0);
  });
});
