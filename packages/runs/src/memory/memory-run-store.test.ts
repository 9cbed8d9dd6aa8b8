import { describe, expect, it } from "vitest";
import { runStoreConformance } from "../testing/run-store-conformance";
import { MemoryRunStore } from "./memory-run-store";

runStoreConformance({ name: "MemoryRunStore", create: async () => new MemoryRunStore() });

describe("MemoryRunStore", () => {
  it("keeps copies: mutating what went in or came out does not change the record", async () => {
    const store = new MemoryRunStore();
    const inputs = { input: "hi", list: [1, 2] };
    const data = { type: "start", at: 1, nested: { value: "original" } };
    await store.createRun({ runId: "r1", inputs, status: "running", owner: "w", leaseMs: 1000, at: 1 });
    await store.write("r1", { owner: "w", leaseMs: 1000, events: [{ seq: 1, type: "start", at: 1, data }], at: 2 });
    inputs.list.push(3);
    data.nested.value = "changed";
    const run = await store.getRun("r1");
    run!.inputs.input = "mutated";
    const [event] = await store.readEvents("r1");
    (event!.data.nested as { value: string }).value = "mutated";
    expect(await store.getRun("r1")).toMatchObject({ inputs: { input: "hi", list: [1, 2] } });
    expect((await store.readEvents("r1"))[0]?.data).toEqual({ type: "start", at: 1, nested: { value: "original" } });
  });

  it("keeps what JSON keeps, as the database stores do", async () => {
    const store = new MemoryRunStore();
    await store.createRun({ runId: "r1", inputs: { when: new Date(0), missing: undefined, nan: Number.NaN } as never, status: "queued", at: 1 });
    expect((await store.getRun("r1"))?.inputs).toStrictEqual({ when: "1970-01-01T00:00:00.000Z", nan: null });
  });
});

describe("MemoryRunStore arguments", () => {
  it("refuses a misspelt key of a new run, a write, its update or the read options, and changes nothing", async () => {
    const store = new MemoryRunStore();
    await store.createRun({ runId: "r1", inputs: {}, status: "running", owner: "w", leaseMs: 60_000, at: 1 });
    const write = { owner: "w", leaseMs: 60_000, events: [{ seq: 1, type: "step", at: 2, data: {} }], at: 2 };
    await expect(store.write("r1", { ...write, update: { stauts: "finished" } } as never)).rejects.toMatchObject({ name: "InvalidArgumentError", argument: "write.update.stauts" });
    await expect(store.write("r1", { ...write, udpate: { status: "finished" } } as never)).rejects.toMatchObject({ name: "InvalidArgumentError", argument: "write.udpate" });
    await expect(store.createRun({ runId: "r2", inputs: {}, status: "queued", at: 1, thread: "t" } as never)).rejects.toMatchObject({ name: "InvalidArgumentError", argument: "run.thread" });
    await expect(store.readEvents("r1", { before: 3 } as never)).rejects.toMatchObject({ name: "InvalidArgumentError", argument: "options.before" });
    expect(await store.getRun("r1")).toMatchObject({ status: "running", eventCount: 0 });
    expect(await store.getRun("r2")).toBeUndefined();
  });
});

describe("MemoryRunStore options", () => {
  it.each([
    [{ leaseMs: 1000 }, "leaseMs", /MemoryRunStore: unknown option `leaseMs`; MemoryRunStore takes no options yet\./],
    ["runs.db", "options", /MemoryRunStore: options must be an object \(it takes none yet\), got "runs\.db"\./],
  ])("refuses %j rather than ignoring it", (options, argument, message) => {
    expect(() => new MemoryRunStore(options as never)).toThrow(expect.objectContaining({ name: "InvalidArgumentError", argument, message: expect.stringMatching(message) }));
  });
});
