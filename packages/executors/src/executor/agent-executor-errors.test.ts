import { EXCEPTION_TOOL_NAME, InvalidArgumentError, InvalidToolArgumentsException } from "@agentrx/core";
import { AgentExecutor, type AgentStreamEvent } from "@agentrx/executors";
import { HumanMessage } from "@langchain/core/messages";
import { OutputParserException } from "@langchain/core/output_parsers";
import { DynamicTool, tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { act, collect, echoTool, finish, scriptedAgent } from "./test-helpers";

const badOutput = () => new OutputParserException("Could not parse LLM output: gibberish", "gibberish");
const toldOutput = () =>
  new OutputParserException("Missing Action", "Thought: hmm", "Invalid Format: Missing 'Action:' after 'Thought:'", true);

describe("handleParsingErrors", () => {
  it("false: the run fails with the exception", async () => {
    const { agent } = scriptedAgent([badOutput()]);
    await expect(collect(new AgentExecutor({ agent, tools: [] }).invoke({ input: "go" }))).rejects.toBeInstanceOf(
      OutputParserException,
    );
  });

  it("false: unusable tool-call arguments never fail the run; the model is told what to fix", async () => {
    const badArguments = () =>
      new InvalidToolArgumentsException({
        toolName: "echo",
        rawArguments: '{"text": "hi',
        problem: "invalid JSON: Unterminated string",
        llmOutput: 'Invoking "echo" with {"text": "hi',
      });
    const { agent, inputs } = scriptedAgent([badArguments(), finish("fixed")]);
    const [result] = await collect(new AgentExecutor({ agent, tools: [echoTool] }).invoke({ input: "go" }));
    expect(result?.output).toBe("fixed");
    expect(inputs[1]?.steps).toEqual([
      {
        action: { tool: EXCEPTION_TOOL_NAME, toolInput: badArguments().observation, log: 'Invoking "echo" with {"text": "hi' },
        observation: 'Your call to tool "echo" could not be read: invalid JSON: Unterminated string. Call the tool again with its arguments as one valid JSON object.',
      },
    ]);
    const { agent: again } = scriptedAgent([badArguments(), finish("fixed")]);
    const [custom] = await collect(
      new AgentExecutor({ agent: again, tools: [echoTool], handleParsingErrors: "Try again.", returnIntermediateSteps: true }).invoke({ input: "go" }),
    );
    expect(custom?.intermediateSteps?.[0]?.observation).toBe("Try again.");
  });

  it("true: sends the exception's observation when sendToLLM is set", async () => {
    const { agent, inputs } = scriptedAgent([toldOutput(), finish("ok")]);
    await collect(new AgentExecutor({ agent, tools: [], handleParsingErrors: true }).invoke({ input: "go" }));
    expect(inputs[1]?.steps).toEqual([
      {
        action: { tool: EXCEPTION_TOOL_NAME, toolInput: "Invalid Format: Missing 'Action:' after 'Thought:'", log: "Thought: hmm" },
        observation: "Invalid Format: Missing 'Action:' after 'Thought:'",
      },
    ]);
  });

  it("true: sends 'Invalid or incomplete response' otherwise, logging the raw output", async () => {
    const { agent, inputs } = scriptedAgent([badOutput(), finish("ok")]);
    await collect(new AgentExecutor({ agent, tools: [], handleParsingErrors: true }).invoke({ input: "go" }));
    expect(inputs[1]?.steps[0]).toEqual({
      action: { tool: "_Exception", toolInput: "Invalid or incomplete response", log: "gibberish" },
      observation: "Invalid or incomplete response",
    });
  });

  it("logs the exception message when it carries no raw output", async () => {
    const { agent, inputs } = scriptedAgent([new OutputParserException("no output here"), finish("ok")]);
    await collect(new AgentExecutor({ agent, tools: [], handleParsingErrors: true }).invoke({ input: "go" }));
    expect(inputs[1]?.steps[0]?.action.log).toContain("no output here");
  });

  it("a string: sends that string", async () => {
    const { agent, inputs } = scriptedAgent([badOutput(), finish("ok")]);
    await collect(new AgentExecutor({ agent, tools: [], handleParsingErrors: "Use the right format!" }).invoke({ input: "go" }));
    expect(inputs[1]?.steps[0]?.observation).toBe("Use the right format!");
  });

  it("a function: sends its return value", async () => {
    const { agent, inputs } = scriptedAgent([badOutput(), finish("ok")]);
    const executor = new AgentExecutor({
      agent,
      tools: [],
      handleParsingErrors: (error) => `fix: ${error.llmOutput ?? ""}`,
    });
    await collect(executor.invoke({ input: "go" }));
    expect(inputs[1]?.steps[0]?.observation).toBe("fix: gibberish");
  });

  it("a function that returns something other than a string: the model is sent it as JSON, as a tool's result", async () => {
    const { agent, inputs } = scriptedAgent([badOutput(), finish("ok")]);
    const executor = new AgentExecutor({ agent, tools: [], handleParsingErrors: (() => ({ retry: true })) as never });
    await collect(executor.invoke({ input: "go" }));
    expect(inputs[1]?.steps[0]?.observation).toBe('{"retry":true}');
  });

  it("a function that returns a Promise or nothing fails the run naming the option, rather than sending \"{}\" or \"undefined\"", async () => {
    for (const [handler, got] of [[async () => "try again", "a Promise"], [() => undefined, "undefined"]] as const) {
      const { agent, inputs } = scriptedAgent([badOutput(), finish("ok")]);
      const executor = new AgentExecutor({ agent, tools: [], handleParsingErrors: handler as never });
      const error = await collect(executor.invoke({ input: "go" })).then(() => undefined, (e: unknown) => e);
      expect(InvalidArgumentError.isInstance(error) && error.argument).toBe("handleParsingErrors");
      expect((error as Error).message).toBe(`\`handleParsingErrors\` must return the text the model reads (synchronously), got ${got}.`);
      expect(inputs).toHaveLength(1); // the agent was not called again
    }
  });

  it("emits a step event for the _Exception step and no action event", async () => {
    const { agent } = scriptedAgent([badOutput(), finish("ok")]);
    const events = await collect(new AgentExecutor({ agent, tools: [], handleParsingErrors: true }).stream({ input: "go" }));
    expect(events.map((event) => event.type)).toEqual(["start", "step", "output"]);
    const step = events[1] as Extract<AgentStreamEvent, { type: "step" }>;
    expect(step.iteration).toBe(0);
    expect(step.step.action.tool).toBe("_Exception");
    expect(step.messages[0]).toBeInstanceOf(HumanMessage);
  });

  it("counts a parsing-error step as an iteration", async () => {
    const { agent, inputs } = scriptedAgent([badOutput(), badOutput(), finish("never")]);
    const events = await collect(
      new AgentExecutor({ agent, tools: [], handleParsingErrors: true, maxIterations: 2, returnIntermediateSteps: true }).stream({
        input: "go",
      }),
    );
    expect(inputs).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: "output", stopReason: "max_iterations" });
    const output = events.at(-1);
    expect(output?.type === "output" && output.intermediateSteps).toHaveLength(2);
  });

  it("other agent errors always fail the run", async () => {
    const { agent } = scriptedAgent([new TypeError("bug in agent")]);
    await expect(
      collect(new AgentExecutor({ agent, tools: [], handleParsingErrors: true }).invoke({ input: "go" })),
    ).rejects.toThrow("bug in agent");
  });
});

