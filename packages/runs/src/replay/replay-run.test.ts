import { InvalidArgumentError } from "@agentrx/core";
import {
  AgentExecutor,
  RunNotFoundError,
  RunStoreError,
  printTrace,
  renderTrace,
  type AgentStreamEvent,
  type RunStore,
  type StoredRunEvent,
} from "@agentrx/executors";
import { RunnableLambda } from "@langchain/core/runnables";
import { from, take } from "rxjs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MemoryRunStore } from "../memory/memory-run-store";
import { replayRun } from "./replay-run";
import { coalesceTokens, collect, comparable, recordResumedRun, recordWeatherRun, writeRun } from "./replay-test-fixtures";

/** A store that counts its reads and can change what `readEvents` returns. */
function spyStore(inner: RunStore, edit?: (events: StoredRunEvent[]) => StoredRunEvent[]) {
  const reads: { after?: number; limit?: number }[] = [];
  const store: RunStore = Object.assign(Object.create(inner) as RunStore, {
    getRun: (runId: string) => inner.getRun(runId),
    readEvents: async (runId: string, options?: { after?: number; limit?: number }) => {
      reads.push({ ...options });
      const events = await inner.readEvents(runId, options);
      return edit ? edit(events) : events;
    },
  });
  return { store, reads };
}

const T0 = Date.UTC(2025, 0, 1);

function syntheticRun(ats: number[]): AgentStreamEvent[] {
  return ats.map((at, index): AgentStreamEvent =>
    index === 0 ? { type: "start", runId: "synthetic", inputs: { input: "hi" }, resumed: false, at } : { type: "token", iteration: 0, text: `t${index} `, at },
  );
}

