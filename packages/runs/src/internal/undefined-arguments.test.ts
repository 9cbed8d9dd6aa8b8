import { InvalidArgumentError } from "@agentrx/core";
import type { RunStore } from "@agentrx/executors";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryRunStore } from "../memory/memory-run-store";
import { PostgresRunStore } from "../postgres/postgres-run-store";
import { SqliteRunStore } from "../sqlite/sqlite-run-store";

// The stores' argument types accept `undefined` for every optional field (for projects compiled
// with `exactOptionalPropertyTypes`): a field set to `undefined` must do exactly what leaving it
// out does, and a key the store does not know is refused whatever its value.
const stores: RunStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

const makers: [string, () => RunStore][] = [
  ["MemoryRunStore", () => new MemoryRunStore()],
  ["SqliteRunStore", () => new SqliteRunStore({ path: ":memory:", busyTimeoutMs: undefined, driver: undefined })],
];

describe.each(makers)("%s: a field set to undefined is a field left out", (_name, make) => {
  const open = (): RunStore => {
    const store = make();
    stores.push(store);
    return store;
  };

  it("createRun, write, readEvents, listRuns and the thread calls", async () => {
    const absent = open();
    const undefinedFields = open();
    await absent.createRun({ runId: "r1", inputs: { input: "hi" }, status: "running", owner: "a", leaseMs: 1000, at: 1 });
    await undefinedFields.createRun({ runId: "r1", threadId: undefined, inputs: { input: "hi" }, status: "running", owner: "a", leaseMs: 1000, metadata: undefined, forkOf: undefined, at: 1 });
    const events = [{ seq: 1, type: "start", at: 2, data: { type: "start", at: 2 } }];
    await absent.write("r1", { owner: "a", leaseMs: 1000, events, update: { status: "finished", release: true }, at: 2 });
    await undefinedFields.write("r1", {
      owner: "a",
      leaseMs: 1000,
      epoch: undefined,
      events,
      update: { status: "finished", stopReason: undefined, usage: undefined, error: undefined, checkpoint: undefined, release: true, closeInbox: undefined },
      at: 2,
    });
    expect(await undefinedFields.getRun("r1")).toStrictEqual(await absent.getRun("r1"));
    expect(await undefinedFields.readEvents("r1", { after: undefined, limit: undefined })).toStrictEqual(await absent.readEvents("r1"));
    const noFilter = { threadId: undefined, status: undefined, since: undefined, before: undefined, limit: undefined, search: undefined, hasError: undefined, minCost: undefined, maxCost: undefined, sort: undefined, order: undefined, cursor: undefined };
    expect(await undefinedFields.listRuns(noFilter)).toStrictEqual(await absent.listRuns());

    await absent.appendThreadMessages("t", [{ message: { text: "hi" }, tokens: 1, at: 3 }]);
    await undefinedFields.appendThreadMessages("t", [{ message: { text: "hi" }, tokens: 1, runId: undefined, at: 3 }]);
    const read = { after: undefined, before: undefined, limit: undefined, newestFirst: undefined };
    expect(await undefinedFields.readThreadMessages("t", read)).toStrictEqual(await absent.readThreadMessages("t"));
  });

  it("still refuses a key it does not know, even set to undefined", async () => {
    const store = open();
    await store.createRun({ runId: "r1", inputs: {}, status: "running", owner: "a", leaseMs: 1000, at: 1 });
    const write = { owner: "a", leaseMs: 1000, epok: undefined, events: [], at: 2 };
    await expect(store.write("r1", write)).rejects.toThrow(InvalidArgumentError);
    await expect(store.write("r1", write)).rejects.toThrow("unknown option `write.epok`");
  });
});

describe("the stores' constructors", () => {
  it("SqliteRunStore: busyTimeoutMs and driver set to undefined take their defaults", () => {
    const given = new SqliteRunStore({ path: ":memory:", busyTimeoutMs: undefined, driver: undefined });
    expect(given.driver).toBe(new SqliteRunStore({ path: ":memory:" }).driver);
    expect(() => new SqliteRunStore({ path: ":memory:", bsyTimeoutMs: undefined } as never)).toThrow(/bsyTimeoutMs/);
  });

  it("PostgresRunStore: schema and timeouts set to undefined take their defaults, also beside a pool", () => {
    const fromUrl = new PostgresRunStore({ connectionString: "postgres://127.0.0.1:5432/postgres", schema: undefined, statementTimeoutMs: undefined, connectionTimeoutMs: undefined });
    expect(fromUrl.schema).toBe("agentrx");
    const pool = { query: async () => ({ rows: [], rowCount: 0 }), connect: async () => ({ query: async () => ({ rows: [], rowCount: 0 }), release: () => {} }), end: async () => {} };
    // A timeout is refused beside a pool only when it is given: `undefined` is not given.
    expect(new PostgresRunStore({ pool, schema: undefined, statementTimeoutMs: undefined, connectionTimeoutMs: undefined }).schema).toBe("agentrx");
    expect(() => new PostgresRunStore({ pool, statementTimeoutMs: 5 } as never)).toThrow(/statementTimeoutMs applies to the pool/);
  });
});
