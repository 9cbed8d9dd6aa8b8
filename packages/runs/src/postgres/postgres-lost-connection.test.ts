// A write (or a read) that went out on a pooled connection the server had just terminated
// (pg_terminate_backend: 57P01, or "Connection terminated unexpectedly" on a connection killed
// while idle) is tried again on another connection, a few times. Writes are fenced, so a repeat of one that
// did commit is refused; the store recognises its own landed write and reports it as written.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, RunLeaseLostError, RunStoreError, type StoredRunEvent } from "@agentrx/executors";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { rejectionOf } from "../testing/conformance/conformance-context";
import { faultyPool, isWrite } from "../testing/postgres-faults";
import { postgresTestDatabase } from "../testing/postgres-test-database";
import { LOST_CONNECTION_ATTEMPTS } from "./postgres-retry";
import { PostgresRunStore } from "./postgres-run-store";
import type { PostgresPool } from "./postgres-run-store-options";

const database = await postgresTestDatabase("PostgresRunStore lost connections");
const { connectionString } = database;

afterAll(() => database.drop());

/**
 * Terminates every backend of `app` and waits until they have exited, blocking the event loop
 * meanwhile (psql in a child process): the pool has not yet seen its idle connections die, so the
 * next query goes out on one of them, as it does when a connection is killed between two writes.
 */
function terminateBackendsNow(app: string): number {
  const out = execFileSync("psql", [connectionString, "-Atc", `SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity WHERE application_name = '${app}'`], { encoding: "utf8" });
  return Number(out.trim());
}

/** An executor whose model calls `add` `turns` times, then answers: one write per step or so. */
function adder(store: PostgresRunStore, turns: number) {
  const add = tool(async ({ a, b }: { a: number; b: number }) => String(a + b), { name: "add", description: "Adds two numbers.", schema: z.object({ a: z.number(), b: z.number() }) });
  const responses = [...Array.from({ length: turns }, (_, index) => ({ toolCalls: [{ name: "add", args: { a: index, b: 1 } }] })), "done"];
  const llm = new ScriptedChatModel({ responses });
  const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [add], prompt }), tools: [add], store });
}

/** Every event of a run, its seqs checked to be 1..n with none repeated. */
async function recordOf(store: PostgresRunStore, runId: string): Promise<StoredRunEvent[]> {
  const events = await store.readEvents(runId);
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  return events;
}

const claim = { leaseMs: 60_000, at: 1000 };
const event = (seq: number, text: string): StoredRunEvent => ({ seq, type: "note", at: 1000 + seq, data: { type: "note", text } });

