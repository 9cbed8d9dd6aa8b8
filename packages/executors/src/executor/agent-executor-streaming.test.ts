import { InvalidArgumentError } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentStreamEvent, type StopCondition } from "@agentrx/executors";
import { HumanMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { filter, scan } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { act, collect, deferred, echoTool, finish, modelAgent, scriptedAgent } from "./test-helpers";

function brief(event: AgentStreamEvent): string {
  switch (event.type) {
    case "token":
      return `token#${event.iteration} ${`[${event.text}]`}`;
    case "usage":
      return `usage#${event.iteration} ${event.usage.total_tokens}`;
    case "action":
      return `action#${event.iteration} ${event.action.tool}`;
    case "step":
      return `step#${event.iteration} ${event.step.observation}`;
    case "output":
      return `output ${event.stopReason} ${`[${event.output}]`}`;
    case "start":
      return "start";
    case "interrupt":
      return `interrupt ${event.interrupts.map((interrupt) => interrupt.tool).join(",")}`;
    case "compaction":
    case "middleware":
      return event.type;
    case "message":
      return `message#${event.iteration} ${event.message.text}`;
  }
}

describe("token and usage events", () => {
  it("forwards the model's text deltas as token events, not tool-call argument deltas", async () => {
    const model = new ScriptedChatModel({
      responses: [
        { content: "Let me check.", toolCalls: [{ name: "echo", args: { text: "a long argument string" } }], usage: { inputTokens: 4, outputTokens: 6 } },
        { content: "It is sunny.", usage: { inputTokens: 10, outputTokens: 3 } },
      ],
    });
    const events = await collect(new AgentExecutor({ agent: modelAgent(model), tools: [echoTool] }).stream({ input: "weather?" }));
    expect(events.map(brief)).toMatchInlineSnapshot(`
      [
        "start",
        "token#0 [Let ]",
        "token#0 [me ]",
        "token#0 [check.]",
        "usage#0 10",
        "action#0 echo",
        "step#0 a long argument string",
        "token#1 [It ]",
        "token#1 [is ]",
        "token#1 [sunny.]",
        "usage#1 13",
        "output finish [It is sunny.]",
      ]
    `);
    expect(model.calls.every((call) => call.streamed)).toBe(true);
  });

  it("invoke does not make the model stream", async () => {
    const model = new ScriptedChatModel({ responses: ["plain answer"] });
    const [result] = await collect(new AgentExecutor({ agent: modelAgent(model), tools: [] }).invoke({ input: "hi" }));
    expect(result?.output).toBe("plain answer");
    expect(model.calls[0]?.streamed).toBe(false);
  });

  it("does not count tokens of a model that a tool calls", async () => {
    const inner = new ScriptedChatModel({ responses: ["inner words here"], streaming: true });
    const summarize = tool(async (_input: Record<string, never>, config) => (await inner.invoke("x", config)).text, {
      name: "summarize",
      description: "s",
      schema: z.object({}),
    });
    const { agent } = scriptedAgent([act("summarize"), finish("done")]);
    const events = await collect(
      new AgentExecutor({ agent, tools: [summarize] }).stream({ input: "go" }, { callbacks: [{ handleLLMNewToken: () => undefined }] }),
    );
    expect(inner.calls).toHaveLength(1);
    expect(events.filter((event) => event.type === "token")).toEqual([]);
    expect(events.filter((event) => event.type === "step")[0]).toMatchObject({ step: { observation: "inner words here" } });
  });

  it("delivers each token to the subscriber before the model produces the next one", async () => {
    const log: string[] = [];
    class LoggingModel extends ScriptedChatModel {
      override async *_streamResponseChunks(...args: Parameters<ScriptedChatModel["_streamResponseChunks"]>) {
        for await (const chunk of super._streamResponseChunks(...args)) {
          if (chunk.text) log.push(`model ${chunk.text.trim()}`);
          yield chunk;
        }
      }
    }
    const model = new LoggingModel({ responses: ["one two three"] });
    const executor = new AgentExecutor({ agent: modelAgent(model), tools: [] });
    await new Promise<void>((resolve, reject) =>
      executor.stream({ input: "hi" }).subscribe({
        next: (event) => {
          if (event.type === "token") log.push(`subscriber ${event.text.trim()}`);
        },
        error: reject,
        complete: resolve,
      }),
    );
    expect(log).toEqual(["model one", "subscriber one", "model two", "subscriber two", "model three", "subscriber three"]);
  });
});

describe("stopWhen", () => {
  const onTool =
    (name: string): StopCondition =>
    (events) =>
      events.pipe(filter((event) => event.type === "action" && event.action.tool === name));

  it("ends the run gracefully with stopReason budget; the flagged tool never runs", async () => {
    const ran: string[] = [];
    const danger = tool(async () => (ran.push("danger"), "boom"), { name: "danger", description: "d", schema: z.object({}) });
    const { agent, inputs } = scriptedAgent([act("echo", { text: "safe" }), act("danger"), finish("never")]);
    const executor = new AgentExecutor({ agent, tools: [echoTool, danger], stopWhen: onTool("danger"), returnIntermediateSteps: true });
    const events = await collect(executor.stream({ input: "go" }));
    expect(ran).toEqual([]);
    expect(inputs).toHaveLength(2);
    expect(events.map(brief)).toMatchInlineSnapshot(`
      [
        "start",
        "action#0 echo",
        "step#0 safe",
        "action#1 danger",
        "output budget [Agent stopped: a stop condition ended the run.]",
      ]
    `);
  });

  it("accepts conditions per call in the config, next to the constructor's", async () => {
    const { agent } = scriptedAgent([act("echo", { text: "x" }), finish("done")]);
    const executor = new AgentExecutor({ agent, tools: [echoTool] });
    const [result] = await collect(executor.invoke({ input: "go" }, { stopWhen: [onTool("echo")] }));
    expect(result?.output).toBe("Agent stopped: a stop condition ended the run.");
    const second = scriptedAgent([act("echo", { text: "x" }), finish("done")]);
    const [plain] = await collect(new AgentExecutor({ agent: second.agent, tools: [echoTool] }).invoke({ input: "go" }));
    expect(plain?.output).toBe("done");
  });

  it("sees usage events under invoke, so a token budget works without stream()", async () => {
    const model = new ScriptedChatModel({
      responses: [{ toolCalls: [{ name: "echo", args: { text: "a" } }], usage: { inputTokens: 50, outputTokens: 60 } }, "never"],
    });
    const tokenBudget: StopCondition = (events) =>
      events.pipe(
        scan((total, event) => total + (event.type === "usage" ? event.usage.total_tokens : 0), 0),
        filter((total) => total > 100),
      );
    const executor = new AgentExecutor({ agent: modelAgent(model), tools: [echoTool], returnIntermediateSteps: true });
    const [result] = await collect(executor.invoke({ input: "go" }, { stopWhen: tokenBudget }));
    expect(model.calls).toHaveLength(1);
    expect(result?.intermediateSteps).toEqual([]);
  });

  it("cancels tools in flight and keeps the steps completed before the stop", async () => {
    const aborted = deferred<unknown>();
    const hang = tool(
      async (_input: Record<string, never>, config) => {
        config.signal?.addEventListener("abort", () => aborted.resolve(config.signal?.reason));
        return new Promise<string>(() => undefined);
      },
      { name: "hang", description: "h", schema: z.object({}) },
    );
    const afterFirstStep: StopCondition = (events) => events.pipe(filter((event) => event.type === "step"));
    const { agent } = scriptedAgent([[act("hang"), act("echo", { text: "quick" })], finish("never")]);
    const executor = new AgentExecutor({ agent, tools: [hang, echoTool], stopWhen: afterFirstStep, returnIntermediateSteps: true });
    const events = await collect(executor.stream({ input: "go" }));
    await aborted.promise;
    const output = events.at(-1);
    expect(output).toMatchObject({ type: "output", stopReason: "budget" });
    expect(output?.type === "output" && output.intermediateSteps?.map((step) => step.observation)).toEqual(["quick"]);
  });

  it("goes through generate when that is the early-stopping method", async () => {
    const { agent, inputs } = scriptedAgent([act("echo", { text: "x" }), (input) => finish(`forced=${String(input.forceFinalAnswer)}`)]);
    const executor = new AgentExecutor({ agent, tools: [echoTool], earlyStoppingMethod: "generate", stopWhen: onTool("echo") });
    const events = await collect(executor.stream({ input: "go" }));
    expect(events.at(-1)).toMatchObject({ type: "output", output: "forced=true", stopReason: "budget" });
    expect(inputs[1]?.steps).toEqual([]);
  });

  it("a condition that errors fails the run", async () => {
    const { agent } = scriptedAgent([act("echo", { text: "x" }), finish("done")]);
    const broken: StopCondition = (events) =>
      events.pipe(
        filter((event) => {
          if (event.type === "step") throw new Error("condition bug");
          return false;
        }),
      );
    await expect(collect(new AgentExecutor({ agent, tools: [echoTool], stopWhen: broken }).invoke({ input: "go" }))).rejects.toThrow(
      "condition bug",
    );
  });

  it("a condition that returns no Observable fails the run with an error naming stopWhen, before the agent is called", async () => {
    const { agent, inputs } = scriptedAgent([act("echo", { text: "x" }), finish("done")]);
    const notObservable = (() => true) as unknown as StopCondition;
    const error = await collect(new AgentExecutor({ agent, tools: [echoTool], stopWhen: notObservable }).invoke({ input: "go" })).then(() => undefined, (e: unknown) => e);
    expect(InvalidArgumentError.isInstance(error) && error.argument).toBe("stopWhen");
    expect((error as Error).message).toBe("A `stopWhen` condition must return an Observable (events$) => Observable, emitting when the run should stop; got boolean.");
    expect(inputs).toHaveLength(0);
  });
});

describe("tokens of a model call the run halted", () => {
  it("never reach the \"generate\" call's stream, and its usage keeps its own iteration", async () => {
    // The halted call's model ignores its signal (as a client that checks it only when it connects) and streams on.
    const slow = new ScriptedChatModel({ streaming: true, tokenDelayMs: 20, responses: ["aaa bbb ccc ddd eee fff ggg hhh"] });
    const final = new ScriptedChatModel({ streaming: true, tokenDelayMs: 40, responses: ["The final answer is here."] });
    const agent = RunnableLambda.from(async (input: { forceFinalAnswer?: boolean }, config) => {
      const model = input.forceFinalAnswer === true ? final : slow;
      const message = await model.invoke([new HumanMessage("x")], input.forceFinalAnswer === true ? config : { ...config, signal: undefined });
      return { returnValues: { output: message.text }, log: message.text };
    });
    const executor = new AgentExecutor({ agent, tools: [], maxExecutionTime: 50, earlyStoppingMethod: "generate" });
    const events = await collect(executor.stream({ input: "x" }));
    const tokens = events.filter((event): event is Extract<AgentStreamEvent, { type: "token" }> => event.type === "token");
    expect(tokens.filter((event) => event.iteration === 1).map((event) => event.text).join("")).toBe("The final answer is here.");
    expect(tokens.filter((event) => event.iteration !== 1).every((event) => event.iteration === 0 && "aaa bbb ccc ddd".includes(event.text.trim()))).toBe(true);
    const usage = events.filter((event) => event.type === "usage").map((event) => event.iteration);
    expect(usage).toContain(1);
    expect(events.at(-1)).toMatchObject({ type: "output", output: "The final answer is here.", stopReason: "max_execution_time" });
  });
});