const failing = tool(
  async () => {
    throw new Error("disk on fire");
  },
  { name: "failing", description: "f", schema: z.object({}) },
);

describe("handleToolRuntimeErrors", () => {
  it("true (default): the observation names the tool and contains the error message", async () => {
    const { agent, inputs } = scriptedAgent([act("failing"), finish("ok")]);
    await collect(new AgentExecutor({ agent, tools: [failing] }).invoke({ input: "go" }));
    const observation = inputs[1]?.steps[0]?.observation ?? "";
    expect(observation).toContain('"failing"');
    expect(observation).toContain("disk on fire");
  });

  it("a function: its return value is the observation", async () => {
    const { agent, inputs } = scriptedAgent([act("failing"), finish("ok")]);
    const executor = new AgentExecutor({
      agent,
      tools: [failing],
      handleToolRuntimeErrors: (error, action) => `${action.tool} said ${error.message}`,
    });
    await collect(executor.invoke({ input: "go" }));
    expect(inputs[1]?.steps[0]?.observation).toBe("failing said disk on fire");
  });

  it("false: the run fails with the tool's error", async () => {
    const { agent } = scriptedAgent([act("failing"), finish("ok")]);
    await expect(
      collect(new AgentExecutor({ agent, tools: [failing], handleToolRuntimeErrors: false }).invoke({ input: "go" })),
    ).rejects.toThrow("disk on fire");
  });
});

