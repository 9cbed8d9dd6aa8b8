import { createToolCallingAgent } from "@agentrx/agents";
import { AbortError, EARLY_STOP_OUTPUT } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import type { AgentInput } from "@agentrx/core";
import { AgentExecutor } from "@agentrx/executors";
import { OutputParserException } from "@langchain/core/output_parsers";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { filter } from "rxjs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { act, collect, deferred, echoTool, finish, scriptedAgent } from "./test-helpers";

afterEach(() => {
  vi.useRealTimers();
});

describe("earlyStoppingMethod: generate", () => {
  it("makes exactly one more call with every step (untrimmed) and forceFinalAnswer: true", async () => {
    const { agent, inputs } = scriptedAgent([
      act("echo", { text: "1" }),
      act("echo", { text: "2" }),
      (input) => finish(`final from ${input.steps.length} steps, forced=${String(input.forceFinalAnswer)}`),
    ]);
    const executor = new AgentExecutor({
      agent,
      tools: [echoTool],
      maxIterations: 2,
      earlyStoppingMethod: "generate",
      trimIntermediateSteps: 1,
    });
    const events = await collect(executor.stream({ input: "go" }));
    expect(inputs).toHaveLength(3);
    expect(inputs.map((input) => input.steps.length)).toEqual([0, 1, 2]);
    expect(inputs[2]?.forceFinalAnswer).toBe(true);
    expect(inputs[1]?.forceFinalAnswer).toBeUndefined();
    expect(events.at(-1)).toMatchObject({
      type: "output",
      output: "final from 2 steps, forced=true",
      stopReason: "max_iterations",
    });
  });

  it("with maxIterations: 0 makes exactly one call", async () => {
    const { agent, inputs } = scriptedAgent([finish("generated"), finish("second")]);
    const [result] = await collect(
      new AgentExecutor({ agent, tools: [], maxIterations: 0, earlyStoppingMethod: "generate" }).invoke({ input: "go" }),
    );
    expect(inputs).toEqual([{ input: "go", steps: [], forceFinalAnswer: true }]);
    expect(result?.output).toBe("generated");
  });

  it("uses an action's log as the output when the agent still acts", async () => {
    const { agent } = scriptedAgent([act("echo", { text: "x" }, "I would search more")]);
    const [result] = await collect(
      new AgentExecutor({ agent, tools: [echoTool], maxIterations: 0, earlyStoppingMethod: "generate" }).invoke({ input: "go" }),
    );
    expect(result?.output).toBe("I would search more");
  });

  it("falls back to the force text when the action's log is empty", async () => {
    const { agent } = scriptedAgent([[act("echo", { text: "x" }, "")]]);
    const [result] = await collect(
      new AgentExecutor({ agent, tools: [echoTool], maxIterations: 0, earlyStoppingMethod: "generate" }).invoke({ input: "go" }),
    );
    expect(result?.output).toBe(EARLY_STOP_OUTPUT);
  });

  it("uses the llmOutput of a parsing error, else the force text", async () => {
    const withOutput = scriptedAgent([new OutputParserException("bad format", "raw model text")]);
    const [first] = await collect(
      new AgentExecutor({ agent: withOutput.agent, tools: [], maxIterations: 0, earlyStoppingMethod: "generate" }).invoke({ input: "go" }),
    );
    expect(first?.output).toBe("raw model text");
    const without = scriptedAgent([new OutputParserException("bad format")]);
    const [second] = await collect(
      new AgentExecutor({ agent: without.agent, tools: [], maxIterations: 0, earlyStoppingMethod: "generate" }).invoke({ input: "go" }),
    );
    expect(second?.output).toBe(EARLY_STOP_OUTPUT);
  });

  it("ends with a forced answer that says so when the generate call throws another error", async () => {
    const { agent } = scriptedAgent([new Error("model down")]);
    const events = await collect(new AgentExecutor({ agent, tools: [], maxIterations: 0, earlyStoppingMethod: "generate" }).stream({ input: "go" }));
    expect(events.at(-1)).toMatchObject({
      type: "output",
      stopReason: "max_iterations",
      output: "Agent stopped due to iteration limit or time limit. A final response could not be generated (Error: model down).",
      generateError: "Error: model down",
    });
    // `invoke`'s result carries it too; a generate call that answers leaves it out.
    const failing = scriptedAgent([new Error("model down")]);
    const result = await new AgentExecutor({ agent: failing.agent, tools: [], maxIterations: 0, earlyStoppingMethod: "generate" }).invoke({ input: "go" });
    expect(result).toMatchObject({ stopReason: "max_iterations", generateError: "Error: model down" });
    const answering = scriptedAgent([finish("late answer")]);
    const answered = await new AgentExecutor({ agent: answering.agent, tools: [], maxIterations: 0, earlyStoppingMethod: "generate" }).invoke({ input: "go" });
    expect(answered.output).toBe("late answer");
    expect(answered).not.toHaveProperty("generateError");
  });

  it("checks maxExecutionTime before every agent call, so synchronous work cannot outrun it", async () => {
    const busy = tool(
      () => {
        const until = Date.now() + 30;
        while (Date.now() < until) {
          // a tool that never yields to the event loop
        }
        return "done";
      },
      { name: "busy", description: "Blocks.", schema: z.object({}) },
    );
    const { agent, inputs } = scriptedAgent([act("busy"), act("busy"), act("busy"), act("busy"), finish("never")]);
    const [result] = await collect(new AgentExecutor({ agent, tools: [busy], maxExecutionTime: 5 }).invoke({ input: "go" }));
    expect(inputs).toHaveLength(1);
    expect(result?.output).toBe(EARLY_STOP_OUTPUT);
  });
});