describe("replayRun", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("yields the events the live stream emitted, tokens coalesced per model call", async () => {
    const store = new MemoryRunStore();
    const { events: live } = await recordWeatherRun(store, "run-1");
    const replayed = await collect(replayRun(store, "run-1"));

    expect(replayed.map(comparable)).toEqual(coalesceTokens(live).map(comparable));
    // Every event keeps its time; a coalesced token event has its first token's.
    expect(replayed.map((event) => event.at)).toEqual(coalesceTokens(live).map((event) => event.at));
    expect(replayed.map((event) => `${event.type}${"iteration" in event ? ` ${event.iteration}` : ""}`)).toMatchInlineSnapshot(`
      [
        "start",
        "token 0",
        "usage 0",
        "action 0",
        "action 0",
        "step 0",
        "step 0",
        "usage 1",
        "action 1",
        "step 1",
        "token 2",
        "usage 2",
        "output",
      ]
    `);
    const output = replayed.at(-1);
    expect(output?.type === "output" && output.intermediateSteps?.map((step) => step.observation)).toEqual([
      "Sunny, 21 °C",
      "It is 10:00 in Paris.",
      "Rainy, 14 °C",
    ]);
    expect(output).toMatchObject({ runId: "run-1", stopReason: "finish", usage: (live.at(-1) as { usage?: unknown }).usage });
  });

  it("is cold: each subscription reads the record again", async () => {
    const store = new MemoryRunStore();
    await recordWeatherRun(store, "run-1");
    const { store: spied, reads } = spyStore(store);
    const replay = replayRun(spied, "run-1");
    expect(reads).toEqual([]);
    const first = await collect(replay);
    const second = await collect(replay);
    expect(second.map(comparable)).toEqual(first.map(comparable));
    expect(reads).toHaveLength(2);
  });

  it("renders the same trace as the live run with renderTrace and printTrace", async () => {
    const store = new MemoryRunStore();
    const { events: live } = await recordWeatherRun(store, "run-1");
    const render = async (events: readonly AgentStreamEvent[] | ReturnType<typeof replayRun>) => {
      let text = "";
      const source = Array.isArray(events) ? from(events) : (events as ReturnType<typeof replayRun>);
      await collect(source.pipe(renderTrace({ write: (chunk) => (text += chunk), colors: false, usage: true })));
      return text;
    };
    const replayedTrace = await render(replayRun(store, "run-1"));
    expect(replayedTrace).toBe(await render(live));
    expect(replayedTrace).toContain("answer  Paris is sunny (21 °C) at 10:00; Lyon is rainy. (finish)");

    let printed = "";
    const output = await printTrace(replayRun(store, "run-1"), { write: (chunk) => (printed += chunk), colors: false, usage: true });
    expect(output.output).toBe("Paris is sunny (21 °C) at 10:00; Lyon is rainy.");
    expect(printed).toBe(replayedTrace);
  });

  it("replays every segment of a resumed run, each with its own start event", async () => {
    const store = new MemoryRunStore();
    const resumedLive = await recordResumedRun(store, "resumed");
    expect(resumedLive[0]).toMatchObject({ type: "start", resumed: true });

    const replayed = await collect(replayRun(store, "resumed"));
    const starts = replayed.filter((event) => event.type === "start");
    expect(starts.map((event) => event.type === "start" && [event.runId, event.resumed])).toEqual([
      ["resumed", false],
      ["resumed", true],
    ]);
    // The second segment replays as it was streamed.
    const secondStart = replayed.indexOf(starts[1]!);
    expect(replayed.slice(secondStart).map(comparable)).toEqual(coalesceTokens(resumedLive).map(comparable));
    expect(replayed.slice(0, secondStart).map((event) => event.type)).toEqual(["start", "usage", "action"]);
    expect(replayed.at(-1)).toMatchObject({ type: "output", output: "Both found." });
  });

  it("ends where the record ends for a run that is still running, and at once for an empty record", async () => {
    const store = new MemoryRunStore();
    await writeRun(store, "running", syntheticRun([T0, T0 + 10]));
    const events = await collect(replayRun(store, "running"));
    expect(events.map((event) => event.type)).toEqual(["start", "token"]);

    await store.createRun({ runId: "queued", inputs: {}, status: "queued", at: T0 });
    expect(await collect(replayRun(store, "queued"))).toEqual([]);
  });

  it("stops at the events recorded when it was subscribed to", async () => {
    const store = new MemoryRunStore();
    await writeRun(store, "growing", syntheticRun([T0, T0 + 10]));
    const { store: spied } = spyStore(store);
    // An event appended after the subscription started is not replayed.
    const getRun = spied.getRun.bind(spied);
    spied.getRun = async (runId) => {
      const info = await getRun(runId);
      await store.write("growing", { owner: "test", leaseMs: 60_000, events: [{ seq: 3, type: "token", at: T0 + 20, data: { type: "token", at: T0 + 20, iteration: 0, text: "late" } }], at: T0 + 20 });
      return info;
    };
    expect(await collect(replayRun(spied, "growing"))).toHaveLength(2);
    expect(await collect(replayRun(store, "growing"))).toHaveLength(3);
  });

  it("reads the record in pages of 500 events", async () => {
    const store = new MemoryRunStore();
    await writeRun(store, "long", syntheticRun(Array.from({ length: 1201 }, (_, index) => T0 + index)));
    const { store: spied, reads } = spyStore(store);
    const events = await collect(replayRun(spied, "long"));
    expect(events).toHaveLength(1201);
    expect(reads).toEqual([
      { after: 0, limit: 500 },
      { after: 500, limit: 500 },
      { after: 1000, limit: 201 },
    ]);
  });

  it("stops reading when the subscriber unsubscribes", async () => {
    const store = new MemoryRunStore();
    await writeRun(store, "long", syntheticRun(Array.from({ length: 1201 }, (_, index) => T0 + index)));
    const { store: spied, reads } = spyStore(store);
    const events = await collect(replayRun(spied, "long").pipe(take(3)));
    expect(events).toHaveLength(3);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(reads).toHaveLength(1);
  });

  it('spaces the events by their recorded times with timing: "original"', async () => {
    vi.useFakeTimers({ now: T0 + 50_000 });
    const store = new MemoryRunStore();
    await writeRun(store, "timed", syntheticRun([T0, T0 + 1000, T0 + 1000, T0 + 3000]));
    const seen: string[] = [];
    let completed = false;
    replayRun(store, "timed", { timing: "original" }).subscribe({
      next: (event) => seen.push(event.type === "token" ? event.text.trim() : event.type),
      complete: () => (completed = true),
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(seen).toEqual(["start"]);
    await vi.advanceTimersByTimeAsync(999);
    expect(seen).toEqual(["start"]);
    await vi.advanceTimersByTimeAsync(1);
    expect(seen).toEqual(["start", "t1", "t2"]);
    await vi.advanceTimersByTimeAsync(1999);
    expect(seen).toEqual(["start", "t1", "t2"]);
    expect(completed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(seen).toEqual(["start", "t1", "t2", "t3"]);
    expect(completed).toBe(true);
  });

  it('emits at once with timing: "instant" (the default), whatever the recorded times', async () => {
    vi.useFakeTimers({ now: T0 + 50_000 });
    const store = new MemoryRunStore();
    await writeRun(store, "timed", syntheticRun([T0, T0 + 60_000, T0 + 120_000]));
    const seen: AgentStreamEvent[] = [];
    let completed = false;
    replayRun(store, "timed").subscribe({ next: (event) => seen.push(event), complete: () => (completed = true) });
    await vi.advanceTimersByTimeAsync(0);
    expect(seen).toHaveLength(3);
    expect(completed).toBe(true);
  });

  it("cancels the pending timer when unsubscribed", async () => {
    vi.useFakeTimers({ now: T0 + 50_000 });
    const store = new MemoryRunStore();
    await writeRun(store, "timed", syntheticRun([T0, T0 + 1000, T0 + 2000]));
    const seen: string[] = [];
    const subscription = replayRun(store, "timed", { timing: "original" }).subscribe((event) => seen.push(event.type));
    await vi.advanceTimersByTimeAsync(0);
    expect(seen).toEqual(["start"]);
    expect(vi.getTimerCount()).toBe(1);
    subscription.unsubscribe();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(5000);
    expect(seen).toEqual(["start"]);
  });

  it("fails with RunNotFoundError for an unknown run", async () => {
    const error = await collect(replayRun(new MemoryRunStore(), "nope")).catch((caught: unknown) => caught);
    expect(RunNotFoundError.isInstance(error)).toBe(true);
    expect((error as RunNotFoundError).runId).toBe("nope");
    expect((error as RunNotFoundError).operation).toBe("replayRun");
  });

  it("fails with a RunStoreError naming the run and the event when an event cannot be decoded", async () => {
    const store = new MemoryRunStore();
    await writeRun(store, "bad", [...syntheticRun([T0]), { at: T0 + 1, data: { type: "bogus", at: T0 + 1 } }]);
    const seen: AgentStreamEvent[] = [];
    const error = await new Promise((resolve) => replayRun(store, "bad").subscribe({ next: (event) => seen.push(event), error: resolve }));
    expect(seen.map((event) => event.type)).toEqual(["start"]);
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect((error as RunStoreError).runId).toBe("bad");
    expect((error as Error).message).toMatch(/event 2 of run "bad" is corrupt: it cannot be read: event 2 has an unknown type "bogus"\./);
    expect((error as Error).cause).toBeInstanceOf(TypeError);
  });

  it("wraps a store's read failure in a RunStoreError naming the run and where it was reading", async () => {
    const store = new MemoryRunStore();
    await writeRun(store, "r", syntheticRun([T0, T0 + 1]));
    const failure = new Error("connection reset");
    const { store: failing } = spyStore(store, () => {
      throw failure;
    });
    const error = await collect(replayRun(failing, "r")).catch((caught: unknown) => caught);
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe('replayRun: reading the events of run "r" after event 0 failed: connection reset');
    expect((error as Error).cause).toBe(failure);
  });

  it("fails with a RunStoreError when the store skips an event", async () => {
    const store = new MemoryRunStore();
    await writeRun(store, "gap", syntheticRun([T0, T0 + 1, T0 + 2]));
    const { store: gappy } = spyStore(store, (events) => events.filter((event) => event.seq !== 2));
    const error = await collect(replayRun(gappy, "gap")).catch((caught: unknown) => caught);
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/event 2 of run "gap" is corrupt: it is missing or out of order \(the store returned event 3 after event 1\)/);
  });

  it("refuses a damaged record exactly as resume does: an event that cannot follow from the run's state, an unknown schemaVersion", async () => {
    const store = new MemoryRunStore();
    const output = { type: "output", at: T0, runId: "x", output: "x", stopReason: "finish", iterations: 1 };
    // Two outputs: the second cannot follow from an ended run.
    await writeRun(store, "twice", [...syntheticRun([T0]), { at: T0, data: output }, { at: T0, data: { ...output, output: "y" } }]);
    // An unknown schemaVersion, and decisions while nothing waits for one.
    await writeRun(store, "future", [...syntheticRun([T0]), { at: T0, data: { type: "decisions", at: T0, decisions: { x: "approve" } } }, { at: T0, data: output }]);
    await store.write("future", { owner: "test", leaseMs: 60_000, events: [], at: T0, update: { checkpoint: { schemaVersion: 999 as 1, iteration: 1, elapsedMs: 0, phase: "agent" } } });
    const executor = new AgentExecutor({ agent: RunnableLambda.from(async () => ({ returnValues: { output: "x" }, log: "" })), tools: [], store });
    for (const [runId, why] of [
      ["twice", /^replayRun: event 3 of run "twice" is corrupt: it does not follow from the run's state: a second output\.$/],
      ["future", /^replayRun: run "future" was recorded with schemaVersion 999, which this version of @agentrx\/executors does not know/],
    ] as const) {
      const seen: AgentStreamEvent[] = [];
      const replayed = await new Promise((resolve) => replayRun(store, runId).subscribe({ next: (event) => seen.push(event), error: resolve, complete: () => resolve(undefined) }));
      expect(RunStoreError.isInstance(replayed)).toBe(true);
      // A version above every known one was written by a newer release: refused, but not "corrupt".
      expect((replayed as RunStoreError).reason).toBe(runId === "future" ? "unsupported" : "corrupt");
      expect((replayed as Error).message).toMatch(why);
      expect(seen.map((event) => event.type)).toEqual(runId === "twice" ? ["start", "output"] : []);
      const resumed = await executor.resume(runId).catch((caught: unknown) => caught);
      expect(RunStoreError.isInstance(resumed)).toBe(true);
      expect((resumed as Error).message.replace(/^resume: /, "")).toBe((replayed as Error).message.replace(/^replayRun: /, ""));
    }
  });

  it("throws an InvalidArgumentError naming the argument", () => {
    const store = new MemoryRunStore();
    const argumentOf = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        expect(InvalidArgumentError.isInstance(error)).toBe(true);
        return [(error as InvalidArgumentError).argument, (error as Error).message];
      }
      return undefined;
    };
    expect(argumentOf(() => replayRun({} as RunStore, "r"))).toEqual(["store", expect.stringContaining("without getRun and readEvents")]);
    expect(argumentOf(() => replayRun(store, ""))).toEqual(["runId", expect.stringContaining("non-empty")]);
    expect(argumentOf(() => replayRun(store, "r", { timing: "fast" as never }))).toEqual(["timing", 'replayRun: `timing` must be "instant" or "original", got "fast".']);
    expect(argumentOf(() => replayRun(store, "r", null as never))).toEqual(["options", expect.stringContaining("got null")]);
    // A typo is refused, not ignored (the replay would be instant).
    expect(argumentOf(() => replayRun(store, "r", { timng: "original" } as never))).toEqual(["timng", "replayRun: unknown option `timng`; did you mean `timing`? Known options: timing."]);
  });
});
