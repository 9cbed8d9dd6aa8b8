import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { MODEL_CALL_OBSERVER_KEY, markObservesModelCalls, observesModelCalls, takeModelCallObserver } from "./model-call-observer";

describe("takeModelCallObserver", () => {
  const observer = () => {};

  it("takes the observer out and keeps the caller's other configurable keys", () => {
    const signal = new AbortController().signal;
    const taken = takeModelCallObserver({ signal, configurable: { [MODEL_CALL_OBSERVER_KEY]: observer, thread_id: "t" } });
    expect(taken.observer).toBe(observer);
    expect(taken.config).toEqual({ signal, configurable: { thread_id: "t" } });
  });

  it("leaves no empty configurable when the observer was all it held, as the executor passes it to a caller without one", () => {
    const signal = new AbortController().signal;
    const taken = takeModelCallObserver({ signal, configurable: { [MODEL_CALL_OBSERVER_KEY]: observer } });
    expect(taken.observer).toBe(observer);
    expect(taken.config.configurable).toBeUndefined();
    expect(taken.config.signal).toBe(signal);
  });

  it("keeps symbol keys of configurable", () => {
    const key = Symbol("mine");
    const taken = takeModelCallObserver({ configurable: { [MODEL_CALL_OBSERVER_KEY]: observer, [key]: 1 } });
    expect(taken.observer).toBe(observer);
    expect((taken.config.configurable as Record<symbol, unknown>)[key]).toBe(1);
    expect(Object.keys(taken.config.configurable ?? {})).toEqual([]);
  });

  it("returns the config as it is without an observer", () => {
    const config = { configurable: { thread_id: "t" } };
    expect(takeModelCallObserver(config)).toEqual({ observer: undefined, config });
    expect(takeModelCallObserver(undefined)).toEqual({ observer: undefined, config: {} });
  });
});

describe("markObservesModelCalls", () => {
  it("refuses what is not an agent, or an agent it cannot mark, with an InvalidArgumentError naming `agent`", () => {
    for (const agent of [undefined, null, "x", 42]) {
      let error: unknown;
      try {
        markObservesModelCalls(agent as never);
      } catch (caught) {
        error = caught;
      }
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ argument: "agent" });
      expect((error as Error).message).toMatch(/^markObservesModelCalls: `agent` must be an agent runnable/);
    }
    let frozen: unknown;
    try {
      markObservesModelCalls(Object.freeze({}));
    } catch (caught) {
      frozen = caught;
    }
    expect(InvalidArgumentError.isInstance(frozen)).toBe(true);
    expect(frozen).toMatchObject({ argument: "agent" });
    expect((frozen as Error).message).toMatch(/^markObservesModelCalls: `agent` is frozen \(or not extensible\)/);
    const agent = markObservesModelCalls({ invoke: () => 1 });
    expect(observesModelCalls(agent)).toBe(true);
    expect(markObservesModelCalls(Object.freeze(agent))).toBe(agent);
  });
});
