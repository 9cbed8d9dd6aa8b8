// The functions that read a recorded run refuse arguments they cannot use with an
// InvalidArgumentError naming them (they threw TypeErrors), and a read that failed does not use up
// a RecordedChatModel call.
import { InvalidArgumentError } from "@agentrx/core";
import { RunStoreError } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { diffRuns, readRunRecord } from "../diff/index";
import { MemoryRunStore } from "../memory/index";
import { promptsOf, readPrompts } from "../prompts/index";
import { RecordedChatModel } from "../recorded-chat-model/index";

function refusal(call: () => unknown): { argument?: string; message: string } {
  try {
    const value = call();
    if (value instanceof Promise) throw new Error("use refusalAsync");
  } catch (error) {
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    return error as InvalidArgumentError;
  }
  throw new Error("not refused");
}

async function refusalAsync(call: () => Promise<unknown>): Promise<InvalidArgumentError> {
  const error = await call().then(() => undefined, (thrown: unknown) => thrown);
  expect(InvalidArgumentError.isInstance(error)).toBe(true);
  return error as InvalidArgumentError;
}

describe("reading a recorded run, with arguments it cannot use", () => {
  it("readRunRecord and readPrompts name the store or the run id, in their own name", async () => {
    expect((await refusalAsync(() => readRunRecord(null as never, "r1"))).message).toMatch(/^readRunRecord: `store` must be a RunStore/);
    expect((await refusalAsync(() => readRunRecord({} as never, "r1"))).argument).toBe("store");
    expect((await refusalAsync(() => readRunRecord(new MemoryRunStore(), "" as never))).message).toMatch(/^readRunRecord: `runId` must be/);
    expect((await refusalAsync(() => readPrompts(null as never, "r1"))).message).toMatch(/^readPrompts: `store` must be a RunStore/);
  });

  it("diffRuns and promptsOf name the argument that is not a record or events", () => {
    expect(refusal(() => diffRuns(null as never, null as never))).toMatchObject({ argument: "a" });
    const record = { run: { runId: "r1" }, events: [] } as never;
    expect(refusal(() => diffRuns(record, { run: { runId: "r2" } } as never)).message).toBe(
      "diffRuns: `b` must be a run's record { run, events } (what readRunRecord(store, runId) gives), got an object without an events array.",
    );
    expect(refusal(() => promptsOf("r1", null as never))).toMatchObject({ argument: "events" });
    expect(refusal(() => promptsOf(5 as never, []))).toMatchObject({ argument: "runId" });
  });

  it("RecordedChatModel refuses a misspelt option", () => {
    expect(refusal(() => new RecordedChatModel({ store: new MemoryRunStore(), runId: "r1", runID: "x" } as never)).message).toMatch(/unknown option `options.runID`; did you mean `runId`\?/);
  });

  it("a record read that failed leaves the call's position to the next call, which is answered as call 0", async () => {
    const store = new MemoryRunStore();
    let fail = true;
    const flaky = new Proxy(store, {
      get(target, name, receiver) {
        if (name === "getRun" && fail) {
          return async () => {
            fail = false;
            throw new RunStoreError({ operation: "getRun", message: "connection reset", reason: "error" });
          };
        }
        const value = Reflect.get(target, name, receiver) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const model = new RecordedChatModel({ store: flaky, runId: "nope" });
    await expect(model.invoke("hi")).rejects.toThrow("connection reset");
    expect(model.callCount).toBe(0);
  });

  it("a store's failure reading the events keeps its reason (a damaged event is corrupt, not a plain error)", async () => {
    const store = new MemoryRunStore();
    await store.createRun({ runId: "r1", inputs: { input: "x" }, status: "running", owner: "o", leaseMs: 60_000, at: Date.now() });
    await store.write("r1", { owner: "o", leaseMs: 60_000, at: Date.now(), events: [{ seq: 1, type: "start", at: Date.now(), data: { type: "start", runId: "r1", inputs: {}, resumed: false, at: Date.now() } }] });
    const damaged = new Proxy(store, {
      get(target, name, receiver) {
        if (name === "readEvents") return async () => Promise.reject(new RunStoreError({ operation: "readEvents", runId: "r1", message: "event 1 is corrupt", reason: "corrupt" }));
        const value = Reflect.get(target, name, receiver) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const error = await readRunRecord(damaged, "r1").then(() => undefined, (thrown: unknown) => thrown);
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ reason: "corrupt" });
  });
});
