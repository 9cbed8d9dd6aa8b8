import { AbortError, STEP_METADATA_KEY, getStepMetadata } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentStreamEvent } from "@agentrx/executors";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { Runnable, RunnableLambda, RunnableSequence } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { act, collect, deferred, echoTool, finish, modelAgent, scriptedAgent } from "./test-helpers";

interface RunRecord {
  kind: "chain" | "tool" | "llm";
  name: string | undefined;
  runId: string;
  parentRunId: string | undefined;
  tags: string[] | undefined;
  metadata: Record<string, unknown> | undefined;
}

class RecordingHandler extends BaseCallbackHandler {
  name = "recording";
  readonly runs: RunRecord[] = [];
  readonly ended: string[] = [];
  override awaitHandlers = true;

  // @langchain/core calls this with (chain, inputs, runId, parentRunId, tags, metadata, runType,
  // runName), whatever its declaration says.
  override handleChainStart(
    _chain: unknown,
    _inputs: unknown,
    runId: string,
    parentRunId?: string,
    tags?: string[],
    metadata?: Record<string, unknown>,
    _runType?: string,
    runName?: string,
  ) {
    this.runs.push({ kind: "chain", name: runName, runId, parentRunId, tags, metadata });
  }

  override handleChainEnd(_outputs: unknown, runId: string) {
    this.ended.push(runId);
  }

  override handleToolStart(
    _tool: unknown,
    _input: string,
    runId: string,
    parentRunId?: string,
    tags?: string[],
    metadata?: Record<string, unknown>,
    runName?: string,
  ) {
    this.runs.push({ kind: "tool", name: runName, runId, parentRunId, tags, metadata });
  }

  override handleChatModelStart(
    _llm: unknown,
    _messages: unknown,
    runId: string,
    parentRunId?: string,
    _extra?: unknown,
    tags?: string[],
    metadata?: Record<string, unknown>,
    runName?: string,
  ) {
    this.runs.push({ kind: "llm", name: runName, runId, parentRunId, tags, metadata });
  }
}

