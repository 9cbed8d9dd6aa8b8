// A connection lost in the middle of a call: a transaction's connection terminated between two
// statements (or while one waits on a lock) must not crash the process with pg's unhandled 'error'
// event; a call lost several times in a row (one kill ends several pooled connections) is tried a
// few times; a landed write is told from another by everything it sets; the messages of a lost
// append, a lost transaction and a landed claim say what is known.
import { RunLeaseLostError, RunStoreError } from "@agentrx/executors";
import pg from "pg";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { rejectionOf } from "../testing/conformance/conformance-context";
import { faultyPool, isWrite } from "../testing/postgres-faults";
import { postgresTestDatabase } from "../testing/postgres-test-database";
import { LOST_CONNECTION_ATTEMPTS } from "./postgres-retry";
import { PostgresRunStore } from "./postgres-run-store";
import type { PostgresPool, PostgresPoolClient } from "./postgres-run-store-options";

const database = await postgresTestDatabase("PostgresRunStore connection retry");

afterAll(() => database.drop());

/** Errors no listener handled (pg's 'error' event of a client nobody listens to), collected rather than crashing the worker. */
let uncaught: unknown[] = [];
const onUncaught = (error: unknown) => void uncaught.push(error);
beforeEach(() => {
  uncaught = [];
  process.on("uncaughtException", onUncaught);
});
afterEach(() => {
  process.off("uncaughtException", onUncaught);
});

const appName = (label: string) => `agentrx_${label}_${Math.random().toString(36).slice(2, 8)}`;

/** Terminates the backend `pid` and waits until `client` has seen its connection end (pg marks it not queryable). */
async function terminate(client: pg.PoolClient): Promise<void> {
  const pid = (client as unknown as { processID: number }).processID;
  await database.pool().query("SELECT pg_terminate_backend($1, 5000)", [pid]);
  await expect.poll(() => (client as unknown as { _queryable: boolean })._queryable, { timeout: 5_000 }).toBe(false);
}

/**
 * `pool`, but the connection of each of the first `kills` transactions is terminated by the server
 * right after its `BEGIN` answered: between two statements, with no query of pg's waiting on it.
 */
function killingPool(pool: pg.Pool, kills: () => boolean): PostgresPool {
  return {
    query: (config) => pool.query(config),
    connect: async () => {
      const client = await pool.connect();
      const kill = kills();
      const wrapped = {
        query: async (config: string | { text: string; values?: unknown[] }) => {
          const result = await client.query(config as string);
          if (kill && config === "BEGIN") await terminate(client);
          return result;
        },
        release: (destroy?: boolean) => client.release(destroy),
        on: (event: string, listener: (error: Error) => void) => client.on(event as "error", listener),
        removeListener: (event: string, listener: (error: Error) => void) => client.removeListener(event as "error", listener),
      };
      return wrapped as unknown as PostgresPoolClient;
    },
    end: () => pool.end(),
    on: (event, listener) => pool.on(event, listener),
  };
}

const claim = { leaseMs: 60_000, at: 1000 };

