// A misspelled option (`stopwhen`, `maxIteraions`) is refused, naming the option it is close to,
// rather than ignored; any other unknown key of a call's config goes through, as LangChain and
// LangGraph add keys of their own when the executor runs inside a chain or a graph.
import { InvalidArgumentError } from "@agentrx/core";
import { AgentExecutor, type AgentExecutorOptions } from "@agentrx/executors";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { Annotation, BaseStore, END, InMemoryStore, START, StateGraph, getStore } from "@langchain/langgraph";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { RunnableLambda, RunnableSequence } from "@langchain/core/runnables";
import { EMPTY } from "rxjs";
import { describe, expect, it } from "vitest";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { CALL_CONFIG, EXECUTOR_OPTIONS, FORK_OPTIONS, type KnownKeys, PASSED_ON_CONFIG_KEYS, RESUME_OPTIONS } from "./option-keys";
import { editDistance, nearMissOf } from "@agentrx/core";
import { act, collect, echoTool, finish, scriptedAgent } from "./test-helpers";

const answer = RunnableLambda.from(() => finish("done"));
const never = () => EMPTY;

/** What a call gives: its error, or undefined when it ran. */
async function outcome(run: () => PromiseLike<unknown>): Promise<unknown> {
  try {
    await run();
    return undefined;
  } catch (error) {
    return error;
  }
}

function expectRefused(error: unknown, argument: string, where: string, key: string, meant: string): void {
  expect(InvalidArgumentError.isInstance(error), String(error)).toBe(true);
  expect(error).toMatchObject({ argument });
  expect((error as Error).message).toContain(`${where}: unknown key \`${key}\``);
  expect((error as Error).message).toContain(`did you mean \`${meant}\`?`);
}

describe("invoke and stream refuse a near miss of an option of their config", () => {
  const executor = new AgentExecutor({ agent: answer, tools: [] });

  it.each([
    ["stopwhen", "stopWhen", never],
    ["stop_when", "stopWhen", never],
    ["StopWhen", "stopWhen", never],
    ["stopWhens", "stopWhen", never],
    ["threadID", "threadId", "t-1"],
    ["thread_id", "threadId", "t-1"],
    ["stores", "store", new InProcessRunStore()],
    ["tag", "tags", ["prod"]],
    ["metaData", "metadata", { user: "ada" }],
    ["callback", "callbacks", []],
    ["runID", "runId", "run-1"],
    ["run_name", "runName", "support"],
    ["signl", "signal", new AbortController().signal],
    ["timout", "timeout", 1000],
    ["configurables", "configurable", {}],
    ["recursionlimit", "recursionLimit", 5],
  ])("refuses `%s`, naming `%s`", async (key, meant, value) => {
    for (const method of ["invoke", "stream"] as const) {
      const error = await outcome(() => executor[method]({ input: "x" }, { [key]: value } as never));
      expectRefused(error, `config.${key}`, `AgentExecutor.${method} config`, key, meant);
    }
  });

  it("refuses it when the run is started, as a bad value of the config is (nothing runs)", async () => {
    const { agent, inputs } = scriptedAgent([finish("done")]);
    const run = new AgentExecutor({ agent, tools: [] }).invoke({ input: "x" }, { stopwhen: never } as never);
    const error = await outcome(() => run);
    expectRefused(error, "config.stopwhen", "AgentExecutor.invoke config", "stopwhen", "stopWhen");
    expect(inputs).toHaveLength(0);
  });

  it("lets every key of a RunnableConfig through, and the keys LangChain and LangGraph add", async () => {
    const config = {
      callbacks: [],
      configurable: { thread_id: "t-1", __pregel_task_id: "task", checkpoint_ns: "" },
      maxConcurrency: 2,
      metadata: { user: "ada", ls_provider: "openai" },
      recursionLimit: 25,
      runId: "run-config-keys",
      runName: "support",
      signal: new AbortController().signal,
      tags: ["prod"],
      timeout: 10_000,
      stopWhen: [],
      threadId: "t-1",
      ...Object.fromEntries(PASSED_ON_CONFIG_KEYS.filter((key) => key !== "store").map((key) => [key, "x"])),
      __pregel_send: "x",
      ls_structured_output_format: "x",
      lg_is_pregel: true,
      lc_kwargs: "x",
    };
    for (const method of ["invoke", "stream"] as const) {
      const result = await executor[method]({ input: "x" }, config as never);
      expect(result.output).toBe("done");
    }
  });

  it.each([{ myAppTraceId: 1 }, { requestId: "r" }, { score: 1 }, { traceId: undefined, threadName: "x" }, { config: {} }, { tenant: "acme" }])(
    "lets an unrelated key through: %j",
    async (config) => {
      for (const method of ["invoke", "stream"] as const) {
        const result = await executor[method]({ input: "x" }, config as never);
        expect(result.output).toBe("done");
      }
    },
  );
});