describe("config passthrough", () => {
  it("callbacks see the agent and each tool as child runs of the executor's own run", async () => {
    const handler = new RecordingHandler();
    const model = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "echo", args: { text: "x" } }] }, "done"] });
    const executor = new AgentExecutor({ agent: modelAgent(model).withConfig({ runName: "my_agent" }), tools: [echoTool] });
    await collect(
      executor.invoke({ input: "go" }, { callbacks: [handler], tags: ["t1"], metadata: { user: "u1" }, runName: "my_executor" }),
    );
    const root = handler.runs.find((run) => run.name === "my_executor");
    expect(root).toBeDefined();
    expect(root?.parentRunId).toBeUndefined();
    expect(root?.tags).toEqual(["t1"]);
    expect(root?.metadata).toMatchObject({ user: "u1" });
    const agents = handler.runs.filter((run) => run.name === "my_agent");
    const tools = handler.runs.filter((run) => run.kind === "tool");
    expect(agents).toHaveLength(2);
    expect(tools.map((run) => run.name)).toEqual(["echo"]);
    for (const child of [...agents, ...tools]) {
      expect(child.parentRunId).toBe(root?.runId);
      expect(child.tags).toContain("t1");
      expect(child.metadata).toMatchObject({ user: "u1" });
    }
    const llms = handler.runs.filter((run) => run.kind === "llm");
    expect(llms).toHaveLength(2);
    expect(agents.map((run) => run.runId)).toContain(llms[0]?.parentRunId);
    expect(handler.ended).toContain(root?.runId);
  });

  it.each([
    ["invoke without callbacks", "invoke", false],
    ["stream without callbacks", "stream", false],
    ["invoke with callbacks", "invoke", true],
    ["stream with callbacks", "stream", true],
  ] as const)("passes tags and metadata on to the agent's and the tools' config (%s)", async (_name, method, withCallbacks) => {
    const seen: unknown[] = [];
    const probe = tool(
      async (_input: Record<string, never>, config) => {
        seen.push(["tool", config.tags, config.metadata?.["user"]]);
        return "ok";
      },
      { name: "probe", description: "p", schema: z.object({}) },
    );
    const agent = RunnableLambda.from((input: { steps: unknown[] }, config) => {
      seen.push(["agent", config?.tags, config?.metadata?.["user"]]);
      return input.steps.length ? finish("done") : act("probe");
    });
    const config = { tags: ["t1"], metadata: { user: "u1" }, ...(withCallbacks ? { callbacks: [new RecordingHandler()] } : {}) };
    const executor = new AgentExecutor({ agent, tools: [probe] });
    await (method === "invoke" ? collect(executor.invoke({ input: "go" }, config)) : collect(executor.stream({ input: "go" }, config)));
    expect(seen).toEqual([
      ["agent", ["t1"], "u1"],
      ["tool", ["t1"], "u1"],
      ["agent", ["t1"], "u1"],
    ]);
  });

  it("fails the run, rather than hanging, when a raiseError handler throws at the end of the run", async () => {
    class Refusing extends BaseCallbackHandler {
      name = "refusing";
      override raiseError = true;
      override awaitHandlers = true;
      override handleChainEnd(_outputs: unknown, _runId: string, parentRunId?: string) {
        if (parentRunId === undefined) throw new Error("handler refuses the output");
      }
    }
    const { agent } = scriptedAgent([finish("done")]);
    await expect(
      collect(new AgentExecutor({ agent, tools: [] }).invoke({ input: "go" }, { callbacks: [new Refusing()] })),
    ).rejects.toThrow("handler refuses the output");
  });

  it("passes configurable on to the agent and the tools", async () => {
    const seen: unknown[] = [];
    const probe = tool(
      async (_input: Record<string, never>, config) => {
        seen.push(config.configurable?.["tenant"]);
        return "ok";
      },
      { name: "probe", description: "p", schema: z.object({}) },
    );
    const agent = RunnableLambda.from((input: { steps: unknown[] }, config) => {
      seen.push(config?.configurable?.["tenant"]);
      return input.steps.length ? finish("done") : act("probe");
    });
    await collect(new AgentExecutor({ agent, tools: [probe] }).invoke({ input: "go" }, { configurable: { tenant: "acme" } }));
    expect(seen).toEqual(["acme", "acme", "acme"]);
  });

  it("gives each tool call a fresh step-metadata record and reports it in the step event", async () => {
    const records: unknown[] = [];
    const measured = tool(
      async ({ n }: { n: number }, config) => {
        const metadata = getStepMetadata(config);
        records.push(metadata);
        if (metadata && n > 1) metadata.attempts = n;
        return String(n);
      },
      { name: "measured", description: "m", schema: z.object({ n: z.number() }) },
    );
    const { agent } = scriptedAgent([[act("measured", { n: 1 }), act("measured", { n: 2 })], finish("done")]);
    const events = await collect(new AgentExecutor({ agent, tools: [measured] }).stream({ input: "go" }));
    expect(records).toHaveLength(2);
    expect(records[0]).not.toBe(records[1]);
    const steps = events.filter((event): event is Extract<AgentStreamEvent, { type: "step" }> => event.type === "step");
    const byObservation = Object.fromEntries(steps.map((event) => [event.step.observation, event]));
    expect(byObservation["1"]).not.toHaveProperty("metadata");
    expect(byObservation["2"]?.metadata).toEqual({ attempts: 2 });
    expect(STEP_METADATA_KEY).toBe("__agentrx_step_metadata");
  });
});