describe.skipIf(database.skip)("PostgresRunStore on a connection lost in the middle of a call", () => {
  const operations: [string, (store: PostgresRunStore) => Promise<unknown>, unknown][] = [
    ["cancelRun", (store) => store.cancelRun("r1", { reason: "stop", at: 2000 }), true],
    ["deleteRun", (store) => store.deleteRun("r1"), true],
    ["pruneRuns", (store) => store.pruneRuns({ olderThan: 500 }), 0],
    ["clearThread", (store) => store.clearThread("t1"), 0],
    ["appendRunMessage", (store) => store.appendRunMessage("r1", { message: { type: "human", content: "hi" }, tokens: 1, at: 2000 } as never), { inboxSeq: 1, status: "queued" }],
  ];

  it.each(operations)("does not crash when %s's connection is terminated between two statements, and runs it again", async (_, call, expected) => {
    database.assertReachable();
    let kills = 0;
    const store = new PostgresRunStore({ pool: killingPool(database.appPool(appName("between")), () => kills-- > 0), schema: database.newSchema() });
    await store.createRun({ runId: "r1", inputs: {}, status: "queued", at: 1000 });
    kills = 1;
    expect(await call(store)).toEqual(expected);
    expect(kills).toBeLessThan(0);
    expect(uncaught).toEqual([]);
    await store.close();
  });

  it("does not crash when a new connection fails in the same read as its first answer, before a promise could listen to it", async () => {
    database.assertReachable();
    const pool = database.appPool(appName("handout"));
    let failures = 0;
    // As pg does when one read of the socket holds the connection's ReadyForQuery and the server's
    // FATAL after it: the error is emitted right after the pool's callback, in the same tick.
    const handingOut = {
      query: (config: { text: string; values?: unknown[] }) => pool.query(config),
      connect(callback?: (error: Error | undefined, client: pg.PoolClient | undefined) => void) {
        const handOut = (done: (error: Error | undefined, client: pg.PoolClient | undefined) => void) =>
          pool.connect((error, client) => {
            done(error ?? undefined, client);
            if (client !== undefined && failures-- > 0) client.emit("error", Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }));
          });
        if (callback !== undefined) return void handOut(callback);
        return new Promise((resolve, reject) => handOut((error, client) => (error === undefined ? resolve(client) : reject(error))));
      },
      end: () => pool.end(),
      on: (event: "error", listener: (error: Error) => void) => pool.on(event, listener),
    };
    const store = new PostgresRunStore({ pool: handingOut as unknown as PostgresPool, schema: database.newSchema() });
    await store.createRun({ runId: "r1", inputs: {}, status: "queued", at: 1000 });
    failures = 1;
    expect(await store.cancelRun("r1", { reason: "stop", at: 2000 })).toBe(true);
    expect(uncaught).toEqual([]);
    expect(failures).toBeLessThan(0);
    await store.close();
  });

  it("does not crash when a transaction's statement waiting on a lock loses its connection, and runs it again", { timeout: 30_000 }, async () => {
    database.assertReachable();
    const app = appName("waiting");
    const name = database.newSchema();
    const store = new PostgresRunStore({ connectionString: database.urlOf(app), schema: name });
    await store.createRun({ runId: "r1", inputs: {}, status: "queued", at: 1000 });
    const holder = await database.pool().connect();
    try {
      await holder.query("BEGIN");
      await holder.query(`SELECT 1 FROM "${name}".agentrx_runs WHERE run_id = 'r1' FOR UPDATE`);
      const cancelled = store.cancelRun("r1", { reason: "stop", at: 2000 });
      const waiting = "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'";
      await expect.poll(async () => (await database.pool().query(waiting, [app])).rowCount, { timeout: 10_000 }).toBe(1);
      await database.pool().query("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", [app]);
      // The retry waits on the lock again, and goes through once it is released.
      await expect.poll(async () => (await database.pool().query(waiting, [app])).rowCount, { timeout: 10_000 }).toBe(1);
      await holder.query("ROLLBACK");
      expect(await cancelled).toBe(true);
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }
    expect(await store.getRun("r1")).toMatchObject({ status: "cancelled" });
    expect(uncaught).toEqual([]);
    await store.close();
  });

  it("says a transaction whose connection was terminated every time closed the connection, not that the client is not queryable", async () => {
    database.assertReachable();
    const store = new PostgresRunStore({ pool: killingPool(database.appPool(appName("always")), () => true), schema: database.newSchema() });
    const error = await rejectionOf(store.cancelRun("r1", { reason: "stop", at: 2000 }));
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/^PostgresRunStore: the database at .* closed the connection during cancelRun/);
    expect(error.message).not.toMatch(/not queryable/);
    expect(uncaught).toEqual([]);
    await store.close();
  });

  it(`tries a read, a write and a createRun up to ${LOST_CONNECTION_ATTEMPTS} times when their connection is lost each time before`, async () => {
    database.assertReachable();
    let faults = 0;
    const pool = faultyPool(database.appPool(appName("again")), () => (faults-- > 0 ? "before" : undefined));
    const store = new PostgresRunStore({ pool, schema: database.newSchema() });
    await store.getRun("nothing");
    const lostTimes = LOST_CONNECTION_ATTEMPTS - 1;
    faults = lostTimes;
    await store.createRun({ runId: "r1", inputs: {}, status: "running", owner: "w1", leaseMs: 60_000, at: 1000 });
    faults = lostTimes;
    expect(await store.getRun("r1")).toMatchObject({ status: "running", owner: "w1" });
    const { epoch } = await store.claimRun("r1", { owner: "w1", ...claim });
    faults = lostTimes;
    expect(await store.write("r1", { owner: "w1", epoch, leaseMs: 60_000, at: 2000, events: [{ seq: 1, type: "note", at: 2000, data: { text: "a" } }] })).toEqual({ inboxSeq: 0 });
    expect((await store.readEvents("r1")).map((event) => event.seq)).toEqual([1]);
    // Lost every time: the last error is reported after as many tries, nothing more is sent.
    faults = LOST_CONNECTION_ATTEMPTS;
    const before = pool.sent.length;
    const error = await rejectionOf(store.getRun("r1"));
    expect(error.message).toMatch(/lost the connection to the database .*Connection terminated unexpectedly/);
    expect(pool.sent.length - before).toBe(LOST_CONNECTION_ATTEMPTS);
    await store.close();
  });

  it(`runs a transaction again up to ${LOST_CONNECTION_ATTEMPTS} times when its connection is terminated before its COMMIT`, async () => {
    database.assertReachable();
    let kills = 0;
    const store = new PostgresRunStore({ pool: killingPool(database.appPool(appName("txagain")), () => kills-- > 0), schema: database.newSchema() });
    await store.createRun({ runId: "r1", inputs: {}, status: "queued", at: 1000 });
    kills = LOST_CONNECTION_ATTEMPTS - 1;
    expect(await store.cancelRun("r1", { reason: "stop", at: 2000 })).toBe(true);
    expect(kills).toBe(-1);
    expect(uncaught).toEqual([]);
    await store.close();
  });

  it("recognises its landed write when a later try is refused because an earlier one committed", async () => {
    database.assertReachable();
    // The first try commits (its answer lost), the second is lost before it is sent, the third is refused.
    const faults: ("before" | "after")[] = [];
    const store = new PostgresRunStore({ pool: faultyPool(database.appPool(appName("landed3")), (text) => (isWrite(text) ? faults.shift() : undefined)), schema: database.newSchema() });
    await store.createRun({ runId: "r1", inputs: {}, status: "running", owner: "w1", leaseMs: 60_000, at: 1000 });
    const { epoch } = await store.claimRun("r1", { owner: "w1", ...claim });
    faults.push("after", "before");
    expect(await store.write("r1", { owner: "w1", epoch, leaseMs: 60_000, at: 2000, events: [{ seq: 1, type: "note", at: 2000, data: { text: "a" } }] })).toEqual({ inboxSeq: 0 });
    expect(faults).toEqual([]);
    faults.push("after", "before");
    expect(await store.write("r1", { owner: "w1", epoch, leaseMs: 60_000, at: 3000, events: [], update: { status: "failed", error: "boom", release: true } })).toEqual({ inboxSeq: 0 });
    expect(await store.getRun("r1")).toMatchObject({ status: "failed", error: "boom", eventCount: 1 });
    await store.close();
  });

  it("does not take for its own a write at the same time by the same writer that set another error, stop reason or checkpoint", async () => {
    database.assertReachable();
    let faults = 0;
    const store = new PostgresRunStore({ pool: faultyPool(database.appPool(appName("landedcols")), (text) => (isWrite(text) && faults-- > 0 ? "before" : undefined)), schema: database.newSchema() });
    const checkpoint = (iteration: number) => ({ schemaVersion: 1, iteration, elapsedMs: 0, phase: "tools" as const });
    const event = { seq: 1, type: "note", at: 2000, data: { text: "a" } };
    // Each pair: the same writer, time, status and events; only what `update` sets differs.
    const cases = [
      { first: { error: "first" }, second: { error: "SECOND" }, release: true },
      { first: { stopReason: "finish" }, second: { stopReason: "max_iterations" }, release: true },
      { first: { checkpoint: checkpoint(1) }, second: { checkpoint: checkpoint(2) }, release: false },
    ];
    for (const [index, { first, second, release }] of cases.entries()) {
      const runId = `r${index}`;
      await store.createRun({ runId, inputs: {}, status: "running", owner: "w1", leaseMs: 60_000, at: 1000 });
      const { epoch } = await store.claimRun(runId, { owner: "w1", ...claim });
      const status = release ? ("failed" as const) : undefined;
      await store.write(runId, { owner: "w1", epoch, leaseMs: 60_000, at: 2000, events: [event], update: { status, release, ...first } as never });
      // Lost before it was sent, then refused: the run holds the first write, not this one.
      faults = 1;
      const refused = await rejectionOf(store.write(runId, { owner: "w1", epoch, leaseMs: 60_000, at: 2000, events: [event], update: { status, release, ...second } as never }));
      if (release) expect(RunLeaseLostError.isInstance(refused)).toBe(true);
      else expect(refused.message).toMatch(/starts at seq 1, but the run has 1 event\(s\)/);
    }
    await store.close();
  });

  it("says the messages of an append whose connection was lost after it was sent may have been appended", async () => {
    database.assertReachable();
    let fault: "before" | "after" | "unsent" | undefined;
    const store = new PostgresRunStore({ pool: faultyPool(database.appPool(appName("append")), (text) => (/agentrx_thread_messages/.test(text) ? fault : undefined)), schema: database.newSchema() });
    const messages = [{ message: { type: "human", content: "m1" }, tokens: 1, at: 1000 }] as never;
    fault = "after";
    const landed = await rejectionOf(store.appendThreadMessages("t1", messages));
    expect(RunStoreError.isInstance(landed)).toBe(true);
    expect(landed.message).toMatch(/lost the connection to the database .* after the statement of appendThreadMessages of thread "t1" was sent.*the messages may have been appended: read the thread before appending them again/);
    fault = "unsent";
    const unsent = await rejectionOf(store.appendThreadMessages("t1", messages));
    expect(unsent.message).toMatch(/before the statement of appendThreadMessages of thread "t1" was sent.*none of the messages was appended/);
    fault = undefined;
    expect(await store.readThreadMessages("t1")).toHaveLength(1);
    await store.close();
  });

  it("says a claim whose answer was lost leaves the run to the same owner at once, to others after the lease", async () => {
    database.assertReachable();
    let faults = 0;
    const store = new PostgresRunStore({ pool: faultyPool(database.appPool(appName("claim")), (text) => (/^WITH before AS/.test(text) && faults-- > 0 ? "after" : undefined)), schema: database.newSchema() });
    await store.createRun({ runId: "r1", inputs: {}, status: "queued", at: 1000 });
    faults = 1;
    const error = await rejectionOf(store.claimRun("r1", { owner: "w1", leaseMs: 5000, at: 2000 }));
    expect(error.message).toMatch(/"w1" may claim it again at once; another owner after its lease \(5000 ms\) runs out/);
    expect(await store.claimRun("r1", { owner: "w1", leaseMs: 5000, at: 2001 })).toMatchObject({ owner: "w1" });
    await store.close();
  });
});