describe("resume and fork refuse a near miss of one of their options", () => {
  const store = new InProcessRunStore();
  const executor = new AgentExecutor({ agent: answer, tools: [], store });

  function thrown(call: () => unknown): unknown {
    try {
      call();
    } catch (error) {
      return error;
    }
    return undefined;
  }

  it.each([
    ["decison", "decisions", {}],
    ["Decisions", "decisions", {}],
    ["stopwhen", "stopWhen", never],
    ["stroe", "store", store],
    ["tag", "tags", ["resumed"]],
  ])("resume refuses `%s`, naming `%s`, when called", (key, meant, value) => {
    expectRefused(thrown(() => executor.resume("run", { [key]: value } as never)), `options.${key}`, "AgentExecutor.resume options", key, meant);
  });

  it.each([
    ["input", "inputs", { input: "x" }],
    ["edits", "edit", { observation: "x" }],
    ["AT", "at", 1],
    ["stop_when", "stopWhen", never],
    ["runID", "runId", "fork-1"],
    ["metaData", "metadata", {}],
  ])("fork refuses `%s`, naming `%s`, when called", (key, meant, value) => {
    expectRefused(thrown(() => executor.fork("run", { [key]: value } as never)), `options.${key}`, "AgentExecutor.fork options", key, meant);
  });

  it("resume and fork let a RunnableConfig's keys and unrelated keys through", async () => {
    const first = await executor.invoke({ input: "x" });
    const config = { tags: ["again"], metadata: { user: "ada" }, callbacks: [], runName: "again", configurable: {}, recursionLimit: 25, maxConcurrency: 2, myAppTraceId: 1, writer: "x" };
    expect((await executor.resume(first.runId, config as never)).output).toBe("done");
    expect((await executor.fork(first.runId, { ...config, at: 0, runId: "fork-keys" } as never)).output).toBe("done");
  });
});