describe("callbacks and streaming together", () => {
  it("forwards tokens when the caller passes callbacks too, and the caller's handler sees them", async () => {
    const seen: string[] = [];
    const model = new ScriptedChatModel({ responses: ["hello there"] });
    const events = await collect(
      new AgentExecutor({ agent: modelAgent(model), tools: [] }).stream(
        { input: "hi" },
        { callbacks: [{ handleLLMNewToken: (token: string) => void seen.push(token) }] },
      ),
    );
    expect(events.filter((event) => event.type === "token").map((event) => event.type === "token" && event.text)).toEqual([
      "hello ",
      "there",
    ]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(seen.join("")).toBe("hello there");
  });

  it("reports a failed run to the callbacks as an error of the executor's run", async () => {
    const handler = new RecordingHandler();
    const errors: string[] = [];
    handler.handleChainError = (error: Error, runId: string) => void errors.push(`${runId}:${error.message}`);
    const { agent } = scriptedAgent([new Error("agent broke")]);
    await expect(collect(new AgentExecutor({ agent, tools: [] }).invoke({ input: "go" }, { callbacks: [handler] }))).rejects.toThrow(
      "agent broke",
    );
    const root = handler.runs.find((run) => run.name === "AgentExecutor");
    expect(errors).toContain(`${root?.runId}:agent broke`);
  });
});

describe("asRunnable", () => {
  it("is a @langchain/core Runnable with a Promise invoke and an async-iterable stream of events", async () => {
    const { agent } = scriptedAgent([act("echo", { text: "a" }), finish("done"), finish("again")]);
    const runnable = new AgentExecutor({ agent, tools: [echoTool] }).asRunnable();
    expect(Runnable.isRunnable(runnable)).toBe(true);
    const events: string[] = [];
    for await (const event of await runnable.stream({ input: "go" })) {
      expectTypeOf(event).toEqualTypeOf<AgentStreamEvent>();
      events.push(event.type);
    }
    expect(events).toEqual(["start", "action", "step", "output"]);
    const result = await runnable.invoke({ input: "go" });
    expect(result.output).toBe("again");
  });

  it("cancels the run when the consumer stops iterating", async () => {
    const aborted = deferred<unknown>();
    const hang = tool(
      async (_input: Record<string, never>, config) => {
        config.signal?.addEventListener("abort", () => aborted.resolve(config.signal?.reason));
        return new Promise<string>(() => undefined);
      },
      { name: "hang", description: "h", schema: z.object({}) },
    );
    const { agent } = scriptedAgent([act("hang")]);
    const runnable = new AgentExecutor({ agent, tools: [hang] }).asRunnable();
    for await (const event of await runnable.stream({ input: "go" })) {
      if (event.type === "action") break;
    }
    expect(await aborted.promise).toBeDefined();
  });

  it("stream() aborted through config.signal fails with the executor's AbortError carrying the signal's reason, as invoke() does", async () => {
    const hang = tool(async (_input: Record<string, never>, config) => new Promise<string>((_, reject) => config.signal?.addEventListener("abort", () => reject(new Error("stopped")))), {
      name: "hang",
      description: "h",
      schema: z.object({}),
    });
    const { agent } = scriptedAgent([act("hang"), act("hang")]);
    const runnable = new AgentExecutor({ agent, tools: [hang] }).asRunnable();
    for (const reason of ["user pressed stop", undefined]) {
      const controller = new AbortController();
      const seen: string[] = [];
      const failure = await (async () => {
        for await (const event of await runnable.stream({ input: "go" }, { signal: controller.signal })) {
          seen.push(event.type);
          if (event.type === "action") controller.abort(reason);
        }
      })().catch((error: unknown) => error);
      expect(seen).toEqual(["start", "action"]);
      expect(AbortError.isInstance(failure)).toBe(true);
      expect((failure as AbortError).reason).toBe(controller.signal.reason);
    }
  });

  it("streams its events as the last step of a RunnableSequence, as a child run of the sequence", async () => {
    const handler = new RecordingHandler();
    const { agent } = scriptedAgent([act("echo", { text: "a" }), finish("done")]);
    const chain = RunnableSequence.from([
      RunnableLambda.from((question: string) => ({ input: question })),
      new AgentExecutor({ agent, tools: [echoTool] }).asRunnable(),
    ]);
    const types: string[] = [];
    for await (const event of await chain.stream("hi", { callbacks: [handler] })) types.push((event as unknown as AgentStreamEvent).type);
    expect(types).toEqual(["start", "action", "step", "output"]);
    const sequence = handler.runs.find((run) => run.kind === "chain" && run.parentRunId === undefined);
    const executorRun = handler.runs.find((run) => run.name === "AgentExecutor");
    expect(executorRun?.parentRunId).toBe(sequence?.runId);
    const tools = handler.runs.filter((run) => run.kind === "tool");
    expect(tools.map((run) => run.parentRunId)).toEqual([executorRun?.runId]);
  });

  it("composes in a RunnableSequence", async () => {
    const { agent } = scriptedAgent([finish("composed")]);
    const chain = RunnableLambda.from((question: string) => ({ input: question }))
      .pipe(new AgentExecutor({ agent, tools: [] }).asRunnable())
      .pipe(RunnableLambda.from((result: { output: string }) => result.output.toUpperCase()));
    expect(await chain.invoke("hi")).toBe("COMPOSED");
  });
});
