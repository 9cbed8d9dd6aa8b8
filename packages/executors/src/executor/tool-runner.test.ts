// ToolRunner alone, over a plain fake of its narrow context (ToolRunContext): no executor, no run.
// The tests of eager dispatch (which streamed calls start early, which the turn keeps) replace the
// runner's `startEarly` with a fake that records each early start and the signal it was given.
import { AbortError, getIdempotencyKey, invalidToolObservation, markToolApproval } from "@agentrx/core";
import type { AgentAction, AgentStep, StepMetadata } from "@agentrx/core";
import type { RunnableConfig } from "@langchain/core/runnables";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { deferred } from "./test-helpers";
import { RunAbortScope } from "./run-abort-scope";
import { type EarlyCall, type ToolRunContext, ToolRunner } from "./tool-runner";

type Deferred<T> = ReturnType<typeof deferred<T>>;

/** A tool whose calls wait until the test settles them; records each call's input and config. */
function gatedTool(name: string) {
  const calls: { input: unknown; config: RunnableConfig; result: Deferred<unknown> }[] = [];
  let running = 0;
  let maxRunning = 0;
  const fake = {
    name,
    invoke(input: unknown, config: RunnableConfig): Promise<unknown> {
      const result = deferred<unknown>();
      calls.push({ input, config, result });
      running++;
      maxRunning = Math.max(maxRunning, running);
      return result.promise.finally(() => running--);
    },
  };
  return { tool: fake as unknown as StructuredToolInterface, calls, maxRunning: () => maxRunning };
}

/** A tool that answers at once with `answer(input, config)`. */
function plainTool(name: string, answer: (input: unknown, config: RunnableConfig) => unknown, extra: Record<string, unknown> = {}) {
  const calls: { input: unknown; config: RunnableConfig }[] = [];
  const fake = {
    name,
    ...extra,
    invoke(input: unknown, config: RunnableConfig): unknown {
      calls.push({ input, config });
      return answer(input, config);
    },
  };
  return { tool: fake as unknown as StructuredToolInterface, calls };
}

interface Finished {
  index: number;
  step: AgentStep;
  metadata: StepMetadata | undefined;
}

/** A fake run: plain fields and methods that record what the runner asked of it. */
function fakeRun(
  tools: StructuredToolInterface[],
  options: { maxConcurrency?: number; handleToolRuntimeErrors?: boolean; maxObservationLength?: number; eager?: (tool: StructuredToolInterface) => boolean; approvalOption?: boolean } = {},
) {
  const finished: Finished[] = [];
  const log: string[] = [];
  const aborts = new RunAbortScope();
  const run = {
    options: {
      toolsByName: new Map(tools.map((t) => [t.name, t])),
      toolNames: tools.map((t) => t.name),
      maxConcurrency: options.maxConcurrency ?? Number.POSITIVE_INFINITY,
      handleToolRuntimeErrors: options.handleToolRuntimeErrors ?? true,
      maxObservationLength: options.maxObservationLength ?? 100_000,
      eager: "eager" in options ? options.eager : () => true,
      approvalOption: options.approvalOption ?? false,
    },
    aborts,
    observed: false,
    interrupted: false,
    telemetry: undefined,
    middleware: undefined,
    toolFinished(index: number, step: AgentStep, _durationMs: number, metadata: StepMetadata | undefined) {
      log.push(`finished ${index}`);
      finished.push({ index, step, metadata });
    },
    beforeToolStart() {
      log.push("beforeToolStart");
    },
    admitEarly: (_action: AgentAction, key: string): Promise<void> => {
      log.push(`admitEarly ${key}`);
      return Promise.resolve();
    },
    stepsDurable: (): Promise<boolean> | boolean => true,
    callId: (_action: AgentAction, index: number | undefined) => `call-${index ?? "early"}`,
    idempotencyKey: (_action: AgentAction, index: number | undefined, _early?: number) => `key-${index ?? "early"}`,
    recorded: false,
    subRunPaused: (index: number) => {
      log.push(`subRunPaused ${index}`);
    },
    subRunDecisions: () => undefined,
    suppliedResult: () => undefined,
    timed: <T>(promise: Promise<T>): Promise<T> => promise,
  } satisfies ToolRunContext;
  return { run, finished, log, aborts };
}