describe("a call refuses an option of the constructor, which it would not read", () => {
  const store = new InProcessRunStore();
  const executor = new AgentExecutor({ agent: answer, tools: [], store });
  const constructorOnly = (error: unknown, argument: string, where: string, key: string) => {
    expect(InvalidArgumentError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({ argument });
    expect((error as Error).message).toBe(`${where}: \`${key}\` is an option of the AgentExecutor constructor, not of a call (it would be ignored); pass it to \`new AgentExecutor({ ... })\`.`);
  };

  it.each([["maxIterations", 3], ["recordModelCalls", false], ["handleParsingErrors", true], ["tools", []]])("`%s` in invoke's, stream's, resume's and fork's", async (key, value) => {
    for (const method of ["invoke", "stream"] as const) {
      constructorOnly(await outcome(() => executor[method]({ input: "x" }, { [key]: value } as never)), `config.${key}`, `AgentExecutor.${method} config`, key);
    }
    for (const method of ["resume", "fork"] as const) {
      let error: unknown;
      try {
        executor[method]("run", { [key]: value } as never);
      } catch (thrown) {
        error = thrown;
      }
      constructorOnly(error, `options.${key}`, `AgentExecutor.${method} options`, key);
    }
  });

  it("the ones a call reads too (store, maxConcurrency) still go through", async () => {
    expect((await executor.invoke({ input: "x" }, { store, maxConcurrency: 2 })).output).toBe("done");
  });
});

describe("the constructor names the option an unknown one is close to", () => {
  function constructorError(options: Record<string, unknown>): InvalidArgumentError {
    try {
      new AgentExecutor({ agent: answer, tools: [], ...options } as AgentExecutorOptions);
    } catch (error) {
      if (InvalidArgumentError.isInstance(error)) return error;
      throw error;
    }
    throw new Error("expected the constructor to throw");
  }

  it.each([
    ["maxIteration", "maxIterations", 3],
    ["recordModelcalls", "recordModelCalls", false],
    ["stopwhen", "stopWhen", []],
    ["eager_tools", "eagerTools", true],
  ])("`%s`: did you mean `%s`?", (key, meant, value) => {
    const error = constructorError({ [key]: value });
    expect(error.argument).toBe(key);
    expect(error.message).toContain(`unknown option \`${key}\`; did you mean \`${meant}\`?`);
  });

  it("still refuses an unknown option that is close to none, listing the options", () => {
    const error = constructorError({ myAppTraceId: 1 });
    expect(error.message).toContain("unknown option `myAppTraceId`. Known options: agent, tools, maxIterations");
    expect(error.message).not.toContain("did you mean");
  });

  it.for([
    ["callbacks", "callbacks are given per call: executor.invoke(inputs, { callbacks })"],
    ["tags", "tags are given per call: executor.invoke(inputs, { tags })"],
    ["metadata", "metadata is given per call: executor.invoke(inputs, { metadata })"],
    ["llm", "the model goes in the agent (createToolCallingAgent({ llm, tools, prompt })), or use createAgentExecutor({ model, tools })"],
    ["model", "the model goes in the agent (createToolCallingAgent({ llm, tools, prompt })), or use createAgentExecutor({ model, tools })"],
    ["returnOnlyOutputs", "it has no counterpart"],
  ] as const)("says where LangChain classic's %s goes", ([key, hint]) => {
    expect(constructorError({ [key]: [] }).message).toContain(`AgentExecutor: unknown option \`${key}\`: ${hint}`);
  });
});

describe("the known keys", () => {
  const sites: [string, KnownKeys][] = [
    ["call config", CALL_CONFIG],
    ["resume options", RESUME_OPTIONS],
    ["fork options", FORK_OPTIONS],
    ["constructor options", EXECUTOR_OPTIONS],
  ];

  it.each(sites)("no %s name is a near miss of another", (_site, known) => {
    for (const name of known.names) {
      expect(nearMissOf(name, known.names.filter((other) => other !== name))).toBeUndefined();
    }
  });

  it("no key LangChain or LangGraph passes on is a near miss of an option, not even when it is not listed", () => {
    const langChain = ["callbacks", "configurable", "maxConcurrency", "metadata", "recursionLimit", "runId", "runName", "signal", "tags", "timeout", "config"];
    for (const [, known] of sites.slice(0, 3)) {
      const options = known.names.filter((name) => !langChain.includes(name));
      for (const key of [...langChain, ...PASSED_ON_CONFIG_KEYS.filter((key) => key !== "store")]) expect(nearMissOf(key, options), key).toBeUndefined();
    }
  });

  it("counts edits as Damerau-Levenshtein (optimal string alignment) does, stopping past the limit", () => {
    expect(editDistance("kitten", "sitting", 5)).toBe(3);
    expect(editDistance("stopwhen", "stpowhen", 2)).toBe(1);
    expect(editDistance("maxiteration", "maxiterations", 2)).toBe(1);
    expect(editDistance("abc", "xyzabc", 2)).toBe(3);
    expect(editDistance("", "ab", 2)).toBe(2);
  });
});

describe("an executor inside a chain or a graph", () => {
  class Recording extends BaseCallbackHandler {
    name = "recording";
    readonly names: string[] = [];
    override handleChainStart(_chain: unknown, _inputs: unknown, _runId: string, _parent?: string, _tags?: string[], _metadata?: Record<string, unknown>, _type?: string, name?: string) {
      this.names.push(String(name));
    }
  }

  it("runs as a step of a RunnableSequence given callbacks, tags, metadata and configurable (invoke and stream)", async () => {
    const { agent, inputs } = scriptedAgent([act("echo", { text: "a" }), finish("done"), act("echo", { text: "b" }), finish("again")]);
    const chain = RunnableSequence.from([RunnableLambda.from((question: string) => ({ input: question })), new AgentExecutor({ agent, tools: [echoTool] }).asRunnable()]);
    const handler = new Recording();
    const config = { callbacks: [handler], tags: ["prod"], metadata: { user: "ada" }, configurable: { tenant: "acme" }, runName: "chain", maxConcurrency: 2, recursionLimit: 10 };
    expect((await chain.invoke("hi", config)).output).toBe("done");
    const types: string[] = [];
    for await (const event of await chain.stream("hi", config)) types.push((event as unknown as { type: string }).type);
    expect(types).toEqual(["start", "action", "step", "output"]);
    expect(handler.names).toContain("AgentExecutor");
    expect(inputs).toHaveLength(4);
  });

  it("runs in a LangGraph node given the node's config (writer, interrupt, control, executionInfo, __pregel_* keys)", async () => {
    const executor = new AgentExecutor({ agent: answer, tools: [] });
    const State = Annotation.Root({ input: Annotation<string>(), output: Annotation<string>() });
    const graph = new StateGraph(State)
      .addNode("agent", async (state, config) => ({ output: (await executor.asRunnable().invoke({ input: state.input }, config)).output }))
      .addEdge(START, "agent")
      .addEdge("agent", END)
      .compile();
    expect((await graph.invoke({ input: "hi" }, { tags: ["graph"], configurable: { thread_id: "t-1" } })).output).toBe("done");
  });

  it("a run given no config, or {}, still runs", async () => {
    const executor = new AgentExecutor({ agent: answer, tools: [] });
    expect((await executor.invoke({ input: "x" })).output).toBe("done");
    expect(await collect(executor.stream({ input: "x" }, {}))).toHaveLength(2);
  });
});

describe("a call refuses an option of another call, saying where it belongs", () => {
  const store = new InProcessRunStore();
  const executor = new AgentExecutor({ agent: answer, tools: [], store });

  function thrown(call: () => unknown): unknown {
    try {
      call();
    } catch (error) {
      return error;
    }
    return undefined;
  }

  function expectElsewhere(error: unknown, argument: string, message: string): void {
    expect(InvalidArgumentError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({ argument });
    expect((error as Error).message).toBe(message);
  }

  it.each([
    ["threadId", "t-1", "an option of invoke/stream, not of resume (a resumed run keeps its thread)"],
    ["at", 1, "an option of fork, not of resume (a resume goes on from where the run stopped; fork(runId, { at }) starts a new run from a recorded run's earlier turn)"],
    ["inputs", { input: "x" }, "an option of fork, not of resume (a resumed run keeps its inputs; fork(runId, { inputs }) starts a new run with others)"],
    ["edit", { observation: "x" }, "an option of fork, not of resume (fork(runId, { edit }) starts a new run from a recorded one with an observation changed)"],
  ])("resume refuses `%s`", (key, value, belongs) => {
    expectElsewhere(thrown(() => executor.resume("run", { [key]: value } as never)), `options.${key}`, `AgentExecutor.resume options: \`${key}\` is ${belongs}.`);
  });

  it.each([
    ["threadId", "t-1", "an option of invoke/stream, not of fork (a fork keeps its source's thread)"],
    ["decisions", { "call-0-0": "approve" }, "an option of resume, not of fork (a fork copies complete turns, never a pause: decide on the source with resume(runId, { decisions }))"],
  ])("fork refuses `%s`", (key, value, belongs) => {
    expectElsewhere(thrown(() => executor.fork("run", { [key]: value } as never)), `options.${key}`, `AgentExecutor.fork options: \`${key}\` is ${belongs}.`);
  });

  it.each([
    ["decisions", { "call-0-0": "approve" }, "an option of resume, not of invoke/stream (a paused run goes on with resume(runId, { decisions }))"],
    ["at", 1, "an option of fork, not of invoke/stream (fork(runId, { at }) starts a new run from a recorded run's earlier turn)"],
    ["inputs", { input: "x" }, "an option of fork, not of invoke/stream (a run's inputs are the first argument of invoke/stream)"],
    ["edit", { observation: "x" }, "an option of fork, not of invoke/stream (fork(runId, { edit }) starts a new run from a recorded one with an observation changed)"],
  ])("invoke and stream refuse `%s`, running nothing", async (key, value, belongs) => {
    const { agent, inputs } = scriptedAgent([finish("done")]);
    const scripted = new AgentExecutor({ agent, tools: [] });
    for (const method of ["invoke", "stream"] as const) {
      const error = await outcome(() => scripted[method]({ input: "x" }, { [key]: value } as never));
      expectElsewhere(error, `config.${key}`, `AgentExecutor.${method} config: \`${key}\` is ${belongs}.`);
    }
    expect(inputs).toHaveLength(0);
  });

  it("each call still takes its own options, and the ones it shares (store, stopWhen, a RunnableConfig's)", async () => {
    const first = await executor.invoke({ input: "x" }, { threadId: "t-1", store, stopWhen: [] });
    expect(first.output).toBe("done");
    expect((await executor.resume(first.runId, { store, stopWhen: [], tags: ["again"] })).output).toBe("done");
    expect((await executor.fork(first.runId, { at: 0, inputs: { input: "y" }, runId: "fork-own-keys", store, stopWhen: [] })).output).toBe("done");
  });

  it("no key LangChain or LangGraph passes on is refused as another call's option", () => {
    for (const known of [CALL_CONFIG, RESUME_OPTIONS, FORK_OPTIONS]) {
      for (const key of [...Object.keys({ callbacks: 1, configurable: 1, maxConcurrency: 1, metadata: 1, recursionLimit: 1, runId: 1, runName: 1, signal: 1, tags: 1, timeout: 1 }), ...PASSED_ON_CONFIG_KEYS]) {
        expect(known.elsewhere.has(key), key).toBe(false);
      }
    }
  });
});

describe("LangGraph's store in a call's config (the executor inside a LangGraph node)", () => {
  const State = Annotation.Root({ input: Annotation<string>(), output: Annotation<string>(), runId: Annotation<string>() });

  /** A graph compiled with LangGraph's store whose one node runs `node` with the node's config. */
  function graphWith(node: (input: string, config: Record<string, unknown>) => Promise<{ output: string; runId: string }>, seen: unknown[]) {
    return new StateGraph(State)
      .addNode("agent", async (state, config) => {
        seen.push((config as { store?: unknown }).store);
        return node(state.input, config as unknown as Record<string, unknown>);
      })
      .addEdge(START, "agent")
      .addEdge("agent", END)
      .compile({ store: new InMemoryStore() });
  }

  it("is not taken for a RunStore: the run is recorded in the executor's store, or in none", async () => {
    const runs = new InProcessRunStore();
    const recorded = new AgentExecutor({ agent: answer, tools: [], store: runs });
    const seen: unknown[] = [];
    const graph = graphWith(async (input, config) => {
      const result = await recorded.asRunnable().invoke({ input }, config);
      return { output: result.output, runId: result.runId };
    }, seen);
    const state = await graph.invoke({ input: "hi" });
    expect(seen[0]).toBeInstanceOf(BaseStore);
    expect(state.output).toBe("done");
    expect(await runs.getRun(state.runId)).toMatchObject({ status: "finished" });

    const unrecorded = new AgentExecutor({ agent: answer, tools: [] });
    const plain = graphWith(async (input, config) => {
      const events = await collect(unrecorded.stream({ input }, config as never));
      return { output: String((events.at(-1) as { output?: string }).output), runId: "" };
    }, seen);
    expect((await plain.invoke({ input: "hi" })).output).toBe("done");
  });

  it("resume and fork given the node's config read the executor's store", async () => {
    const runs = new InProcessRunStore();
    const executor = new AgentExecutor({ agent: answer, tools: [], store: runs });
    const { runId } = await executor.invoke({ input: "x" });
    const seen: unknown[] = [];
    const resumed = graphWith(async (_input, config) => {
      const result = await executor.resume(runId, config as never);
      return { output: result.output, runId: result.runId };
    }, seen);
    expect((await resumed.invoke({ input: "x" })).output).toBe("done");
    const forked = graphWith(async (_input, config) => {
      const result = await executor.fork(runId, { ...config, at: 0, runId: "fork-in-graph" } as never);
      return { output: result.output, runId: result.runId };
    }, seen);
    expect((await forked.invoke({ input: "x" })).runId).toBe("fork-in-graph");
    expect(seen).toHaveLength(2);
    expect(seen.every((store) => store instanceof BaseStore)).toBe(true);
  });

  it("is passed on to the tools, which read it as in any node (getStore, config.store)", async () => {
    const runs = new InProcessRunStore();
    const read: unknown[] = [];
    const remember = tool(
      async ({ text }: { text: string }, config) => {
        const store = (config as { store?: BaseStore }).store;
        read.push(store, getStore());
        await store?.put(["notes"], "last", { text });
        return text;
      },
      { name: "remember", description: "Remembers.", schema: z.object({ text: z.string() }) },
    );
    const { agent } = scriptedAgent([act("remember", { text: "a" }), finish("done")]);
    const executor = new AgentExecutor({ agent, tools: [remember], store: runs });
    const seen: unknown[] = [];
    const graph = graphWith(async (input, config) => {
      const result = await executor.invoke({ input }, config);
      // What the tool put, read in the node (LangGraph's store answers while its graph runs).
      const note = await (config["store"] as BaseStore).get(["notes"], "last");
      return { output: `${result.output}: ${JSON.stringify(note?.value)}`, runId: result.runId };
    }, seen);
    const state = await graph.invoke({ input: "hi" });
    expect(read).toHaveLength(2);
    expect(read[0]).toBe(seen[0]);
    expect(read[1]).toBe(seen[0]);
    expect(state.output).toBe('done: {"text":"a"}');
    expect(await runs.getRun(state.runId)).toMatchObject({ status: "finished" });
  });

  it("a store that is neither LangGraph's nor a RunStore is still refused", async () => {
    const executor = new AgentExecutor({ agent: answer, tools: [] });
    const error = await outcome(() => executor.invoke({ input: "x" }, { store: { get: () => undefined } } as never));
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/`config.store` must be a RunStore/);
  });
});
