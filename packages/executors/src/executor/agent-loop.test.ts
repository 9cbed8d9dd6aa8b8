// AgentLoop alone, over a plain fake of its context (AgentLoopContext): the options come from
// validateOptions, the state is a real RunState changed through the real transitions, and the
// collaborators (tool calls, early ones among them, and approvals) are small fakes that record what they are asked.
import { EARLY_STOP_OUTPUT } from "@agentrx/core";
import type { AgentAction, AgentFinish, AgentInput, AgentOutput } from "@agentrx/core";
import type { RunnableConfig } from "@langchain/core/runnables";
import { describe, expect, it } from "vitest";
import type { AgentExecutorOptions } from "./agent-executor-options";
import { AgentLoop, type AgentLoopContext } from "./agent-loop";
import type { AgentStreamEvent, Interrupt, StopReason } from "./events";
import { type RunState, type RunTransition, initialRunState, transition } from "./run-state";
import { act, deferred, echoTool, finish, scriptedAgent } from "./test-helpers";
import { validateOptions } from "./validate-options";

type Turn = AgentOutput | Error | ((input: AgentInput) => AgentOutput | Promise<AgentOutput>);

function fakeRun(turns: Turn[], options: Partial<AgentExecutorOptions> = {}) {
  const log: string[] = [];
  const events: AgentStreamEvent[] = [];
  const completed: { finish: AgentFinish; stopReason: StopReason }[] = [];
  const configs: (RunnableConfig | undefined)[] = [];
  // The agent logs each call (so the order against the write-ahead waits is visible).
  const logged = turns.map((turn) => async (input: AgentInput) => {
    log.push("agent");
    if (turn instanceof Error) throw turn;
    return typeof turn === "function" ? turn(input) : turn;
  });
  const { agent, inputs } = scriptedAgent(logged);
  const watched = agent.withConfig({});
  const originalInvoke = watched.invoke.bind(watched);
  watched.invoke = (input, config) => {
    configs.push(config);
    return originalInvoke(input, config);
  };
  const resolved = validateOptions({ agent: watched, tools: [echoTool], ...options });
  const state: RunState = initialRunState("run-1", undefined, { input: "go" });
  const finalController = new AbortController();
  let loop: AgentLoop | undefined;
  const tools = {
    runAll(actions: readonly AgentAction[], indexes: readonly number[]): Promise<void> {
      log.push(`runAll ${indexes.join(",")}`);
      for (const index of indexes) {
        const action = actions[index] as AgentAction;
        loop?.toolFinished(index, { action, observation: `ran ${JSON.stringify(action.toolInput)}` }, 0, undefined);
      }
      return Promise.resolve();
    },
    returnsDirect: (_action: AgentAction) => false,
    dropEarly() {
      log.push("tools.dropEarly");
    },
    takeFinishedEarly: () => [],
    resetTurn() {},
    matchTurn(_actions: readonly AgentAction[]) {},
    earlyCall: (_index: number) => undefined,
    releaseEarly() {},
    idempotencyKey: (_action: AgentAction, index: number) => `run-1:${state.turn?.iteration}:${index}`,
  };
  const approvals = {
    enabled: false,
    rejectedInTurn: (_iteration: number) => false,
    interruptsOf: (_actions: readonly AgentAction[], _iteration: number): Promise<Interrupt[]> => Promise.resolve([]),
    requested(interrupts: Interrupt[]) {
      if (interrupts.length > 0) run.dispatch({ type: "approvalRequested", interrupts });
    },
    resumeTurn() {},
    pause(): Promise<void> {
      log.push("pause");
      return Promise.resolve();
    },
  };
  const run = {
    options: resolved,
    state,
    observed: true,
    usageFromOutput: false,
    startedAt: Date.now(),
    get interrupted() {
      return state.phase !== "agent" && state.phase !== "tools";
    },
    get iteration() {
      return Math.max(0, state.iteration - 1);
    },
    tools,
    approvals,
    middleware: undefined,
    dispatch(event: RunTransition) {
      transition(state, event);
    },
    wait: <T>(promise: Promise<T>, _halts: boolean): Promise<T> => promise,
    waitCall: <T>(promise: Promise<T>): Promise<T> => promise,
    emit(event: AgentStreamEvent) {
      events.push(event);
    },
    halt(reason: "max_execution_time" | "budget") {
      run.dispatch({ type: "halted", reason });
    },
    onUsage() {},
    schedule() {},
    barrier: (): Promise<void> | undefined => undefined,
    durable: (): Promise<boolean> | boolean => true,
    finalSignal: () => finalController.signal,
    complete(finishValue: AgentFinish, stopReason: StopReason): Promise<void> {
      log.push(`complete ${stopReason}`);
      completed.push({ finish: finishValue, stopReason });
      run.dispatch({ type: "finished", stopReason });
      return Promise.resolve();
    },
    steering: undefined,
    timed: <T>(promise: Promise<T>): Promise<T> => promise,
    holdTokens() {},
    releaseTokens() {},
  } satisfies AgentLoopContext;
  loop = new AgentLoop(run);
  return { run, loop, state, log, events, completed, inputs, configs, tools, approvals, finalSignal: finalController.signal };
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("AgentLoop: a run's turns", () => {
  it("calls the agent, runs the tools it asked for, feeds their steps back, and ends with its answer", async () => {
    const fake = fakeRun([[act("echo", { text: "a" }), act("echo", { text: "b" })], finish("done")]);
    await fake.loop.execute({});
    expect(fake.log).toEqual(["agent", "runAll 0,1", "agent", "tools.dropEarly", "complete finish"]);
    expect(fake.inputs[0]?.steps).toEqual([]);
    expect(fake.inputs[1]?.steps.map((s) => s.observation)).toEqual(['ran {"text":"a"}', 'ran {"text":"b"}']);
    expect(fake.inputs[1]?.["input"]).toBe("go");
    expect(fake.completed).toEqual([{ finish: finish("done"), stopReason: "finish" }]);
    expect(fake.state.iteration).toBe(2);
    expect(fake.state.steps).toHaveLength(2);
  });

  it("emits each action (with its idempotency key) and each step, with the turn's iteration", async () => {
    const fake = fakeRun([[act("echo", { text: "a" })], finish("done")]);
    await fake.loop.execute({});
    expect(fake.events.map((e) => e.type)).toEqual(["action", "step"]);
    expect(fake.events[0]).toMatchObject({ type: "action", iteration: 0, idempotencyKey: "run-1:0:0" });
    expect(fake.events[1]).toMatchObject({ type: "step", iteration: 0, step: { observation: 'ran {"text":"a"}' } });
  });

  it("calls the agent with the config it was given", async () => {
    const fake = fakeRun([finish("done")]);
    const config = { metadata: { mine: 1 } };
    await fake.loop.execute(config);
    expect(fake.configs[0]).toBe(config);
  });

  it("fails the run (rejects) when the turn's tool calls fail while it was not halted", async () => {
    const fake = fakeRun([[act("echo", { text: "a" })]]);
    const broken = new Error("tools broke");
    fake.tools.runAll = () => Promise.reject(broken);
    await expect(fake.loop.execute({})).rejects.toBe(broken);
    expect(fake.completed).toEqual([]);
  });

  it("ends with the observations of a turn whose tools all return directly", async () => {
    const fake = fakeRun([[act("echo", { text: "a" }), act("echo", { text: "b" })]]);
    fake.tools.returnsDirect = () => true;
    await fake.loop.execute({});
    expect(fake.completed).toEqual([{ finish: { returnValues: { output: 'ran {"text":"a"}\n\nran {"text":"b"}' }, log: 'ran {"text":"a"}\n\nran {"text":"b"}' }, stopReason: "return_direct" }]);
    expect(fake.log.filter((e) => e === "agent")).toHaveLength(1);
  });

  it("a turn with calls waiting for approval runs the others, then pauses", async () => {
    const fake = fakeRun([[act("echo", { text: "a" }), act("echo", { text: "pay" })]]);
    fake.approvals.enabled = true;
    fake.approvals.interruptsOf = (_actions, iteration) => Promise.resolve([{ id: `call-${iteration}-1`, tool: "echo", toolInput: { text: "pay" }, iteration, index: 1, reason: "approval" }]);
    await fake.loop.execute({});
    expect(fake.log).toEqual(["agent", "runAll 0", "pause"]);
    expect(fake.completed).toEqual([]);
  });
});

describe("AgentLoop: write-ahead (a recorded run)", () => {
  it("awaits durable() before each model call and before the turn's tools start", async () => {
    const fake = fakeRun([[act("echo", { text: "a" })], finish("done")]);
    const writes: ReturnType<typeof deferred<boolean>>[] = [];
    fake.run.durable = () => {
      fake.log.push("durable?");
      const write = deferred<boolean>();
      writes.push(write);
      return write.promise;
    };
    const done = fake.loop.execute({});
    await settle();
    expect(fake.log).toEqual(["durable?"]); // no model call yet
    writes[0]?.resolve(true);
    await settle();
    expect(fake.log).toEqual(["durable?", "agent", "durable?"]); // the turn's actions: no tool yet
    writes[1]?.resolve(true);
    await settle();
    expect(fake.log).toEqual(["durable?", "agent", "durable?", "runAll 0", "durable?"]);
    writes[2]?.resolve(true);
    await done;
    expect(fake.log).toEqual(["durable?", "agent", "durable?", "runAll 0", "durable?", "agent", "tools.dropEarly", "complete finish"]);
  });

  it("takes a boolean at once (no store, nothing pending) without waiting", async () => {
    const fake = fakeRun([[act("echo", { text: "a" })], finish("done")]);
    let asked = 0;
    fake.run.durable = () => {
      asked++;
      return true;
    };
    await fake.loop.execute({});
    expect(asked).toBe(3);
    expect(fake.completed).toHaveLength(1);
  });

  it("stops when durable() resolves false (halted meanwhile): no model call, early stopping ends the run", async () => {
    const fake = fakeRun([finish("never")]);
    fake.run.durable = () => {
      fake.run.dispatch({ type: "halted", reason: "budget" });
      return Promise.resolve(false);
    };
    await fake.loop.execute({});
    expect(fake.log).toEqual(["complete budget"]);
  });

  it("stops before the turn's tools when durable() resolves false after the agent answered", async () => {
    const fake = fakeRun([[act("echo", { text: "a" })]]);
    let calls = 0;
    fake.run.durable = () => {
      if (++calls === 1) return Promise.resolve(true);
      fake.run.dispatch({ type: "halted", reason: "max_execution_time" });
      return Promise.resolve(false);
    };
    await fake.loop.execute({});
    expect(fake.log).toEqual(["agent", "complete max_execution_time"]);
  });

  it("rejects when durable() rejects (the store failed)", async () => {
    const fake = fakeRun([finish("never")]);
    const failure = new Error("store down");
    fake.run.durable = () => Promise.reject(failure);
    await expect(fake.loop.execute({})).rejects.toBe(failure);
    expect(fake.log).toEqual([]);
  });
});

describe("AgentLoop: early stopping", () => {
  it("force: a run that reaches maxIterations ends with the early-stop text, without another model call", async () => {
    const fake = fakeRun([[act("echo", { text: "a" })]], { maxIterations: 1 });
    await fake.loop.execute({});
    expect(fake.log).toEqual(["agent", "runAll 0", "complete max_iterations"]);
    expect(fake.completed[0]?.finish.returnValues).toEqual({ output: EARLY_STOP_OUTPUT });
    expect(fake.state.steps).toHaveLength(1);
  });

  it("force: a budget's stop gives the budget's text", async () => {
    const fake = fakeRun([finish("never")]);
    fake.run.dispatch({ type: "halted", reason: "budget", stoppedBy: { budget: "tool_calls", used: 3, limit: 3 } });
    await fake.loop.execute({});
    expect(fake.completed).toEqual([{ finish: { returnValues: { output: "Agent stopped because its tool-call budget was spent (3 used of 3)." }, log: "Agent stopped because its tool-call budget was spent (3 used of 3)." }, stopReason: "budget" }]);
  });

  it("generate: one more agent call, after the durable barrier, asked for a final answer under the final signal", async () => {
    const fake = fakeRun([[act("echo", { text: "a" })], finish("summed up")], { maxIterations: 1, earlyStoppingMethod: "generate" });
    const barrier = deferred<void>();
    fake.run.barrier = () => {
      fake.log.push("barrier");
      return barrier.promise;
    };
    const done = fake.loop.execute({ metadata: { mine: 1 } });
    await settle();
    expect(fake.log).toEqual(["agent", "runAll 0", "barrier"]); // no model call before the barrier
    barrier.resolve();
    await done;
    expect(fake.log).toEqual(["agent", "runAll 0", "barrier", "agent", "complete max_iterations"]);
    expect(fake.inputs[1]).toMatchObject({ input: "go", forceFinalAnswer: true });
    expect(fake.inputs[1]?.steps).toHaveLength(1);
    expect(fake.configs[1]?.signal).toBe(fake.finalSignal);
    expect(fake.configs[1]?.metadata).toEqual({ mine: 1 });
    expect(fake.completed[0]).toEqual({ finish: finish("summed up"), stopReason: "max_iterations" });
  });

  it("generate: an action instead of an answer ends with its log", async () => {
    const fake = fakeRun([[act("echo", { text: "a" })], [act("echo", { text: "b" }, "I would call echo again")]], { maxIterations: 1, earlyStoppingMethod: "generate" });
    await fake.loop.execute({});
    expect(fake.completed[0]?.finish.returnValues).toEqual({ output: "I would call echo again" });
  });

  it("generate failing: the run still ends, with the early-stop text saying why, and generateError set", async () => {
    const fake = fakeRun([[act("echo", { text: "a" })], new Error("model down")], { maxIterations: 1, earlyStoppingMethod: "generate" });
    await fake.loop.execute({});
    expect(fake.completed[0]?.stopReason).toBe("max_iterations");
    expect(fake.completed[0]?.finish.returnValues).toEqual({ output: `${EARLY_STOP_OUTPUT} A final response could not be generated (Error: model down).` });
    expect(fake.state.generateError).toBe("Error: model down");
  });

  it("a guardrail's stop never asks the model again, even under generate", async () => {
    const fake = fakeRun([finish("never")], { earlyStoppingMethod: "generate" });
    fake.run.dispatch({ type: "halted", reason: "guardrail", stoppedBy: { middleware: "guard", message: "Blocked by policy." } });
    await fake.loop.execute({});
    expect(fake.log).toEqual(["complete guardrail"]);
    expect(fake.completed[0]?.finish.returnValues).toEqual({ output: "Blocked by policy." });
  });
});
