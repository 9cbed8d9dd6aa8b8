import { InvalidArgumentError } from "@agentrx/core";
import { Subject } from "rxjs";
import { TestScheduler } from "rxjs/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AgentStreamEvent } from "../executor/events";
import type { BudgetSpent } from "./budget-spent";
import { stopWhenAny } from "./stop-when-any";
import { actionEvent, outputEvent, stepEvent, tokenEvent, usageEvent } from "./test-events";
import { timeBudget } from "./time-budget";
import { costBudget } from "./cost-budget";
import { tokenBudget } from "./token-budget";
import { toolCallBudget } from "./tool-call-budget";

const scheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

const spent = (budget: BudgetSpent["budget"], limit: number, used: number): BudgetSpent => ({ budget, limit, used });

describe("costBudget", () => {
  const priced = (iteration: number, total: number): AgentStreamEvent => {
    const event = usageEvent(iteration, 10, 10);
    return { ...event, usage: { ...event.usage, cost: { input: total, output: 0, total, currency: "USD" } } } as AgentStreamEvent;
  };

  it("adds costs as decimal amounts add up: $0.70 and $0.10 spend a budget of $0.80", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const source = cold("a-A-S-b-B-o|", { a: priced(0, 0.7), A: actionEvent(0, "search"), S: stepEvent(0, "search", "ok"), b: priced(1, 0.1), B: actionEvent(1, "search"), o: outputEvent("done") });
      expectObservable(source.pipe(costBudget(0.8))).toBe("--------(x|)", { x: spent("cost", 0.8, 0.8) });
    });
  });
});

describe("tokenBudget", () => {
  // Three model calls of 50, 70 and 90 tokens; the first two ask for a tool.
  const events = {
    t: tokenEvent(0, "hi"),
    a: usageEvent(0, 40, 10),
    A: actionEvent(0, "search"),
    S: stepEvent(0, "search", "ok"),
    b: usageEvent(1, 50, 20),
    B: actionEvent(1, "search"),
    T: stepEvent(1, "search", "ok"),
    c: usageEvent(2, 60, 30),
    o: outputEvent("done"),
  };
  const run = "t-a-A-S-b-B-T-c-o|";

  it("fires when the call that spent the budget asks for a tool, before the tool runs", () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<AgentStreamEvent>(run, events);
      expectObservable(source.pipe(tokenBudget(120))).toBe("----------(x|)", { x: spent("tokens", 120, 120) });
      expectSubscriptions(source.subscriptions).toBe("^---------!");
    });
  });

  it("lets a call that spends the budget with its final answer finish the run", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const source = cold<AgentStreamEvent>(run, events);
      expectObservable(source.pipe(tokenBudget(200))).toBe("-----------------|");
    });
  });

  it("fires at the step of a parsing error, and at any event of a later call", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const parsingError = cold<AgentStreamEvent>("a-e|", { a: usageEvent(0, 5, 5), e: stepEvent(0, "_Exception", "bad") });
      expectObservable(parsingError.pipe(tokenBudget(10))).toBe("--(x|)", { x: spent("tokens", 10, 10) });
      const laterCall = cold<AgentStreamEvent>("a-t|", { a: usageEvent(0, 5, 5), t: tokenEvent(1, "more") });
      expectObservable(laterCall.pipe(tokenBudget(10))).toBe("--(x|)", { x: spent("tokens", 10, 10) });
    });
  });

  it("counts input or output tokens only when asked", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const source = cold<AgentStreamEvent>(run, events);
      expectObservable(source.pipe(tokenBudget(90, { count: "input" }))).toBe("----------(x|)", {
        x: spent("tokens", 90, 90),
      });
      expectObservable(source.pipe(tokenBudget(10, { count: "output" }))).toBe("----(x|)", {
        x: spent("tokens", 10, 10),
      });
    });
  });

  it("falls back to input + output when a model reports no total", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const source = cold<AgentStreamEvent>("a-A|", { a: usageEvent(0, 7, 3, 0), A: actionEvent(0, "search") });
      expectObservable(source.pipe(tokenBudget(10))).toBe("--(x|)", { x: spent("tokens", 10, 10) });
    });
  });

  it("never fires when the run stays under budget", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const source = cold<AgentStreamEvent>(run, events);
      expectObservable(source.pipe(tokenBudget(1_000))).toBe("-----------------|");
    });
  });

  it("validates its arguments, naming them", () => {
    for (const bad of [0, -5, 1.5, Number.NaN, "10" as unknown as number]) {
      expect(() => tokenBudget(bad)).toThrowError(InvalidArgumentError);
    }
    expect(() => tokenBudget(0)).toThrowError(/maxTokens/);
    expect(() => tokenBudget(10, { count: "prompt" as "input" })).toThrowError(/`count` must be/);
  });
});