/** A runner over a fake run whose early starts are recorded (each with its signal), not run. */
function earlyRunner(tools: StructuredToolInterface[], options: { eager?: (tool: StructuredToolInterface) => boolean; approvalOption?: boolean } = {}) {
  const fake = fakeRun(tools, options);
  const runner = new ToolRunner(fake.run);
  const started: { action: AgentAction; signal: AbortSignal; call: EarlyCall }[] = [];
  runner.startEarly = (action: AgentAction, signal: AbortSignal): EarlyCall => {
    const call: EarlyCall = { action, start: 0, key: `key-${started.length}`, result: Promise.resolve({ observation: "early", metadata: undefined }), controller: undefined };
    started.push({ action, signal, call });
    return call;
  };
  return { ...fake, runner, started };
}

const fakeTool = (name: string): StructuredToolInterface => ({ name, invoke: () => Promise.resolve("") }) as unknown as StructuredToolInterface;
const streamed = (name: string, args: string, id?: string) => ({ id, name, args });
const toolCall = (tool: string, toolInput: Record<string, unknown>, toolCallId?: string): AgentAction => ({ tool, toolInput, log: "", ...(toolCallId === undefined ? {} : { toolCallId }) });

const act = (tool: string, toolInput: Record<string, unknown> = {}): AgentAction => ({ tool, toolInput, log: "" });

