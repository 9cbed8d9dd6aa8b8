import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentStep, isMessageStep } from "@agentrx/core";
import { AgentExecutor, RunFinishedError, type RunStore, type RunWrite, runInboxId, sendRunMessage } from "@agentrx/executors";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { Subject, lastValueFrom } from "rxjs";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryRunStore } from "../memory/index";
import { PostgresRunStore } from "../postgres/index";
import { SqliteRunStore } from "../sqlite/index";
import { type PostgresTestDatabase, postgresTestDatabase } from "../testing/postgres-test-database";

/**
 * The run's store, with a hook around the write that closes the run's inbox (the last write before
 * its answer): `before` runs after the run's last look at its inbox and before that write reaches
 * the store, `after` once the store applied it and before the run writes its output.
 */
function hookedStore(store: RunStore, hooks: { before?: () => Promise<void>; after?: () => Promise<void> }): RunStore {
  let fired = false;
  return new Proxy(store, {
    get(target, name, receiver) {
      if (name === "write") {
        return async (runId: string, write: RunWrite) => {
          const closing = write.update?.closeInbox !== undefined && !fired;
          if (closing) fired = true;
          if (closing) await hooks.before?.();
          const result = await target.write(runId, write);
          if (closing) await hooks.after?.();
          return result;
        };
      }
      const value = Reflect.get(target, name, receiver) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** An agent that answers at once with the messages it was sent so far. */
function answeringAgent() {
  const seen: AgentStep[][] = [];
  const agent = RunnableLambda.from((input: { steps: AgentStep[] }) => {
    seen.push(input.steps);
    const sent = input.steps.filter(isMessageStep).map((step) => step.observation);
    return { returnValues: { output: `answer after: ${sent.join(" / ") || "nothing"}` }, log: "" };
  });
  return { agent, seen };
}

/** `store`, counting its inbox reads (`readThreadMessages` of the run's inbox). */
function countingReads(store: RunStore): { store: RunStore; reads: () => number } {
  let reads = 0;
  const counted = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (name === "readThreadMessages") {
        return (threadId: string, options?: object) => {
          if (threadId.startsWith(runInboxId(""))) reads++;
          return target.readThreadMessages(threadId, options);
        };
      }
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: counted, reads: () => reads };
}

const id = () => `race-${Math.random().toString(36).slice(2, 10)}`;

/**
 * The interleavings of a send with a run that is answering, each forced by the hooks: `open()`
 * gives the store the run records to; `sender()` one the sender uses (another connection for
 * SQLite and PostgreSQL).
 */
function raceTests(open: () => RunStore, sender: () => RunStore): void {
  it("reads the run's inbox only when something was sent: each write reports the inbox's last position", async () => {
    const search = tool(async () => "sunny", { name: "search", description: "Searches.", schema: z.object({}) });
    let calls = 0;
    let runId = id();
    let counted = countingReads(open());
    const agent = RunnableLambda.from(async (input: { steps: AgentStep[] }) => {
      calls++;
      if (calls === 2 && runId.endsWith("-sent")) await sendRunMessage(runId, "Also Rome.", { store: sender(), operation: "test" });
      const searches = input.steps.filter((step) => !isMessageStep(step)).length;
      if (searches < 4) return { tool: "search", toolInput: {}, log: "", toolCallId: `c${calls}` };
      return { returnValues: { output: `done; told: ${input.steps.filter(isMessageStep).map((step) => step.observation).join(", ") || "nothing"}` }, log: "" };
    });
    // Five agent calls, four turn boundaries and the answer: nothing sent, nothing read.
    const quiet = await lastValueFrom(new AgentExecutor({ agent, tools: [search], store: counted.store }).invoke({ input: "weather" }, { runId }));
    expect(quiet.output).toBe("done; told: nothing");
    expect(calls).toBe(5);
    expect(counted.reads()).toBe(0);

    // A message sent during the second agent call: read at the next boundary, once.
    calls = 0;
    runId = `${id()}-sent`;
    counted = countingReads(open());
    const told = await lastValueFrom(new AgentExecutor({ agent, tools: [search], store: counted.store }).invoke({ input: "weather" }, { runId }));
    expect(told.output).toBe("done; told: Also Rome.");
    expect(counted.reads()).toBe(1);
    const message = (await open().readEvents(runId)).find((event) => event.type === "message");
    expect(message?.data["iteration"]).toBe(2);
  });

  it("a message sent after the run's last look at its inbox, before its answer is written, is taken: the run goes on", async () => {
    const runId = id();
    const { agent, seen } = answeringAgent();
    let sent: unknown;
    const store = hookedStore(open(), { before: async () => void (sent = await sendRunMessage(runId, "Also Rome.", { store: sender(), operation: "test" })) });
    const result = await lastValueFrom(new AgentExecutor({ agent, tools: [], store }).invoke({ input: "weather" }, { runId }));
    expect(sent).toEqual({ runId, inboxSeq: 1, status: "running" });
    expect(result.output).toBe("answer after: Also Rome.");
    expect(seen.length).toBe(2);
    const events = await open().readEvents(runId);
    expect(events.filter((event) => event.type === "message").map((event) => event.data["inboxSeq"])).toEqual([1]);
    expect(events.find((event) => event.type === "message")?.data["unanswered"]).toBeUndefined();
  });

  it("a message sent once the run closed its inbox is refused, though the run still reads running", async () => {
    const runId = id();
    const { agent } = answeringAgent();
    let refused: unknown;
    let status: string | undefined;
    const store = hookedStore(open(), {
      after: async () => {
        status = (await sender().getRun(runId))?.status;
        refused = await sendRunMessage(runId, "Too late.", { store: sender(), operation: "test" }).then(() => "accepted", (error: unknown) => error);
      },
    });
    const result = await lastValueFrom(new AgentExecutor({ agent, tools: [], store }).invoke({ input: "weather" }, { runId }));
    expect(status).toBe("running");
    expect(RunFinishedError.isInstance(refused)).toBe(true);
    expect(result.output).toBe("answer after: nothing");
    expect(await open().readThreadMessages(runInboxId(runId))).toEqual([]);
  });

  it("a run with no iteration left records such a message as unanswered, and the send was right to accept it", async () => {
    const runId = id();
    const { agent, seen } = answeringAgent();
    let sent: unknown;
    const store = hookedStore(open(), { before: async () => void (sent = await sendRunMessage(runId, "Also Rome.", { store: sender(), operation: "test" })) });
    const result = await lastValueFrom(new AgentExecutor({ agent, tools: [], store, maxIterations: 1 }).invoke({ input: "weather" }, { runId }));
    expect(sent).toMatchObject({ inboxSeq: 1, status: "running" });
    expect(result.output).toBe("answer after: nothing");
    expect(seen.length).toBe(1);
    const events = await open().readEvents(runId);
    const message = events.find((event) => event.type === "message");
    expect(message?.data).toMatchObject({ inboxSeq: 1, unanswered: true });
    expect(events.at(-1)?.type).toBe("output");
    expect((await open().getRun(runId))?.status).toBe("finished");
  });
}

describe("a send racing a run's answer (MemoryRunStore)", () => {
  const store = new MemoryRunStore();
  raceTests(() => store, () => store);
});

describe("a send racing a run's answer (SqliteRunStore, the sender on another connection)", () => {
  const dir = mkdtempSync(join(tmpdir(), "agentrx-race-"));
  const path = join(dir, "runs.db");
  const run = new SqliteRunStore({ path });
  const other = new SqliteRunStore({ path });
  afterAll(async () => {
    await run.close();
    await other.close();
    rmSync(dir, { recursive: true, force: true });
  });
  raceTests(() => run, () => other);
});

const database: PostgresTestDatabase = await postgresTestDatabase("steering race");

describe.skipIf(database.skip)("a send racing a run's answer (PostgresRunStore, the sender on another pool)", () => {
  let run: PostgresRunStore;
  let other: PostgresRunStore;
  beforeAll(() => {
    database.assertReachable();
    run = new PostgresRunStore({ connectionString: database.connectionString, schema: database.schema });
    other = new PostgresRunStore({ connectionString: database.connectionString, schema: database.schema });
  });
  afterAll(async () => {
    await run?.close();
    await other?.close();
    await database.drop();
  });
  raceTests(() => run, () => other);
});

describe("a halt while the run reads its inbox (MemoryRunStore)", () => {
  it("ends the run gracefully, and the message read meanwhile joins it as it ends, once", async () => {
    const base = new MemoryRunStore();
    const stop = new Subject<unknown>();
    let armed = false;
    // The stop condition fires inside the inbox read: the read resolves after the run was halted.
    const store = new Proxy(base, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (name === "readThreadMessages") {
          return async (threadId: string, options?: object) => {
            if (armed && threadId.startsWith(runInboxId(""))) {
              armed = false;
              stop.next({ budget: "test" });
            }
            return target.readThreadMessages(threadId, options);
          };
        }
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as RunStore;
    const runId = "halt-read";
    const search = tool(
      async () => {
        await sendRunMessage(runId, "Also Rome.", { store: base, operation: "test" });
        armed = true;
        return "sunny";
      },
      { name: "search", description: "Searches.", schema: z.object({}) },
    );
    const agent = RunnableLambda.from((input: { steps: AgentStep[] }) => {
      if (input.steps.length === 0) return { tool: "search", toolInput: {}, log: "", toolCallId: "c1" };
      return { returnValues: { output: `told: ${input.steps.filter(isMessageStep).map((step) => step.observation).join(",")}` }, log: "" };
    });
    const executor = new AgentExecutor({ agent, tools: [search], store, returnIntermediateSteps: true });
    const result = await lastValueFrom(executor.invoke({ input: "w" }, { runId, stopWhen: () => stop }));
    expect(result.stopReason).toBe("budget");
    const events = await base.readEvents(runId);
    expect(events.filter((event) => event.type === "message")).toHaveLength(1);
    expect((await base.getRun(runId))?.status).toBe("finished");
  });
});