describe("toolCallBudget", () => {
  it("fires at the action that would exceed the budget, not at the last allowed one", () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<AgentStreamEvent>("a-s-b-s-c-s-o|", {
        a: actionEvent(0, "search"),
        b: actionEvent(1, "search"),
        c: actionEvent(2, "search"),
        s: stepEvent(0, "search", "ok"),
        o: outputEvent("done"),
      });
      expectObservable(source.pipe(toolCallBudget(2))).toBe("--------(x|)", {
        x: spent("tool_calls", 2, 3),
      });
      expectSubscriptions(source.subscriptions).toBe("^-------!");
    });
  });

  it("lets an agent that uses exactly its budget finish", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const source = cold<AgentStreamEvent>("a-s-t-o|", {
        a: actionEvent(0, "search"),
        s: stepEvent(0, "search", "ok"),
        t: tokenEvent(1, "done"),
        o: outputEvent("done"),
      });
      expectObservable(source.pipe(toolCallBudget(1))).toBe("-------|");
    });
  });

  it("does not count handled parsing errors; 0 stops at the first tool call", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const source = cold<AgentStreamEvent>("e-a|", {
        e: stepEvent(0, "_Exception", "Invalid Format"),
        a: actionEvent(1, "search"),
      });
      expectObservable(source.pipe(toolCallBudget(0))).toBe("--(x|)", { x: spent("tool_calls", 0, 1) });
    });
  });

  it("validates maxCalls", () => {
    for (const bad of [-1, 2.5, Number.POSITIVE_INFINITY]) {
      expect(() => toolCallBudget(bad)).toThrowError(/toolCallBudget: `maxCalls` must be an integer >= 0/);
    }
  });
});

describe("timeBudget", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("fires after the given time, counted from subscription", () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<AgentStreamEvent>("a 200ms b 200ms |", { a: tokenEvent(0, "x"), b: tokenEvent(0, "y") });
      expectObservable(source.pipe(timeBudget(100)), "  50ms ^").toBe("150ms (x|)", {
        x: spent("time", 100, 100),
      });
      expectSubscriptions(source.subscriptions).toBe("50ms ^ 99ms !");
    });
  });

  it("completes with the run and clears its timer", () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<AgentStreamEvent>("a 20ms |", { a: tokenEvent(0, "x") });
      expectObservable(source.pipe(timeBudget(100))).toBe("21ms |");
      expectSubscriptions(source.subscriptions).toBe("^ 20ms !");
    });
  });

  it("passes the run's error on", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const source = cold<AgentStreamEvent>("--#", undefined, new Error("boom"));
      expectObservable(source.pipe(timeBudget(100))).toBe("--#", undefined, new Error("boom"));
    });
  });

  it("works with fake timers and leaves no timer behind on unsubscribe", async () => {
    vi.useFakeTimers();
    const run = new Subject<AgentStreamEvent>();
    const fired = vi.fn();
    const subscription = run.pipe(timeBudget(1_000)).subscribe(fired);
    await vi.advanceTimersByTimeAsync(999);
    expect(fired).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).toHaveBeenCalledWith(spent("time", 1_000, 1_000));
    expect(run.observed).toBe(false);

    const second = run.pipe(timeBudget(1_000)).subscribe(fired);
    expect(vi.getTimerCount()).toBe(1);
    second.unsubscribe();
    expect(vi.getTimerCount()).toBe(0);
    expect(run.observed).toBe(false);
    subscription.unsubscribe();
  });

  it("0 fires on subscription, before the run emits anything", () => {
    const run = new Subject<AgentStreamEvent>();
    const fired = vi.fn();
    const complete = vi.fn();
    run.pipe(timeBudget(0)).subscribe({ next: fired, complete });
    expect(fired).toHaveBeenCalledExactlyOnceWith(spent("time", 0, 0));
    expect(complete).toHaveBeenCalled();
    expect(run.observed).toBe(false);
  });

  it("keeps no state across subscriptions", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const source = cold<AgentStreamEvent>("u-a-u-a|", {
        u: usageEvent(0, 30, 20),
        a: actionEvent(0, "search"),
      });
      for (const [condition, value] of [
        [tokenBudget(50), spent("tokens", 50, 50)],
        [toolCallBudget(1), spent("tool_calls", 1, 2)],
        [timeBudget(5), spent("time", 5, 5)],
        [stopWhenAny(toolCallBudget(1), timeBudget(60_000)), spent("tool_calls", 1, 2)],
      ] as const) {
        const budget = source.pipe(condition);
        const marble = value.budget === "time" ? "-----(x|)" : value.budget === "tokens" ? "--(x|)" : "------(x|)";
        expectObservable(budget).toBe(marble, { x: value });
        expectObservable(budget, "--^").toBe(`--${marble}`, { x: value });
      }
    });
  });

  it("validates ms", () => {
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => timeBudget(bad)).toThrowError(/timeBudget: `ms` must be a finite number/);
    }
    expect(() => timeBudget(0)).not.toThrow();
    expect(() => timeBudget(10, { scheduler: 5 as never })).toThrowError(/timeBudget: `scheduler` must be an RxJS scheduler/);
    expect(() => timeBudget(10, { scheduler: null as never })).toThrowError(InvalidArgumentError);
  });
});

describe("stopWhenAny", () => {
  it("fires with the first condition that fires and subscribes to the run once", () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<AgentStreamEvent>("u-a-u-b-o|", {
        a: actionEvent(0, "search"),
        b: actionEvent(1, "search"),
        u: usageEvent(0, 30, 20),
        o: outputEvent("done"),
      });
      expectObservable(source.pipe(stopWhenAny(toolCallBudget(5), tokenBudget(100), timeBudget(60_000)))).toBe(
        "------(x|)",
        { x: spent("tokens", 100, 100) },
      );
      expectSubscriptions(source.subscriptions).toBe("^-----!");
    });
  });

  it("validates its conditions", () => {
    expect(() => stopWhenAny()).toThrowError(/at least one stop condition/);
    expect(() => stopWhenAny(toolCallBudget(1), 5 as never)).toThrowError(/`conditions\[1\]`/);
  });
});