/** Lets pending promise callbacks (and a setImmediate) run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("ToolRunner.runAll", () => {
  it("starts at most maxConcurrency calls, in index order, and reports each as it finishes (completion order)", async () => {
    const slow = gatedTool("slow");
    const { run, finished } = fakeRun([slow.tool], { maxConcurrency: 2 });
    const runner = new ToolRunner(run);
    const actions = [0, 1, 2, 3].map((n) => act("slow", { n }));
    const done = runner.runAll(actions, [0, 1, 2, 3]);
    await settle();
    expect(slow.calls.map((c) => c.input)).toEqual([{ n: 0 }, { n: 1 }]);
    slow.calls[1]?.result.resolve("one");
    await settle();
    expect(slow.calls.map((c) => c.input)).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
    slow.calls[0]?.result.resolve("zero");
    await settle();
    slow.calls[3]?.result.resolve("three");
    slow.calls[2]?.result.resolve("two");
    await done;
    expect(slow.maxRunning()).toBe(2);
    expect(finished.map((f) => [f.index, f.step.observation])).toEqual([
      [1, "one"],
      [0, "zero"],
      [3, "three"],
      [2, "two"],
    ]);
    expect(finished[0]?.step.action).toBe(actions[1]);
  });

  it("runs only the actions at the given indexes", async () => {
    const echo = plainTool("echo", (input) => JSON.stringify(input));
    const { run, finished } = fakeRun([echo.tool]);
    await new ToolRunner(run).runAll([act("echo", { n: 0 }), act("echo", { n: 1 }), act("echo", { n: 2 })], [0, 2]);
    expect(echo.calls.map((c) => c.input)).toEqual([{ n: 0 }, { n: 2 }]);
    expect(finished.map((f) => f.index).sort()).toEqual([0, 2]);
  });

  it("starts a held-back call at once when stepsDurable() returns true (no wait)", async () => {
    const slow = gatedTool("slow");
    const { run } = fakeRun([slow.tool], { maxConcurrency: 1 });
    let asked = 0;
    run.stepsDurable = () => {
      asked++;
      return true;
    };
    const done = new ToolRunner(run).runAll([act("slow", { n: 0 }), act("slow", { n: 1 })], [0, 1]);
    await settle();
    expect(asked).toBe(0); // the first calls start without asking
    slow.calls[0]?.result.resolve("a");
    // The first call's `.then` chain: the second starts within the same microtasks, before any macrotask.
    for (let i = 0; i < 10 && slow.calls.length < 2; i++) await Promise.resolve();
    expect(asked).toBe(1);
    expect(slow.calls).toHaveLength(2);
    slow.calls[1]?.result.resolve("b");
    await done;
  });

  it("waits on stepsDurable()'s promise before starting a held-back call, and asks again when another call finished meanwhile", async () => {
    const slow = gatedTool("slow");
    const { run, finished } = fakeRun([slow.tool], { maxConcurrency: 2 });
    const durable: Deferred<boolean>[] = [];
    run.stepsDurable = () => {
      const d = deferred<boolean>();
      durable.push(d);
      return d.promise;
    };
    const done = new ToolRunner(run).runAll([0, 1, 2].map((n) => act("slow", { n })), [0, 1, 2]);
    await settle();
    expect(slow.calls).toHaveLength(2);
    slow.calls[0]?.result.resolve("a");
    await settle();
    expect(durable).toHaveLength(1); // the third call waits for the first call's step to be durable
    expect(slow.calls).toHaveLength(2);
    slow.calls[1]?.result.resolve("b"); // finishes while the write is pending: its step must be durable too
    await settle();
    expect(durable).toHaveLength(1);
    durable[0]?.resolve(true);
    await settle();
    expect(durable).toHaveLength(2); // asked again, for the step that finished meanwhile
    expect(slow.calls).toHaveLength(2);
    durable[1]?.resolve(true);
    await settle();
    expect(slow.calls).toHaveLength(3);
    slow.calls[2]?.result.resolve("c");
    await done;
    expect(finished.map((f) => f.index)).toEqual([0, 1, 2]);
  });

  it("starts nothing more when stepsDurable() resolves false (the run was halted meanwhile)", async () => {
    const slow = gatedTool("slow");
    const { run } = fakeRun([slow.tool], { maxConcurrency: 1 });
    run.stepsDurable = () => Promise.resolve(false);
    void new ToolRunner(run).runAll([act("slow", { n: 0 }), act("slow", { n: 1 })], [0, 1]);
    await settle();
    slow.calls[0]?.result.resolve("a");
    await settle();
    await settle();
    expect(slow.calls).toHaveLength(1);
  });

  it("rejects when stepsDurable() rejects (the store failed)", async () => {
    const slow = gatedTool("slow");
    const { run } = fakeRun([slow.tool], { maxConcurrency: 1 });
    run.stepsDurable = () => Promise.reject(new Error("store down"));
    const done = new ToolRunner(run).runAll([act("slow", { n: 0 }), act("slow", { n: 1 })], [0, 1]);
    await settle();
    slow.calls[0]?.result.resolve("a");
    await expect(done).rejects.toThrow("store down");
    expect(slow.calls).toHaveLength(1);
  });

  it("once the run is interrupted, drops results and starts no more calls", async () => {
    const slow = gatedTool("slow");
    const { run, finished } = fakeRun([slow.tool], { maxConcurrency: 1 });
    const mutable = run as { interrupted: boolean };
    let asked = 0;
    run.stepsDurable = () => {
      asked++;
      return true;
    };
    void new ToolRunner(run).runAll([act("slow", { n: 0 }), act("slow", { n: 1 })], [0, 1]);
    await settle();
    mutable.interrupted = true;
    slow.calls[0]?.result.resolve("late");
    await settle();
    expect(finished).toEqual([]);
    expect(asked).toBe(0);
    expect(slow.calls).toHaveLength(1);
  });

  it("calls beforeToolStart before each call; when it throws, that call does not start and runAll rejects", async () => {
    const echo = plainTool("echo", () => "ok");
    const { run, log } = fakeRun([echo.tool]);
    await new ToolRunner(run).runAll([act("echo"), act("echo")], [0, 1]);
    expect(log).toEqual(["beforeToolStart", "beforeToolStart", "finished 0", "finished 1"]);
    const lost = new Error("lease lost");
    run.beforeToolStart = () => {
      throw lost;
    };
    await expect(new ToolRunner(run).runAll([act("echo")], [0])).rejects.toBe(lost);
    expect(echo.calls).toHaveLength(2);
  });

  it("maps a thrown non-Error value to an observation (handleToolRuntimeErrors: true)", async () => {
    const thrower = plainTool("thrower", () => {
      throw "plain string";
    });
    const rejecter = plainTool("rejecter", () => Promise.reject({ message: "an object" }));
    const { run, finished } = fakeRun([thrower.tool, rejecter.tool]);
    await new ToolRunner(run).runAll([act("thrower"), act("rejecter")], [0, 1]);
    const byIndex = new Map(finished.map((f) => [f.index, f.step.observation]));
    expect(byIndex.get(0)).toBe('Tool "thrower" failed with error: plain string');
    expect(byIndex.get(1)).toBe('Tool "rejecter" failed with error: an object');
  });

  it("rejects with the thrown value when handleToolRuntimeErrors is false, and when the run was interrupted", async () => {
    const thrower = plainTool("thrower", () => {
      throw 42;
    });
    const strict = fakeRun([thrower.tool], { handleToolRuntimeErrors: false });
    await expect(new ToolRunner(strict.run).runAll([act("thrower")], [0])).rejects.toBe(42);
    expect(strict.finished).toEqual([]);
    const halted = fakeRun([thrower.tool]);
    (halted.run as { interrupted: boolean }).interrupted = true;
    await expect(new ToolRunner(halted.run).runAll([act("thrower")], [0])).rejects.toBe(42);
  });

  it("answers a call of an unknown tool with the invalid-tool observation, without calling anything", async () => {
    const echo = plainTool("echo", () => "ok");
    const { run, finished } = fakeRun([echo.tool]);
    await new ToolRunner(run).runAll([act("nope")], [0]);
    expect(finished[0]?.step.observation).toBe(invalidToolObservation("nope", ["echo"]));
    expect(echo.calls).toHaveLength(0);
  });

  it("truncates an observation longer than maxObservationLength and reports its length", async () => {
    const long = plainTool("long", () => "x".repeat(50));
    const { run, finished } = fakeRun([long.tool], { maxObservationLength: 10 });
    await new ToolRunner(run).runAll([act("long")], [0]);
    expect(finished[0]?.metadata).toEqual({ observationLength: 50 });
    expect(String(finished[0]?.step.observation).startsWith("x".repeat(10))).toBe(true);
    expect(String(finished[0]?.step.observation)).toContain("truncated");
  });

  it("passes the idempotency key it is given for the call to the tool (getIdempotencyKey), keeping the configured metadata", async () => {
    const seen: (string | undefined)[] = [];
    const keyed = tool(
      async (_input: { n: number }, config) => {
        seen.push(getIdempotencyKey(config));
        return `tagged ${String((config.metadata as Record<string, unknown> | undefined)?.["tag"])}`;
      },
      { name: "keyed", description: "Reads its idempotency key.", schema: z.object({ n: z.number() }) },
    );
    const { run, finished } = fakeRun([keyed]);
    const asked: [AgentAction, number | undefined][] = [];
    run.idempotencyKey = (action, index) => {
      asked.push([action, index]);
      return `run-1:0:${index}`;
    };
    const runner = new ToolRunner(run);
    runner.configure({ metadata: { tag: "mine" } });
    const actions = [act("keyed", { n: 1 }), act("keyed", { n: 2 })];
    await runner.runAll(actions, [0, 1]);
    expect(asked).toEqual([
      [actions[0], 0],
      [actions[1], 1],
    ]);
    expect(seen.sort()).toEqual(["run-1:0:0", "run-1:0:1"]);
    expect(finished.map((f) => f.step.observation)).toEqual(["tagged mine", "tagged mine"]);
  });
});

describe("ToolRunner: early calls", () => {
  it("reuses an early call's result for its index: the tool is not called again, and no beforeToolStart", async () => {
    const echo = plainTool("echo", () => "fresh");
    const { run, finished, log } = fakeRun([echo.tool]);
    const earlyAction = act("echo", { n: 1 });
    const runner = new ToolRunner(run);
    runner.startEarly = () => ({ action: earlyAction, start: 0, key: "key-early", result: Promise.resolve({ observation: "from early", metadata: undefined }), controller: undefined });
    runner.startStreamed("m1", streamed("echo", '{"n":1}'));
    const actions = [act("echo", { n: 0 }), act("echo", { n: 1 })];
    runner.matchTurn(actions);
    await runner.runAll(actions, [0, 1]);
    expect(echo.calls.map((c) => c.input)).toEqual([{ n: 0 }]);
    expect(log.filter((entry) => entry === "beforeToolStart")).toHaveLength(1);
    expect(new Map(finished.map((f) => [f.index, f.step.observation]))).toEqual(
      new Map([
        [0, "fresh"],
        [1, "from early"],
      ]),
    );
  });

  it("startEarly: the call starts only once admitEarly (with the call's key) resolved, under the given signal", async () => {
    const seen: { key: string | undefined; signal: AbortSignal | undefined }[] = [];
    const echo = plainTool("echo", (_input, config) => {
      seen.push({ key: getIdempotencyKey(config), signal: config.signal });
      return "early result";
    });
    const { run, log } = fakeRun([echo.tool]);
    const admitted = deferred<void>();
    run.admitEarly = (_action, key) => {
      log.push(`admitEarly ${key}`);
      return admitted.promise;
    };
    const controller = new AbortController();
    const call = new ToolRunner(run).startEarly(act("echo", { n: 1 }), controller.signal);
    expect(call.key).toBe("key-early");
    await settle();
    expect(log).toEqual(["admitEarly key-early"]);
    expect(echo.calls).toHaveLength(0);
    admitted.resolve();
    await expect(call.result).resolves.toEqual({ observation: "early result", metadata: {} });
    expect(log).toEqual(["admitEarly key-early", "beforeToolStart"]);
    expect(seen).toEqual([{ key: "key-early", signal: controller.signal }]);
  });

  it("startEarly: nothing starts when admission is refused (a budget spent) or the call was aborted meanwhile", async () => {
    const echo = plainTool("echo", () => "never");
    const refused = fakeRun([echo.tool]);
    const budget = new Error("budget spent");
    refused.run.admitEarly = () => Promise.reject(budget);
    await expect(new ToolRunner(refused.run).startEarly(act("echo"), new AbortController().signal).result).rejects.toBe(budget);
    const aborted = fakeRun([echo.tool]);
    const controller = new AbortController();
    const call = new ToolRunner(aborted.run).startEarly(act("echo"), controller.signal);
    const reason = new Error("not kept");
    controller.abort(reason);
    await expect(call.result).rejects.toBe(reason);
    expect(echo.calls).toHaveLength(0);
    expect(aborted.log).not.toContain("beforeToolStart");
  });
});

describe("ToolRunner.startStreamed: which streamed calls start early (eager dispatch)", () => {
  it("keys an early call streamed without an id apart from the others, and a call streamed again after a retried model call under its first key", async () => {
    const fake = fakeRun([fakeTool("a")]);
    fake.run.idempotencyKey = (_action: AgentAction, index: number | undefined, early?: number) => `key-${index ?? `early-${early}`}`;
    const runner = new ToolRunner(fake.run);
    runner.startStreamed("m1", streamed("a", '{"n":1}'));
    runner.startStreamed("m1", streamed("a", '{"n":2}'));
    runner.dropModelCall("m1"); // the model call failed and is retried: it streams the same calls again
    runner.startStreamed("m2", streamed("a", '{"n":2}'));
    runner.startStreamed("m2", streamed("a", '{"n":3}'));
    await settle();
    expect(fake.log.filter((entry) => entry.startsWith("admitEarly"))).toEqual(["admitEarly key-early-0", "admitEarly key-early-1", "admitEarly key-early-1", "admitEarly key-early-3"]);
    // A new agent call (the last one's calls were taken or dropped): its calls have keys of their own.
    runner.dropEarly();
    runner.resetTurn();
    runner.startStreamed("m3", streamed("a", '{"n":2}'));
    await settle();
    expect(fake.log.filter((entry) => entry.startsWith("admitEarly")).at(-1)).toBe("admitEarly key-early-4");
  });

  it("starts a call of an eager tool with its parsed input (and call id), under a signal of its own", () => {
    const fake = earlyRunner([fakeTool("search")]);
    fake.runner.startStreamed("m1", streamed("search", '{"q":"cats"}', "tc-1"));
    expect(fake.started).toHaveLength(1);
    expect(fake.started[0]?.action).toEqual({ tool: "search", toolInput: { q: "cats" }, log: "", toolCallId: "tc-1" });
    expect(fake.started[0]?.signal).not.toBe(fake.run.aborts.signal);
    expect(fake.started[0]?.call.controller?.signal).toBe(fake.started[0]?.signal);
  });

  it("reads empty arguments as an empty input, and leaves toolCallId out without an id", () => {
    const fake = earlyRunner([fakeTool("now")]);
    fake.runner.startStreamed("m1", streamed("now", "  "));
    expect(fake.started[0]?.action).toEqual({ tool: "now", toolInput: {}, log: "" });
  });

  it("starts nothing for an unknown tool, a tool the eager option leaves out, or none when eagerTools is off", () => {
    const a = fakeTool("a");
    const b = fakeTool("b");
    const some = earlyRunner([a, b], { eager: (tool) => tool.name === "a" });
    const runner = some.runner;
    runner.startStreamed("m1", streamed("b", "{}", "1"));
    runner.startStreamed("m1", streamed("zzz", "{}", "2"));
    expect(some.started).toEqual([]);
    runner.startStreamed("m1", streamed("a", "{}", "3"));
    expect(some.started).toHaveLength(1);
    const off = earlyRunner([a], { eager: undefined });
    off.runner.startStreamed("m1", streamed("a", "{}", "1"));
    expect(off.started).toEqual([]);
  });

  it("never starts a call that may need approval: the executor's needsApproval, or a tool marked withApproval", () => {
    const needsApproval = earlyRunner([fakeTool("a")], { approvalOption: true });
    needsApproval.runner.startStreamed("m1", streamed("a", "{}", "1"));
    expect(needsApproval.started).toEqual([]);
    const marked = earlyRunner([markToolApproval(fakeTool("pay"), true), markToolApproval(fakeTool("maybe"), () => false)]);
    const runner = marked.runner;
    runner.startStreamed("m1", streamed("pay", "{}", "1"));
    runner.startStreamed("m1", streamed("maybe", "{}", "2"));
    expect(marked.started).toEqual([]);
  });

  it("starts nothing for arguments that are not a JSON object", () => {
    const fake = earlyRunner([fakeTool("a")]);
    const runner = fake.runner;
    for (const args of ['{"q":', "[1,2]", "null", '"text"', "3"]) runner.startStreamed("m1", streamed("a", args));
    expect(fake.started).toEqual([]);
  });

  it("starts nothing once the run is interrupted", () => {
    const fake = earlyRunner([fakeTool("a")]);
    (fake.run as { interrupted: boolean }).interrupted = true;
    fake.runner.startStreamed("m1", streamed("a", "{}", "1"));
    expect(fake.started).toEqual([]);
  });

  it("starts a call once: the same id, or without one the same tool and input, streamed again starts nothing", () => {
    const fake = earlyRunner([fakeTool("a")]);
    const runner = fake.runner;
    runner.startStreamed("m1", streamed("a", '{"n":1}', "1"));
    runner.startStreamed("m1", streamed("a", '{"n":1}', "1"));
    runner.startStreamed("m1", streamed("a", '{"n":2}'));
    runner.startStreamed("m2", streamed("a", '{"n":2}'));
    runner.startStreamed("m1", streamed("a", '{"n":3}'));
    expect(fake.started.map((s) => s.action.toolInput)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });

  it("links an early call's signal to the run's: aborting the run aborts it", () => {
    const fake = earlyRunner([fakeTool("a")]);
    fake.runner.startStreamed("m1", streamed("a", "{}", "1"));
    const reason = new Error("cancelled");
    fake.aborts.abortAll(reason);
    expect(fake.started[0]?.signal.aborted).toBe(true);
  });
});

describe("ToolRunner: the turn keeps its early calls", () => {
  it("matchTurn gives each action the early call with its id, tool and input; the others are aborted", () => {
    const fake = earlyRunner([fakeTool("a"), fakeTool("b")]);
    const runner = fake.runner;
    runner.startStreamed("m1", streamed("a", '{"n":1}', "1"));
    runner.startStreamed("m1", streamed("b", '{"n":2}', "2")); // the final answer calls it with another input
    runner.startStreamed("m1", streamed("a", '{"n":3}')); // no id: matched by tool and input
    runner.startStreamed("m1", streamed("a", '{"n":4}', "4")); // not in the final answer
    runner.matchTurn([toolCall("a", { n: 1 }, "1"), toolCall("b", { n: 20 }, "2"), toolCall("a", { n: 3 }), toolCall("c", {})]);
    // The early call as it started: its result and key (the turn's call keeps the key).
    expect(runner.earlyCall(0)?.result).toBe(fake.started[0]?.call.result);
    expect(runner.earlyCall(0)?.key).toBe("key-0");
    expect(runner.earlyCall(1)).toBeUndefined();
    expect(runner.earlyCall(2)?.result).toBe(fake.started[2]?.call.result);
    expect(runner.earlyCall(2)?.key).toBe("key-2");
    expect(runner.earlyCall(3)).toBeUndefined();
    expect(fake.started.map((s) => s.signal.aborted)).toEqual([false, true, false, true]);
    const reason = fake.started[3]?.signal.reason;
    expect(reason).toBeInstanceOf(AbortError);
    expect((reason as Error).message).toContain("did not keep this early tool call");
  });

  it("a kept early call stays linked to the run's signal: a limit or a cancellation still stops it", () => {
    const fake = earlyRunner([fakeTool("a")]);
    const runner = fake.runner;
    runner.startStreamed("m1", streamed("a", "{}", "1"));
    runner.matchTurn([toolCall("a", {}, "1")]);
    fake.aborts.halt(new Error("halted"));
    expect(fake.started[0]?.signal.aborted).toBe(true);
  });

  it("a later turn does not see calls a previous turn kept or dropped; resetTurn forgets the turn's matches", () => {
    const fake = earlyRunner([fakeTool("a")]);
    const runner = fake.runner;
    runner.startStreamed("m1", streamed("a", "{}", "1"));
    runner.matchTurn([toolCall("a", {}, "1")]);
    expect(runner.earlyCall(0)).toBeDefined();
    runner.resetTurn();
    expect(runner.earlyCall(0)).toBeUndefined();
    runner.matchTurn([toolCall("a", {}, "1")]); // nothing early any more: the turn keeps nothing
    expect(runner.earlyCall(0)).toBeUndefined();
  });

  it("dropModelCall aborts only the early calls of that model call; dropEarly aborts every one not taken", () => {
    const fake = earlyRunner([fakeTool("a")]);
    const runner = fake.runner;
    runner.startStreamed("m1", streamed("a", '{"n":1}', "1"));
    runner.startStreamed("m2", streamed("a", '{"n":2}', "2"));
    runner.startStreamed("m2", streamed("a", '{"n":3}', "3"));
    runner.dropModelCall("m2");
    expect(fake.started.map((s) => s.signal.aborted)).toEqual([false, true, true]);
    // A dropped call is forgotten: the same call streamed again (a retried model call) starts anew.
    runner.startStreamed("m3", streamed("a", '{"n":2}', "2"));
    expect(fake.started).toHaveLength(4);
    runner.dropEarly();
    expect(fake.started.map((s) => s.signal.aborted)).toEqual([true, true, true, true]);
    runner.matchTurn([toolCall("a", { n: 1 }, "1")]);
    expect(runner.earlyCall(0)).toBeUndefined();
  });

  it("idempotencyKey: the key a kept early call started with, else the run's key for the call", () => {
    const fake = earlyRunner([fakeTool("a")]);
    const { runner } = fake;
    runner.startStreamed("m1", streamed("a", "{}", "1"));
    const actions = [toolCall("a", {}, "1"), toolCall("a", { n: 2 }, "2")];
    runner.matchTurn(actions);
    expect(runner.idempotencyKey(actions[0] as AgentAction, 0)).toBe("key-0");
    expect(runner.idempotencyKey(actions[1] as AgentAction, 1)).toBe("key-1");
  });
});

describe("ToolRunner.returnsDirect", () => {
  it("is true only for a tool marked returnDirect", () => {
    const direct = plainTool("direct", () => "", { returnDirect: true });
    const normal = plainTool("normal", () => "");
    const runner = new ToolRunner(fakeRun([direct.tool, normal.tool]).run);
    expect(runner.returnsDirect(act("direct"))).toBe(true);
    expect(runner.returnsDirect(act("normal"))).toBe(false);
    expect(runner.returnsDirect(act("unknown"))).toBe(false);
  });
});