describe("tool input problems", () => {
  const add = tool(async ({ a, b }: { a: number; b: number }) => String(a + b), {
    name: "add",
    description: "Adds.",
    schema: z.object({ a: z.number(), b: z.number() }),
  });

  it("input that fails the schema becomes an observation naming the tool and the problem", async () => {
    const { agent, inputs } = scriptedAgent([act("add", { a: 1, b: "two" }), finish("ok")]);
    await collect(new AgentExecutor({ agent, tools: [add], handleToolRuntimeErrors: false }).invoke({ input: "go" }));
    const observation = inputs[1]?.steps[0]?.observation ?? "";
    expect(observation).toMatch(/^Invalid input for tool "add": /);
    expect(observation).toContain("expected number");
    expect(observation).toContain("b");
  });

  it("a string of JSON for a structured tool is parsed as its arguments", async () => {
    const { agent, inputs } = scriptedAgent([act("add", '{"a": 1, "b": 2}'), finish("ok")]);
    await collect(new AgentExecutor({ agent, tools: [add] }).invoke({ input: "go" }));
    expect(inputs[1]?.steps[0]?.observation).toBe("3");
  });

  it("a plain string for a structured tool becomes an observation naming the tool", async () => {
    const { agent, inputs } = scriptedAgent([act("add", "one plus two"), finish("ok")]);
    await collect(new AgentExecutor({ agent, tools: [add] }).invoke({ input: "go" }));
    expect(inputs[1]?.steps[0]?.observation).toBe(
      'Invalid input for tool "add": it takes an object of named arguments, but received the string "one plus two".\nCall "add" again with a JSON object of arguments.',
    );
  });

  it("never fails the run over bad input, even with handleToolRuntimeErrors: false", async () => {
    const { agent, inputs } = scriptedAgent([[act("add", "one plus two"), act("add", '{"a": "x"}'), act("add", { a: 1 })], finish("ok")]);
    const [result] = await collect(new AgentExecutor({ agent, tools: [add], handleToolRuntimeErrors: false }).invoke({ input: "go" }));
    expect(result?.output).toBe("ok");
    const observations = inputs[1]?.steps.map((step) => step.observation) ?? [];
    expect(observations).toHaveLength(3);
    for (const observation of observations) expect(observation).toMatch(/^Invalid input for tool "add": /);
  });

  it.each([
    ['{"a": 1, "b":', "invalid JSON: "],
    ["[1, 2]", "got an array"],
  ])("a string of broken JSON (%s) becomes an observation saying what is wrong with it", async (input, problem) => {
    const { agent, inputs } = scriptedAgent([act("add", input), finish("ok")]);
    await collect(new AgentExecutor({ agent, tools: [add], handleToolRuntimeErrors: false }).invoke({ input: "go" }));
    const observation = inputs[1]?.steps[0]?.observation ?? "";
    expect(observation).toContain(`Invalid input for tool "add": its arguments are not a valid JSON object (${problem}`);
    expect(observation).toContain(JSON.stringify(input));
  });

  it("a string tool still takes a plain string", async () => {
    const shout = new DynamicTool({ name: "shout", description: "s", func: async (text) => text.toUpperCase() });
    const { agent, inputs } = scriptedAgent([act("shout", "hello"), finish("ok")]);
    await collect(new AgentExecutor({ agent, tools: [shout, echoTool] }).invoke({ input: "go" }));
    expect(inputs[1]?.steps[0]?.observation).toBe("HELLO");
  });
});
