import { AbortError } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import type { AgentInput } from "@agentrx/core";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { act, collect, deferred, finish, scriptedAgent } from "./test-helpers";

/** A tool that never finishes on its own and reports its signal's abort. */
function hangingTool() {
  const started = deferred();
  const aborted = deferred<unknown>();
  const hang = tool(
    async (_input: Record<string, never>, config) => {
      config.signal?.addEventListener("abort", () => aborted.resolve(config.signal?.reason));
      started.resolve();
      return new Promise<string>(() => undefined);
    },
    { name: "hang", description: "never returns", schema: z.object({}) },
  );
  return { hang, started, aborted };
}

/** An AbortSignal whose listener count we can read. */
function countingSignal() {
  const controller = new AbortController();
  const signal = controller.signal;
  let listeners = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((type: string, listener: EventListener, options?: AddEventListenerOptions) => {
    if (type === "abort") listeners++;
    add(type, listener, options);
  }) as typeof signal.addEventListener;
  signal.removeEventListener = ((type: string, listener: EventListener, options?: EventListenerOptions) => {
    if (type === "abort") listeners--;
    remove(type, listener, options);
  }) as typeof signal.removeEventListener;
  return { controller, signal, listeners: () => listeners };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("AgentExecutor cancellation", () => {
  it("unsubscribing while a tool runs fires the tool's signal and starts no further model call", async () => {
    const { hang, started, aborted } = hangingTool();
    const model = new ScriptedChatModel({ responses: ["never reached", "never reached"] });
    let modelCalls = 0;
    const agent = RunnableLambda.from(async () => {
      modelCalls++;
      if (modelCalls > 1) await model.invoke("again");
      return act("hang");
    });
    const subscription = new AgentExecutor({ agent, tools: [hang] }).stream({ input: "go" }).subscribe();
    await started.promise;
    subscription.unsubscribe();
    const reason = await aborted.promise;
    expect(AbortError.isInstance(reason)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(modelCalls).toBe(1);
    expect(model.calls).toHaveLength(0);
  });

  it("unsubscribing while the model runs aborts the model call", async () => {
    const model = new ScriptedChatModel({ responses: ["slow"], latencyMs: 60_000 });
    const modelAborted = deferred<unknown>();
    const agent = RunnableLambda.from(async (_input: unknown, config) => {
      config.signal?.addEventListener("abort", () => modelAborted.resolve(config.signal?.reason));
      await model.invoke("hi", { signal: config.signal });
      return finish("never");
    });
    vi.useFakeTimers();
    const subscription = new AgentExecutor({ agent, tools: [] }).invoke({ input: "go" }).subscribe();
    await vi.advanceTimersByTimeAsync(10);
    expect(model.calls).toHaveLength(1);
    subscription.unsubscribe();
    expect(AbortError.isInstance(await modelAborted.promise)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("aborting config.signal errors with an AbortError and aborts the tools", async () => {
    const { hang, started, aborted } = hangingTool();
    const { agent, inputs } = scriptedAgent([act("hang"), finish("never")]);
    const controller = new AbortController();
    const result = collect(new AgentExecutor({ agent, tools: [hang] }).invoke({ input: "go" }, { signal: controller.signal }));
    await started.promise;
    controller.abort("user pressed stop");
    const error = await result.catch((caught: unknown) => caught);
    expect((error as Error).name).toBe("AbortError");
    expect(AbortError.isInstance(error)).toBe(true);
    expect((error as AbortError).reason).toBe("user pressed stop");
    await aborted.promise;
    expect(inputs).toHaveLength(1);
  });

  it("unsubscribing during the generate call aborts it", async () => {
    const aborted = deferred<unknown>();
    const started = deferred();
    const agent = RunnableLambda.from(async (_input: unknown, config) => {
      config.signal?.addEventListener("abort", () => aborted.resolve(config.signal?.reason));
      started.resolve();
      return new Promise<never>(() => undefined);
    });
    const executor = new AgentExecutor({ agent, tools: [], maxIterations: 0, earlyStoppingMethod: "generate" });
    const subscription = executor.stream({ input: "go" }).subscribe();
    await started.promise;
    subscription.unsubscribe();
    expect(AbortError.isInstance(await aborted.promise)).toBe(true);
  });

  it("without limits, ends at once on cancellation and calls the agent no more when a tool that ignores its signal settles later", async () => {
    const started = deferred();
    const release = deferred<string>();
    const stubborn = tool(
      async () => {
        started.resolve();
        return release.promise; // ignores its signal
      },
      { name: "stubborn", description: "s", schema: z.object({}) },
    );
    const { agent, inputs } = scriptedAgent([act("stubborn"), finish("never")]);
    const controller = new AbortController();
    const events: string[] = [];
    const done = new Promise<unknown>((resolve) =>
      new AgentExecutor({ agent, tools: [stubborn] }).stream({ input: "go" }, { signal: controller.signal }).subscribe({
        next: (event) => events.push(event.type),
        error: resolve,
        complete: () => resolve("completed"),
      }),
    );
    await started.promise;
    controller.abort("user pressed stop");
    expect(AbortError.isInstance(await done)).toBe(true);
    release.resolve("late");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(inputs).toHaveLength(1);
    expect(events).toEqual(["start", "action"]);
  });

  it("errors at once, calling nothing, when config.signal is already aborted", async () => {
    const { agent, inputs } = scriptedAgent([finish("never")]);
    const controller = new AbortController();
    controller.abort();
    await expect(
      collect(new AgentExecutor({ agent, tools: [] }).invoke({ input: "go" }, { signal: controller.signal })),
    ).rejects.toMatchObject({ name: "AbortError" });
    expect(inputs).toHaveLength(0);
  });

  it("leaves no listener on config.signal and no timer after a completed run", async () => {
    vi.useFakeTimers();
    const { signal, listeners } = countingSignal();
    const { agent } = scriptedAgent([act("hang2"), finish("done")]);
    const executor = new AgentExecutor({ agent, tools: [], maxExecutionTime: 10_000 });
    const [result] = await collect(executor.invoke({ input: "go" }, { signal }));
    expect(result?.output).toBe("done");
    expect(listeners()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("leaves no listener on config.signal and no timer after a cancelled run", async () => {
    vi.useFakeTimers();
    const { hang, started, aborted } = hangingTool();
    const { signal, listeners } = countingSignal();
    const { agent } = scriptedAgent([act("hang"), finish("never")]);
    const executor = new AgentExecutor({ agent, tools: [hang], maxExecutionTime: 10_000 });
    const subscription = executor.stream({ input: "go" }, { signal }).subscribe();
    await started.promise;
    expect(listeners()).toBeGreaterThan(0);
    expect(vi.getTimerCount()).toBe(1);
    subscription.unsubscribe();
    await aborted.promise;
    expect(listeners()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("aborting config.signal while the model runs aborts the model call, starts no tool and leaves nothing behind", async () => {
    vi.useFakeTimers();
    const { signal, controller, listeners } = countingSignal();
    const model = new ScriptedChatModel({ responses: ["slow"], latencyMs: 60_000 });
    const modelAborted = deferred<unknown>();
    let toolCalls = 0;
    const probe = tool(
      async () => {
        toolCalls++;
        return "ran";
      },
      { name: "probe", description: "p", schema: z.object({}) },
    );
    const agent = RunnableLambda.from(async (_input: unknown, config) => {
      config.signal?.addEventListener("abort", () => modelAborted.resolve(config.signal?.reason));
      await model.invoke("hi", { signal: config.signal });
      return act("probe");
    });
    const executor = new AgentExecutor({ agent, tools: [probe], maxExecutionTime: 120_000 });
    const result = collect(executor.stream({ input: "go" }, { signal })).catch((caught: unknown) => caught);
    await vi.advanceTimersByTimeAsync(10);
    expect(model.calls).toHaveLength(1);
    expect(listeners()).toBe(1);
    controller.abort("stop");
    const error = await result;
    expect((error as Error).name).toBe("AbortError");
    expect(AbortError.isInstance(await modelAborted.promise)).toBe(true);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(toolCalls).toBe(0);
    expect(listeners()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("leaves no listener on config.signal and no timer after a failed run", async () => {
    vi.useFakeTimers();
    const { signal, listeners } = countingSignal();
    const broken = tool(
      async () => {
        throw new Error("broken tool");
      },
      { name: "broken", description: "b", schema: z.object({}) },
    );
    const { agent } = scriptedAgent([act("broken"), finish("never")]);
    const executor = new AgentExecutor({ agent, tools: [broken], handleToolRuntimeErrors: false, maxExecutionTime: 10_000 });
    await expect(collect(executor.invoke({ input: "go" }, { signal }))).rejects.toThrow("broken tool");
    expect(listeners()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("after a time limit, aborting config.signal cancels the generate call and errors with an AbortError", async () => {
    vi.useFakeTimers();
    const { signal, controller, listeners } = countingSignal();
    const generating = deferred();
    const generateAborted = deferred<unknown>();
    const agent = RunnableLambda.from(async (input: AgentInput, config) => {
      if (input.forceFinalAnswer) {
        config.signal?.addEventListener("abort", () => generateAborted.resolve(config.signal?.reason));
        generating.resolve();
      }
      // Both calls wait for their signal: the first is cut short by the time limit, the second by the user.
      return new Promise<never>((_resolve, reject) => config.signal?.addEventListener("abort", () => reject(config.signal?.reason)));
    });
    const executor = new AgentExecutor({ agent, tools: [], maxExecutionTime: 50, earlyStoppingMethod: "generate" });
    const result = collect(executor.stream({ input: "go" }, { signal })).catch((caught: unknown) => caught);
    await vi.advanceTimersByTimeAsync(50);
    await generating.promise;
    controller.abort("user gave up");
    const error = await result;
    expect(AbortError.isInstance(error)).toBe(true);
    expect((error as AbortError).reason).toBe("user gave up");
    expect(AbortError.isInstance(await generateAborted.promise)).toBe(true);
    expect(listeners()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
