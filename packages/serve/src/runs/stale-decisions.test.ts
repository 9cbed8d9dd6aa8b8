import type { RunStore } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { staleDecisions } from "@agentrx/serve";
import { describe, expect, it } from "vitest";
import { weatherExecutor } from "../test-helpers/weather-executor";

/** A run paused on get_time in Paris, approved, then paused again on get_time in Rome. */
async function pausedTwice(store: RunStore): Promise<{ first: string; second: string }> {
  const executor = weatherExecutor({ approval: true, askAgain: true, store });
  const paused = await executor.invoke({ input: "weather and time in Paris" }, { runId: "twice" });
  const first = paused.interrupts?.[0]?.id as string;
  const again = await executor.resume("twice", { decisions: { [first]: "approve" } });
  return { first, second: again.interrupts?.[0]?.id as string };
}

describe("staleDecisions", () => {
  it("names a decision for an earlier pause of a run that paused again, and the pause it waits on now", async () => {
    const store = new MemoryRunStore();
    const { first, second } = await pausedTwice(store);
    expect(second).not.toBe(first);
    const stale = await staleDecisions(store, "twice", { [first]: "approve" });
    expect(stale).toMatchObject({ runId: "twice", answered: [first], waiting: [{ id: second, tool: "get_time", toolInput: { city: "Rome" } }] });
    expect(stale?.message).toBe(`Run "twice" paused again: ${JSON.stringify(first)} answers an earlier pause, which is over. It waits on ${second} (get_time) now: answer that pause.`);
  });

  it("is undefined for a decision of the pause the run waits on, an interrupt it never had, and a run that is not paused", async () => {
    const store = new MemoryRunStore();
    const { second } = await pausedTwice(store);
    expect(await staleDecisions(store, "twice", { [second]: "approve" })).toBeUndefined();
    expect(await staleDecisions(store, "twice", { "call-9-0": "approve" })).toBeUndefined();
    expect(await staleDecisions(store, "no-such-run", { [second]: "approve" })).toBeUndefined();
  });

  it("rejects when the store cannot read the record", async () => {
    const store = new MemoryRunStore();
    await pausedTwice(store);
    const failing = new Proxy(store, {
      get(target, key) {
        if (key === "readEvents") return () => Promise.reject(new Error("disk gone"));
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    }) as RunStore;
    await expect(staleDecisions(failing, "twice", { x: "approve" })).rejects.toThrow("disk gone");
  });
});