describe.skipIf(database.skip)("PostgresRunStore on a connection the server terminated", () => {
  it("records every run in full when the pool's connections are terminated between writes (pg_terminate_backend)", { timeout: 60_000 }, async () => {
    database.assertReachable();
    const app = `agentrx_lost_${Math.random().toString(36).slice(2, 8)}`;
    const pool = database.appPool(app);
    let writes = 0;
    let terminated = 0;
    // Before every third write: the pool's connections are killed, as the probe's admin did.
    const killing: PostgresPool = {
      query: (config) => {
        if (isWrite(config.text) && ++writes % 3 === 0) terminated += terminateBackendsNow(app);
        return pool.query(config);
      },
      connect: () => pool.connect(),
      end: () => pool.end(),
      on: (event, listener) => pool.on(event, listener),
    };
    const store = new PostgresRunStore({ pool: killing, schema: database.newSchema() });
    for (let index = 0; index < 6; index++) {
      const result = await adder(store, 3).invoke({ input: `add ${index}` }, { runId: `run-${index}` });
      expect(result.output).toBe("done");
    }
    expect(terminated).toBeGreaterThan(0);
    for (let index = 0; index < 6; index++) {
      const runId = `run-${index}`;
      expect(await store.getRun(runId)).toMatchObject({ status: "finished", stopReason: "finish" });
      const events = await recordOf(store, runId);
      expect(events.filter((e) => e.type === "action")).toHaveLength(3);
      expect(events.filter((e) => e.type === "step")).toHaveLength(3);
      expect(events.filter((e) => e.type === "output")).toHaveLength(1);
    }
    await store.close();
  });

  it("takes a write whose commit landed but whose answer was lost as written, once: events, checkpoint, release and a closed inbox", async () => {
    database.assertReachable();
    let faults = 0;
    const store = new PostgresRunStore({ pool: faultyPool(database.appPool("agentrx_lost_after"), (text) => (isWrite(text) && faults-- > 0 ? "after" : undefined)), schema: database.newSchema() });
    await store.createRun({ runId: "r1", inputs: { input: "x" }, status: "running", owner: "w1", leaseMs: 60_000, at: 1000 });
    const { epoch } = await store.claimRun("r1", { owner: "w1", ...claim });
    faults = 1;
    expect(await store.write("r1", { owner: "w1", epoch, leaseMs: 60_000, at: 2000, events: [event(1, "a"), event(2, "b")], update: { checkpoint: { schemaVersion: 1, iteration: 1, elapsedMs: 0, phase: "tools" } } })).toEqual({ inboxSeq: 0 });
    faults = 1;
    expect(await store.write("r1", { owner: "w1", epoch, leaseMs: 60_000, at: 3000, events: [event(3, "c")], update: { closeInbox: 0 } })).toEqual({ inboxSeq: 0, inboxClosed: true });
    faults = 1;
    expect(await store.write("r1", { owner: "w1", epoch, leaseMs: 60_000, at: 4000, events: [], update: { status: "finished", stopReason: "finished", release: true } })).toEqual({ inboxSeq: 0 });
    expect((await recordOf(store, "r1")).map((e) => e.data.text)).toEqual(["a", "b", "c"]);
    const info = await store.getRun("r1");
    expect(info).toMatchObject({ status: "finished", eventCount: 3, checkpoint: { iteration: 1 } });
    expect(info?.owner).toBeUndefined();
    await store.close();
  });

  it("takes a createRun whose insert landed but whose answer was lost as done, and a read is tried again", async () => {
    database.assertReachable();
    let faults = 0;
    const store = new PostgresRunStore({ pool: faultyPool(database.appPool("agentrx_lost_create"), (text) => (faults-- > 0 ? (text.startsWith("INSERT") ? "after" : "before") : undefined)), schema: database.newSchema() });
    await store.getRun("nothing");
    faults = 1;
    await store.createRun({ runId: "r1", inputs: { input: "x" }, status: "running", owner: "w1", leaseMs: 60_000, at: 1000 });
    faults = 1;
    expect(await store.getRun("r1")).toMatchObject({ status: "running", owner: "w1" });
    faults = 1;
    expect(await store.readEvents("r1")).toEqual([]);
    // Another run by the same id is still refused.
    const again = await rejectionOf(store.createRun({ runId: "r1", inputs: { input: "y" }, status: "queued", at: 5000 }));
    expect(again.message).toMatch(/exists already/);
    await store.close();
  });

  it(`still refuses a write the retry finds outdated by another write, and tries a lost one at most ${LOST_CONNECTION_ATTEMPTS} times`, async () => {
    database.assertReachable();
    let faults = 0;
    const pool = faultyPool(database.appPool("agentrx_lost_refused"), (text) => (isWrite(text) && faults-- > 0 ? "before" : undefined));
    const store = new PostgresRunStore({ pool, schema: database.newSchema() });
    await store.createRun({ runId: "r1", inputs: {}, status: "running", owner: "w1", leaseMs: 60_000, at: 1000 });
    const { epoch } = await store.claimRun("r1", { owner: "w1", ...claim });
    await store.write("r1", { owner: "w1", epoch, leaseMs: 60_000, at: 2000, events: [event(1, "a")] });
    // Lost before it was sent; the retry meets a run with seq 1 recorded by an earlier write, not this one's.
    faults = 1;
    const repeated = await rejectionOf(store.write("r1", { owner: "w1", epoch, leaseMs: 60_000, at: 3000, events: [event(1, "other")] }));
    expect(RunStoreError.isInstance(repeated)).toBe(true);
    expect(repeated.message).toMatch(/starts at seq 1, but the run has 1 event\(s\)/);
    // A run claimed by another since: the retry is refused as the write would have been.
    await store.claimRun("r1", { owner: "w2", leaseMs: 60_000, at: 10_000_000_000_000 });
    faults = 1;
    const lost = await rejectionOf(store.write("r1", { owner: "w1", epoch, leaseMs: 60_000, at: 4000, events: [event(2, "b")] }));
    expect(RunLeaseLostError.isInstance(lost)).toBe(true);
    // Lost every time: the last failure is reported, nothing more is tried.
    faults = LOST_CONNECTION_ATTEMPTS;
    const before = pool.sent.length;
    const twice = await rejectionOf(store.write("r1", { owner: "w2", epoch: epoch! + 1, leaseMs: 60_000, at: 5000, events: [event(2, "b")] }));
    expect(twice.message).toMatch(/lost the connection to the database .*Connection terminated unexpectedly/);
    expect(pool.sent.length - before).toBe(LOST_CONNECTION_ATTEMPTS);
    expect((await recordOf(store, "r1")).map((e) => e.data.text)).toEqual(["a"]);
    await store.close();
  });

  it("records a run whose write lost its connection every time as failed, its lease released, so it resumes at once and finishes", { timeout: 30_000 }, async () => {
    database.assertReachable();
    let writes = 0;
    // The third write and each of its retries lose their connection.
    const pool = faultyPool(database.appPool("agentrx_lost_twice"), (text) => (isWrite(text) && ++writes >= 3 && writes < 3 + LOST_CONNECTION_ATTEMPTS ? "before" : undefined));
    const store = new PostgresRunStore({ pool, schema: database.newSchema() });
    const failure = await rejectionOf(Promise.resolve(adder(store, 3).invoke({ input: "add" }, { runId: "r1" })));
    expect(failure.message).toMatch(/lost the connection to the database .*Connection terminated unexpectedly/);
    const failed = await store.getRun("r1");
    expect(failed).toMatchObject({ status: "failed", error: expect.stringMatching(/lost the connection/) });
    expect(failed?.owner).toBeUndefined();
    const before = await recordOf(store, "r1");
    // The resume claims the run at once (no RunBusyError) and goes on from its record.
    const resumed = await adder(store, 3).resume("r1");
    expect(resumed.output).toBe("done");
    const events = await recordOf(store, "r1");
    expect(events.slice(0, before.length)).toEqual(before);
    expect(await store.getRun("r1")).toMatchObject({ status: "finished" });
    await store.close();
  });

  it("does not try again a write that failed for another reason than a lost connection", async () => {
    database.assertReachable();
    let faults = 0;
    const pool = faultyPool(database.appPool("agentrx_lost_other"), (text) => (isWrite(text) && faults-- > 0 ? "error" : undefined));
    const store = new PostgresRunStore({ pool, schema: database.newSchema() });
    await store.createRun({ runId: "r1", inputs: {}, status: "running", owner: "w1", leaseMs: 60_000, at: 1000 });
    faults = 1;
    const before = pool.sent.length;
    const error = await rejectionOf(store.write("r1", { owner: "w1", leaseMs: 60_000, at: 2000, events: [event(1, "a")] }));
    expect(error.message).toMatch(/23505/);
    expect(pool.sent.length - before).toBe(1);
    await store.close();
  });
});
