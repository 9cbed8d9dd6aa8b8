import type { AgentStep } from "@agentrx/core";
import { InvalidArgumentError } from "@agentrx/core";
import { toolCallingAgentType } from "@agentrx/agents";
import { AgentExecutor, type AgentExecutorOptions } from "@agentrx/executors";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { describe, expect, it } from "vitest";
import { act, collect, echoTool, finish, scriptedAgent } from "./test-helpers";

const { agent } = scriptedAgent([]);

function errorOf(options: Partial<AgentExecutorOptions> & Record<string, unknown>): InvalidArgumentError {
  try {
    new AgentExecutor({ agent, tools: [], ...options } as AgentExecutorOptions);
  } catch (error) {
    if (InvalidArgumentError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected the constructor to throw");
}

describe("AgentExecutor constructor validation", () => {
  it.each([
    ["maxIterations", -1],
    ["maxIterations", 1.5],
    ["maxExecutionTime", -5],
    ["maxExecutionTime", Number.NaN],
    ["earlyStoppingMethod", "generat"],
    ["handleParsingErrors", 3],
    ["handleToolRuntimeErrors", "yes"],
    ["trimIntermediateSteps", "all"],
    ["trimIntermediateSteps", 2.5],
    ["returnIntermediateSteps", "true"],
    ["maxConcurrency", 0],
    ["stopWhen", "budget"],
  ])("rejects %s = %s, naming the option", (option, value) => {
    const error = errorOf({ [option]: value });
    expect(error.argument).toBe(option);
    expect(error.message).toContain(`\`${option}\``);
  });

  it("rejects an unknown option, naming it", () => {
    const error = errorOf({ maxIteration: 3 });
    expect(error.argument).toBe("maxIteration");
    expect(error.message).toContain("unknown option `maxIteration`");
  });

  it("rejects an unknown key in `memory` (a typo such as `histryKey`), naming it", () => {
    const memory = { getMessages: async () => [], addMessages: async () => undefined };
    const error = errorOf({ memory: { memory, histryKey: "history" } as never });
    expect(error.argument).toBe("memory.histryKey");
    expect(error.message).toContain("unknown option `memory.histryKey`");
    expect(error.message).toContain("historyKey");
  });

  it.each([undefined, null, "agent"])("rejects options that are not an object (%s)", (value) => {
    expect(() => new AgentExecutor(value as never)).toThrow("AgentExecutor: expected an options object `{ agent, tools, ...options }`.");
  });

  it("rejects a missing agent or missing tools, naming them", () => {
    expect(errorOf({ agent: undefined }).message).toContain("`agent` must be a @langchain/core Runnable");
    // An agent type is not an agent: the message says to call its create().
    expect(errorOf({ agent: toolCallingAgentType as never }).message).toBe(
      'AgentExecutor: `agent` is the agent type "tool-calling", not an agent: make one with its create(), e.g. new AgentExecutor({ agent: agentType.create({ llm, tools }), tools }).',
    );
    expect(errorOf({ tools: undefined }).message).toContain("`tools` must be an array");
  });

  it("refuses a chat model given as the agent, bare or wrapped, pointing to the agents that use one", () => {
    const llm = new ScriptedChatModel({ responses: ["hi"] });
    for (const agent of [llm, llm.bindTools([echoTool]), llm.withRetry()]) {
      expect(errorOf({ agent: agent as never }).message).toBe(
        "AgentExecutor: `agent` is a chat model, not an agent: make an agent of it, e.g. createToolCallingAgent({ llm, tools, prompt }) from @agentrx/agents, or use createAgentExecutor({ model, tools }), which does.",
      );
    }
  });

  it("rejects duplicate tool names", () => {
    const error = errorOf({ tools: [echoTool, echoTool] });
    expect(error.argument).toBe("tools");
    expect(error.message).toBe('AgentExecutor: `tools[0]` and `tools[1]` are both named "echo"; tool names must be unique. Rename one of them.');
  });

  it("rejects an agent that is not a runnable and tools that are not tools, saying what is wrong with the entry", () => {
    expect(errorOf({ agent: (() => undefined) as never }).argument).toBe("agent");
    expect(errorOf({ tools: [{ name: "x" }] as never }).argument).toBe("tools");
    expect(errorOf({ tools: "echo" as never }).argument).toBe("tools");
    expect(errorOf({ tools: "echo" as never }).message).toBe("AgentExecutor: `tools` must be an array of @langchain/core tools (use [] for none), got a string.");
    const every = "Every tool needs a non-empty string `name` and an `invoke` method (tool() from @langchain/core/tools makes one).";
    expect(errorOf({ tools: [echoTool, { name: "x" }] as never }).message).toBe(`AgentExecutor: \`tools[1]\` is not a @langchain/core tool: "x" has no \`invoke\` method. ${every}`);
    expect(errorOf({ tools: [null] as never }).message).toBe(`AgentExecutor: \`tools[0]\` is not a @langchain/core tool: it is null. ${every}`);
    expect(errorOf({ tools: [{ invoke: () => "" }] as never }).message).toBe(`AgentExecutor: \`tools[0]\` is not a @langchain/core tool: it has no \`name\`. ${every}`);
    expect(errorOf({ tools: [{ name: 5, invoke: () => "" }] as never }).message).toBe(`AgentExecutor: \`tools[0]\` is not a @langchain/core tool: its \`name\` is a number, not a string. ${every}`);
    // An empty name was taken here before (the agent constructors refused it): a model cannot call it.
    expect(errorOf({ tools: [{ name: "", invoke: () => "" }] as never }).message).toBe(`AgentExecutor: \`tools[0]\` is not a @langchain/core tool: its \`name\` is empty. ${every}`);
  });

  it("accepts every documented value", () => {
    expect(
      () =>
        new AgentExecutor({
          agent,
          tools: [echoTool],
          maxIterations: 0,
          maxExecutionTime: 0,
          earlyStoppingMethod: "generate",
          handleParsingErrors: "retry",
          handleToolRuntimeErrors: () => "x",
          trimIntermediateSteps: (steps) => steps,
          returnIntermediateSteps: true,
          maxConcurrency: Number.POSITIVE_INFINITY,
          stopWhen: [],
        }),
    ).not.toThrow();
  });
});

describe("trimIntermediateSteps", () => {
  const turns = () => [act("echo", { text: "1" }), act("echo", { text: "2" }), act("echo", { text: "3" }), finish("done")];
  const seen = (inputs: { steps: AgentStep[] }[]) => inputs.map((input) => input.steps.map((step) => step.observation).join(""));

  it("a number N > 0 shows the agent the last N steps only; the result keeps all", async () => {
    const { agent, inputs } = scriptedAgent(turns());
    const [result] = await collect(
      new AgentExecutor({ agent, tools: [echoTool], trimIntermediateSteps: 2, returnIntermediateSteps: true }).invoke({ input: "go" }),
    );
    expect(seen(inputs)).toEqual(["", "1", "12", "23"]);
    expect(result?.intermediateSteps).toHaveLength(3);
  });

  it.each([0, -1, -7])("%s trims nothing", async (value) => {
    const { agent, inputs } = scriptedAgent(turns());
    await collect(new AgentExecutor({ agent, tools: [echoTool], trimIntermediateSteps: value }).invoke({ input: "go" }));
    expect(seen(inputs)).toEqual(["", "1", "12", "123"]);
  });

  it("a function is called before every agent call with all steps, the empty list included", async () => {
    const { agent, inputs } = scriptedAgent(turns());
    const calls: number[] = [];
    const executor = new AgentExecutor({
      agent,
      tools: [echoTool],
      trimIntermediateSteps: (steps) => {
        calls.push(steps.length);
        return steps.filter((step) => step.observation !== "2");
      },
    });
    const events = await collect(executor.stream({ input: "go" }));
    expect(calls).toEqual([0, 1, 2, 3]);
    expect(seen(inputs)).toEqual(["", "1", "1", "13"]);
    expect(events.filter((event) => event.type === "step")).toHaveLength(3);
  });

  it("a function that returns something other than an array (it forgot to return) fails the run, naming the option", async () => {
    const { agent, inputs } = scriptedAgent(turns());
    const executor = new AgentExecutor({ agent, tools: [echoTool], trimIntermediateSteps: (() => undefined) as never });
    const error = await executor.invoke({ input: "go" }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(InvalidArgumentError.isInstance(error) && error.argument).toBe("trimIntermediateSteps");
    expect((error as Error).message).toContain("`trimIntermediateSteps` must return an array of steps");
    expect(inputs).toHaveLength(0);
  });
});

describe("invoke/stream config validation", () => {
  const executor = new AgentExecutor({ agent: scriptedAgent([finish("hi"), finish("hi")]).agent, tools: [] });

  async function configError(config: unknown, method: "invoke" | "stream" = "invoke"): Promise<InvalidArgumentError> {
    const run = method === "invoke" ? executor.invoke({ input: "x" }, config as never) : executor.stream({ input: "x" }, config as never);
    const error = await collect<unknown>(run).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    if (InvalidArgumentError.isInstance(error)) return error;
    throw new Error(`expected an InvalidArgumentError, got ${String(error)}`);
  }

  it.each([
    [{ runId: "" }, "config.runId", /`runId` must be a non-empty string, got ""/],
    [{ runId: 5 }, "config.runId", /`runId` must be a non-empty string, got 5/],
    [{ signal: {} }, "config.signal", /`signal` must be an AbortSignal/],
    [{ signal: "stop" }, "config.signal", /`signal` must be an AbortSignal \(e\.g\. new AbortController\(\)\.signal\), got "stop"/],
    [{ configurable: "x" }, "config.configurable", /`configurable` must be an object/],
    [{ configurable: null }, "config.configurable", /`configurable` must be an object/],
    [{ timeout: -1 }, "config.timeout", /`timeout` must be a number of milliseconds > 0/],
    [{ timeout: "10s" }, "config.timeout", /`timeout` must be a number of milliseconds > 0/],
    [{ tags: "prod" }, "config.tags", /`tags` must be an array of strings/],
    [{ metadata: "x" }, "config.metadata", /`metadata` must be an object/],
    [{ callbacks: 5 }, "config.callbacks", /`callbacks` must be an array of callback handlers or a CallbackManager, got 5/],
    [{ callbacks: [null] }, "config.callbacks", /`callbacks` must be an array of callback handlers/],
  ])("rejects %j, naming the setting", async (config, argument, message) => {
    for (const method of ["invoke", "stream"] as const) {
      const error = await configError(config, method);
      expect(error.argument).toBe(argument);
      expect(error.message).toMatch(message);
    }
  });

  it.each([null, "x", 5])("rejects a config that is not an object (%j)", async (config) => {
    const error = await configError(config);
    expect(error.argument).toBe("config");
    expect(error.message).toContain("`config` must be an object");
  });
});
