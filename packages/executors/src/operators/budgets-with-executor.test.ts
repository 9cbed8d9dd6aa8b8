// The budgets against a real AgentExecutor running createToolCallingAgent on a ScriptedChatModel.
import { EARLY_STOP_OUTPUT } from "@agentrx/core";
import type { AgentStreamEvent } from "@agentrx/executors";
import { afterEach, describe, expect, it, vi } from "vitest";
import { all, lastOutput, searchCall, setup } from "./executor-fixtures";
import { stopWhenAny } from "./stop-when-any";
import { timeBudget } from "./time-budget";
import { tokenBudget } from "./token-budget";
import { toolCallBudget } from "./tool-call-budget";

describe("budgets with the executor", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("toolCallBudget lets at most N tool calls run, then forces a stop", async () => {
    const { executor, searched } = setup([searchCall("Paris"), searchCall("Lyon"), "Never reached."]);
    const { output, events } = await lastOutput(executor.stream({ input: "Weather?" }, { stopWhen: toolCallBudget(1) }));
    expect(searched).toEqual(["Paris"]);
    expect(output.stopReason).toBe("budget");
    expect(output.output).toBe("Agent stopped because its tool-call budget was spent (2 used of 1).");
    expect(output.output).not.toBe(EARLY_STOP_OUTPUT);
    expect(events.filter((event) => event.type === "step")).toHaveLength(1);
  });

  it("toolCallBudget runs none of a turn that asks for more calls than remain", async () => {
    const { executor, searched } = setup([
      searchCall("Paris"),
      { toolCalls: [{ name: "search", args: { query: "Lyon" } }, { name: "search", args: { query: "Nice" } }] },
      "Never reached.",
    ]);
    const { output, events } = await lastOutput(executor.stream({ input: "Weather?" }, { stopWhen: toolCallBudget(2) }));
    expect(searched).toEqual(["Paris"]);
    expect(output.stopReason).toBe("budget");
    expect(events.filter((event) => event.type === "action")).toHaveLength(3);
    expect(events.filter((event) => event.type === "step")).toHaveLength(1);
  });

  it("toolCallBudget lets the agent answer after using its whole budget", async () => {
    const { executor } = setup([searchCall("Paris"), "Sunny."]);
    const [result] = await all(executor.invoke({ input: "Weather?" }, { stopWhen: toolCallBudget(1) }));
    expect(result?.output).toBe("Sunny.");
  });

  it("with earlyStoppingMethod generate, the agent answers from the steps without tools", async () => {
    const { executor, model } = setup([searchCall("Paris"), searchCall("Lyon"), "Paris is sunny."], {
      earlyStoppingMethod: "generate",
      stopWhen: toolCallBudget(1),
    });
    const { output } = await lastOutput(executor.stream({ input: "Weather?" }));
    expect(output).toMatchObject({
      output: "Paris is sunny.",
      stopReason: "budget",
      stoppedBy: { budget: "tool_calls", limit: 1, used: 2 },
    });
    expect(model.calls.map((call) => call.toolNames)).toEqual([["search"], ["search"], []]);
  });

  it("tokenBudget stops before the tools of the call that spent it run", async () => {
    const { executor, searched, model } = setup([
      searchCall("Paris", { inputTokens: 15, outputTokens: 5 }),
      searchCall("Lyon", { inputTokens: 25, outputTokens: 5 }),
      "Never reached.",
    ]);
    const { output } = await lastOutput(executor.stream({ input: "Weather?" }, { stopWhen: tokenBudget(50) }));
    expect(output.stopReason).toBe("budget");
    expect(searched).toEqual(["Paris"]);
    expect(model.calls).toHaveLength(2);
  });

  it("tokenBudget keeps a final answer that spends the budget", async () => {
    const { executor } = setup([
      searchCall("Paris", { inputTokens: 15, outputTokens: 5 }),
      { content: "Sunny.", usage: { inputTokens: 40, outputTokens: 2 } },
    ]);
    const { output } = await lastOutput(executor.stream({ input: "Weather?" }, { stopWhen: tokenBudget(50) }));
    expect(output).toMatchObject({ output: "Sunny.", stopReason: "finish" });
  });

  it("timeBudget cancels the model call in flight and stops the run (fake timers)", async () => {
    vi.useFakeTimers();
    const { executor, searched } = setup([searchCall("Paris"), searchCall("Lyon"), "Never reached."], {}, { latencyMs: 1_000 });
    const events: AgentStreamEvent[] = [];
    let completed = false;
    executor.stream({ input: "Weather?" }, { stopWhen: [timeBudget(1_500), toolCallBudget(10)] }).subscribe({
      next: (event) => events.push(event),
      complete: () => (completed = true),
    });
    await vi.advanceTimersByTimeAsync(1_499);
    expect(completed).toBe(false);
    expect(searched).toEqual(["Paris"]);
    await vi.advanceTimersByTimeAsync(1);
    expect(completed).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "output", output: "Agent stopped because its time budget was spent (1500 used of 1500).", stopReason: "budget" });
    expect(searched).toEqual(["Paris"]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("stopWhen [a, b] (executor and call) stops at whichever fires first and says which", async () => {
    vi.useFakeTimers();
    const { executor, searched } = setup(
      [searchCall("Paris", { inputTokens: 15, outputTokens: 5 }), searchCall("Lyon", { inputTokens: 25, outputTokens: 5 }), "Never reached."],
      { stopWhen: [toolCallBudget(5), timeBudget(60_000)] },
    );
    const done = lastOutput(executor.stream({ input: "Weather?" }, { stopWhen: [tokenBudget(50)] }));
    await vi.advanceTimersByTimeAsync(0);
    const { output } = await done;
    expect(output).toMatchObject({ stopReason: "budget", stoppedBy: { budget: "tokens", limit: 50, used: 50 } });
    expect(searched).toEqual(["Paris"]);
    expect(vi.getTimerCount()).toBe(0); // the time budget's timer went with the run

    const { executor: second } = setup([searchCall("Paris"), searchCall("Lyon"), "Never reached."]);
    const stopped = await lastOutput(second.stream({ input: "Weather?" }, { stopWhen: stopWhenAny(tokenBudget(1_000), toolCallBudget(1)) }));
    expect(stopped.output).toMatchObject({ stopReason: "budget", stoppedBy: { budget: "tool_calls", limit: 1, used: 2 } });
  });

  it("a run that ends under budget leaves no timer behind, also when unsubscribed", async () => {
    vi.useFakeTimers();
    const { executor } = setup([searchCall("Paris"), "Sunny."]);
    const finished = lastOutput(executor.stream({ input: "Weather?" }, { stopWhen: timeBudget(60_000) }));
    await vi.advanceTimersByTimeAsync(0);
    expect((await finished).output).toMatchObject({ output: "Sunny.", stopReason: "finish" });
    expect(vi.getTimerCount()).toBe(0);

    const slow = setup([searchCall("Paris")], {}, { latencyMs: 10_000 });
    const subscription = slow.executor.stream({ input: "Weather?" }, { stopWhen: timeBudget(60_000) }).subscribe();
    await vi.advanceTimersByTimeAsync(100);
    expect(vi.getTimerCount()).toBeGreaterThan(0);
    subscription.unsubscribe();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("timeBudget(0) stops the run before the agent is called", async () => {
    const { executor, model } = setup(["Hello."]);
    const { output } = await lastOutput(executor.stream({ input: "Hi" }, { stopWhen: timeBudget(0) }));
    expect(output).toMatchObject({
      output: "Agent stopped because its time budget was spent (0 used of 0).",
      stopReason: "budget",
      stoppedBy: { budget: "time", limit: 0, used: 0 },
    });
    expect(model.calls).toHaveLength(0);
  });
});