describe("maxExecutionTime", () => {
  it("aborts a 1-second tool under a 100 ms limit and stops with max_execution_time", async () => {
    vi.useFakeTimers();
    const aborted = deferred<unknown>();
    const slow = tool(
      async (_input: Record<string, never>, config) => {
        config.signal?.addEventListener("abort", () => aborted.resolve(config.signal?.reason));
        await new Promise((resolve) => setTimeout(resolve, 1000));
        return "too late";
      },
      { name: "slow", description: "s", schema: z.object({}) },
    );
    const { agent, inputs } = scriptedAgent([act("echo", { text: "fast" }), act("slow"), finish("never")]);
    const executor = new AgentExecutor({ agent, tools: [echoTool, slow], maxExecutionTime: 100, returnIntermediateSteps: true });
    const done = collect(executor.stream({ input: "go" }));
    await vi.advanceTimersByTimeAsync(100);
    const all = await done;
    expect(await aborted.promise).toBeDefined();
    expect(all.at(-1)).toMatchObject({ type: "output", output: EARLY_STOP_OUTPUT, stopReason: "max_execution_time" });
    const output = all.at(-1);
    expect(output?.type === "output" && output.intermediateSteps?.map((step) => step.observation)).toEqual(["fast"]);
    expect(all.filter((event) => event.type === "step")).toHaveLength(1);
    expect(inputs).toHaveLength(2);
    expect(vi.getTimerCount()).toBe(1); // only the abandoned tool's own setTimeout remains
  });

  it("with 0 stops immediately without calling the agent", async () => {
    const { agent, inputs } = scriptedAgent([finish("never")]);
    const [, result] = await collect(new AgentExecutor({ agent, tools: [], maxExecutionTime: 0 }).stream({ input: "go" }));
    expect(inputs).toHaveLength(0);
    expect(result).toMatchObject({ type: "output", stopReason: "max_execution_time", output: EARLY_STOP_OUTPUT });
  });

  it("with 0 and generate makes exactly the one generate call", async () => {
    const { agent, inputs } = scriptedAgent([finish("generated"), finish("second")]);
    const [, output] = await collect(
      new AgentExecutor({ agent, tools: [], maxExecutionTime: 0, earlyStoppingMethod: "generate" }).stream({ input: "go" }),
    );
    expect(inputs).toEqual([{ input: "go", steps: [], forceFinalAnswer: true }]);
    expect(output).toMatchObject({ type: "output", output: "generated", stopReason: "max_execution_time" });
  });

  it("aborts an in-flight model call and still allows the one generate call", async () => {
    vi.useFakeTimers();
    const signals: AbortSignal[] = [];
    const agent = RunnableLambda.from(async (input: AgentInput, config) => {
      signals.push(config.signal as AbortSignal);
      if (input.forceFinalAnswer) return finish(`generated after ${input.steps.length} steps`);
      await new Promise((_resolve, reject) => config.signal?.addEventListener("abort", () => reject(config.signal?.reason)));
      return finish("never");
    });
    const done = collect(
      new AgentExecutor({ agent, tools: [], maxExecutionTime: 50, earlyStoppingMethod: "generate" }).invoke({ input: "go" }),
    );
    await vi.advanceTimersByTimeAsync(50);
    const [result] = await done;
    expect(result?.output).toBe("generated after 0 steps");
    expect(signals).toHaveLength(2);
    expect(signals[0]?.aborted).toBe(true);
    expect(signals[1]?.aborted).toBe(false);
  });

  it("keeps the steps of a turn's tools that finished before the limit, aborting the others", async () => {
    vi.useFakeTimers();
    const aborted = deferred<unknown>();
    const slow = tool(
      async (_input: Record<string, never>, config) =>
        new Promise<string>((_resolve, reject) =>
          config.signal?.addEventListener("abort", () => {
            aborted.resolve(config.signal?.reason);
            reject(config.signal?.reason);
          }),
        ),
      { name: "slow", description: "s", schema: z.object({}) },
    );
    const { agent, inputs } = scriptedAgent([[act("slow"), act("echo", { text: "quick" })], finish("never")]);
    const executor = new AgentExecutor({ agent, tools: [echoTool, slow], maxExecutionTime: 100, returnIntermediateSteps: true });
    const done = collect(executor.stream({ input: "go" }));
    await vi.advanceTimersByTimeAsync(100);
    const events = await done;
    expect(AbortError.isInstance(await aborted.promise)).toBe(true);
    const output = events.at(-1);
    expect(output).toMatchObject({ type: "output", stopReason: "max_execution_time", output: EARLY_STOP_OUTPUT });
    expect(output?.type === "output" && output.intermediateSteps?.map((step) => step.observation)).toEqual(["quick"]);
    expect(events.filter((event) => event.type === "step")).toHaveLength(1);
    expect(inputs).toHaveLength(1);
  });

  it("does not wait for a tool that ignores its signal", async () => {
    vi.useFakeTimers();
    const stubborn = tool(async () => new Promise<string>(() => undefined), { name: "stubborn", description: "s", schema: z.object({}) });
    const { agent } = scriptedAgent([act("stubborn")]);
    const done = collect(new AgentExecutor({ agent, tools: [stubborn], maxExecutionTime: 10 }).invoke({ input: "go" }));
    await vi.advanceTimersByTimeAsync(10);
    const [result] = await done;
    expect(result?.output).toBe(EARLY_STOP_OUTPUT);
  });
});

describe("iterations of a run cut short", () => {
  it("gives the generate call the iteration after the model call a stop condition cut short", async () => {
    const model = new ScriptedChatModel({
      streaming: true,
      responses: ["Thinking about it for a long time", "Short answer."],
    });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const agent = createToolCallingAgent({ llm: model, tools: [echoTool], prompt });
    const executor = new AgentExecutor({ agent, tools: [echoTool], earlyStoppingMethod: "generate" });
    const events = await collect(
      executor.stream({ input: "?" }, { stopWhen: (source) => source.pipe(filter((event) => event.type === "token")) }),
    );
    const tokens = events.filter((event) => event.type === "token");
    expect(tokens[0]).toMatchObject({ iteration: 0, text: "Thinking " });
    expect(tokens.slice(1).every((event) => event.iteration === 1)).toBe(true);
    expect(tokens.slice(1).map((event) => (event.type === "token" ? event.text : "")).join("")).toBe("Short answer.");
    expect(events.at(-1)).toMatchObject({ type: "output", output: "Short answer.", stopReason: "budget" });
  });
});
