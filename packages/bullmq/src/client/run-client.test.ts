import { type AddressInfo, createServer } from "node:net";
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { InvalidArgumentError } from "@agentrx/core";
import { AgentExecutor, RunNotFoundError } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { lastValueFrom, toArray } from "rxjs";
import { afterAll, describe, expect, it } from "vitest";
import { RunStoppedError } from "../errors/run-stopped-error";
import { doublingExecutor } from "../test-helpers/doubling-agent";
import { useQueueFixture } from "../test-helpers/queue-fixture";
import { testServers, until } from "../test-helpers/test-servers";
import type { RunEvent } from "./follow-run";
import { RunClient } from "./run-client";

describe("RunClient: arguments (checked before Redis is reached)", () => {
  // Port 1: nothing listens there; none of these calls may get as far as connecting.
  const client = new RunClient({ connection: { host: "127.0.0.1", port: 1, lazyConnect: true }, store: new MemoryRunStore() });
  afterAll(() => client.close());

  it("refuses misspelt option keys, naming them, instead of going on without them", async () => {
    await expect(client.submit("double", { input: "x" }, { runID: "order-42" } as never)).rejects.toThrow(
      "RunClient.submit: unknown option `options.runID`; did you mean `runId`? Known options: threadId, runId.",
    );
    await expect(client.submit("double", { input: "x" }, { thread: "t1" } as never)).rejects.toSatisfy((error) => InvalidArgumentError.isInstance(error) && error.argument === "options.thread");
    expect(() => client.events("r1", { afterSeq: 3 } as never)).toThrow(/RunClient.events: unknown option `options.afterSeq`. Known options: after\./);
    await expect(client.resume("r1", { decision: { a: "approve" } } as never)).rejects.toThrow(/RunClient.resume: unknown option `options.decision`; did you mean `decisions`\? Known options: decisions\./);
    await expect(client.reconcile({ max: 5 } as never)).rejects.toThrow(/RunClient.reconcile: unknown option `options.max`. Known options: limit\./);
  });

  it("result() rejects for a bad run id, as for every other failure, instead of throwing at the call", async () => {
    let returned: Promise<unknown> | undefined;
    expect(() => (returned = client.result(42 as never))).not.toThrow();
    await expect(returned).rejects.toThrow("RunClient.events: `runId` must be a non-empty string, got 42.");
    await expect(client.result("")).rejects.toSatisfy((error) => InvalidArgumentError.isInstance(error));
  });
});

describe("RunClient while Redis is unreachable", () => {
  it("close() does not wait for Redis: it ends the runs followed and resolves", async () => {
    const store = new MemoryRunStore();
    await store.createRun({ runId: "waiting", inputs: { input: "x" }, status: "queued", metadata: { executor: "double" }, at: Date.now() });
    // Port 1: nothing listens there; the follower's SUBSCRIBE waits for a connection that never comes.
    const client = new RunClient({ connection: { host: "127.0.0.1", port: 1, retryStrategy: () => 50 }, store });
    const followed = client.result("waiting");
    await client.close();
    await expect(followed).rejects.toThrow(/RunClient.close\(\) was called while this run was followed/);
  });

  it("close() rejects the calls that wait for Redis (submit, cancel), and a submit's run is recorded as failed", async () => {
    const store = new MemoryRunStore();
    const client = new RunClient({ connection: { host: "127.0.0.1", port: 1, retryStrategy: () => 50 }, store });
    const submitted = client.submit("double", { input: "x" }, { runId: "down-1" });
    await until(async () => (await store.getRun("down-1"))?.status === "queued", "the run to be recorded");
    const cancelled = client.cancel("down-1");
    const outcomes = Promise.allSettled([submitted, cancelled]);
    await new Promise((resolve) => setTimeout(resolve, 100)); // both wait for Redis
    await client.close();
    const [submit, cancel] = await outcomes;
    const closed = "RunClient: the client was closed while this call waited for Redis; nothing more of it was done.";
    expect(submit).toMatchObject({ status: "rejected", reason: { message: closed } });
    expect(cancel).toMatchObject({ status: "rejected", reason: { message: closed } });
    expect(await store.getRun("down-1")).toMatchObject({ status: "failed", error: `RunClient.submit could not queue the run: ${closed}` });
  });
});

const servers = await testServers("RunClient");

const supervisorPrompt = ChatPromptTemplate.fromMessages([
  ["human", "{input}"],
  ["placeholder", "{agent_scratchpad}"],
]);

describe.skipIf(servers.skip)("RunClient with in-process workers (Redis, PostgreSQL)", () => {
  const fixture = useQueueFixture(servers, "client-test");

  it("submits a run, records it as queued at once, and gives its result once a worker ran it", async () => {
    const client = fixture.client();
    const runId = await client.submit("double", { input: "double 21" }, { threadId: "thread-1" });
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "queued", threadId: "thread-1", metadata: { executor: "double" } });
    fixture.worker({ double: () => doublingExecutor() });
    const result = await client.result(runId);
    expect(result).toMatchObject({ input: "double 21", output: "21 doubled is 42.", runId });
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "finished", stopReason: "finish" });
  });

  it("follows a run from the record, then live: every recorded event once, in seq order, tokens live", async () => {
    const client = fixture.client();
    fixture.worker({ slow: () => doublingExecutor({ latencyMs: 40, toolMs: 40 }) });
    const runId = await client.submit("slow", { input: "double 5" });
    const early = lastValueFrom(client.events(runId).pipe(toArray()));
    // A second follower joins once the run is under way: part record, part live.
    await until(async () => ((await fixture.store.getRun(runId))?.eventCount ?? 0) >= 3, "three recorded events");
    const late = lastValueFrom(client.events(runId).pipe(toArray()));
    const [first, second] = await Promise.all([early, late]);
    for (const events of [first, second]) {
      const seqs = events.flatMap((event) => (event.seq === undefined ? [] : [event.seq]));
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(seqs.length);
      expect(events.at(-1)).toMatchObject({ type: "output", output: "5 doubled is 10." });
      expect(textOf(events)).toBe("Doubling 5.5 doubled is 10.");
    }
    // The first follower was there from the start: its tokens came live, one per word.
    expect(first.filter((event) => event.type === "token" && event.seq === undefined).length).toBeGreaterThan(2);
    expect(first.map((event) => event.type)).toEqual(["start", ...first.slice(1, -1).map((event) => event.type), "output"]);
    // Every recorded stream event is there: the record has the same seqs, less the record-only entries.
    const recorded = (await fixture.store.readEvents(runId)).filter((event) => event.type !== "model_call" && event.type !== "token");
    expect(first.filter((event) => event.seq !== undefined && event.type !== "token").map((event) => event.seq)).toEqual(recorded.map((event) => event.seq));
  });

  it("follows a run with a sub-run: each of the sub-run's events once, with the tool call that started it", async () => {
    const client = fixture.client();
    const supervisor = () => {
      const doubler = doublingExecutor({ latencyMs: 20 }).asTool({ name: "doubler", description: "Doubles a number." });
      const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "doubler", args: { input: "double 3" }, id: "call-d" }] }, "It is 6."] });
      return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [doubler], prompt: supervisorPrompt }), tools: [doubler] });
    };
    fixture.worker({ supervisor });
    const runId = await client.submit("supervisor", { input: "What is 3 doubled?" });
    const events = await lastValueFrom(client.events(runId).pipe(toArray()));
    expect(events.at(-1)).toMatchObject({ type: "output", output: "It is 6." });
    const sub = events.filter((event) => event.subRun !== undefined && event.type !== "token");
    // The sub-run's events, each once (they are recorded: they come with their seq).
    expect(sub.map((event) => event.type)).toEqual(["start", "usage", "action", "step", "usage", "output"]);
    expect(sub.every((event) => event.seq !== undefined && event.subRunCallIds?.[0] === "call-d")).toBe(true);
    const recorded = (await fixture.store.readEvents(runId)).filter((event) => Array.isArray(event.data["subRun"]) && event.type !== "model_call");
    expect(sub.map((event) => event.seq)).toEqual(recorded.map((event) => event.seq));
    // Its streamed answer came live, marked with its path and call.
    const subTokens = events.filter((event) => event.subRun !== undefined && event.type === "token");
    expect(subTokens.length).toBeGreaterThan(0);
    expect(subTokens.every((event) => event.subRunCallIds?.[0] === "call-d")).toBe(true);
    // The run's result is its own answer, not its sub-run's.
    expect((await client.result(runId)).output).toBe("It is 6.");
  });

  it("resumes a stream after a given seq with exactly the events after it", async () => {
    const client = fixture.client();
    fixture.worker({ double: () => doublingExecutor() });
    const runId = await client.submit("double", { input: "double 8" });
    const all = await lastValueFrom(client.events(runId).pipe(toArray()));
    const cut = all.filter((event) => event.seq !== undefined)[2]?.seq as number;
    expect(cut).toBeGreaterThan(0);
    const rest = await lastValueFrom(client.events(runId, { after: cut }).pipe(toArray()));
    // Read from the record: every stream event after the cut, the answer's text as one token event.
    const recorded = (await fixture.store.readEvents(runId, { after: cut })).filter((event) => event.type !== "model_call");
    expect(rest.map((event) => [event.seq, event.type])).toEqual(recorded.map((event) => [event.seq, event.type]));
    expect(textOf(rest)).toBe("8 doubled is 16.");
    // After the output: nothing, and the stream completes at once.
    const output = all.at(-1)?.seq as number;
    expect(await lastValueFrom(client.events(runId, { after: output }).pipe(toArray()))).toEqual([]);
  });

  it("cancel reaches the run's AbortSignal on the worker within 100 ms and records it as cancelled", async () => {
    const client = fixture.client();
    let abortedAt: number | undefined;
    let started = false;
    fixture.worker({
      hang: () =>
        doublingExecutor({
          toolMs: 60_000,
          onTool: (what) => what === "start" && (started = true),
          onAbort: () => (abortedAt = Date.now()),
        }),
    });
    const runId = await client.submit("hang", { input: "double 1" });
    const events = lastValueFrom(client.events(runId).pipe(toArray())).catch((error: unknown) => error);
    await until(() => started, "the tool to start");
    const cancelledAt = Date.now();
    await client.cancel(runId);
    await until(() => abortedAt !== undefined, "the abort");
    expect((abortedAt as number) - cancelledAt).toBeLessThan(100);
    const stopped = await events;
    expect(RunStoppedError.isInstance(stopped) && stopped.status).toBe("cancelled");
    await until(async () => (await fixture.store.getRun(runId))?.status === "cancelled", "the cancelled status");
    await expect(client.result(runId)).rejects.toThrow(/was cancelled/);
  });

  it("cancels a queued run that no worker has taken: recorded as cancelled, its job removed", async () => {
    const client = fixture.client();
    const runId = await client.submit("double", { input: "double 3" });
    await client.cancel(runId);
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "cancelled" });
    expect(await fixture.queue().getJob(`run-${runId}`)).toBeUndefined();
    await expect(client.result(runId)).rejects.toSatisfy((error) => RunStoppedError.isInstance(error) && error.status === "cancelled");
  });

  it("cancels a paused run: recorded as cancelled with a reason that says it was paused, and its result rejects", async () => {
    const client = fixture.client();
    fixture.worker({ approve: () => doublingExecutor({ approval: true }) });
    const runId = await client.submit("approve", { input: "double 2" });
    expect((await client.result(runId)).stopReason).toBe("interrupted");
    await client.cancel(runId);
    const info = await fixture.store.getRun(runId);
    expect(info?.status).toBe("cancelled");
    // It ran on a worker before it paused: the reason must not say no worker started it.
    expect(info?.error).toMatch(/while it was paused for approval/);
    await expect(client.result(runId)).rejects.toSatisfy((error) => RunStoppedError.isInstance(error) && error.status === "cancelled" && /paused for approval/.test(error.message));
  });

  it("pauses for approval on a worker, and a resume with decisions finishes it on a worker", async () => {
    const client = fixture.client();
    const effects: number[] = [];
    fixture.worker({ approve: () => doublingExecutor({ approval: true, onTool: (what, n) => what === "done" && effects.push(n) }) });
    const runId = await client.submit("approve", { input: "double 4" });
    const paused = await client.result(runId);
    expect(paused).toMatchObject({ output: "", interrupts: [{ id: "call-0-0", tool: "double", toolInput: { n: 4 } }] });
    expect(effects).toEqual([]);
    const pauseEnd = (await fixture.store.getRun(runId))?.eventCount as number;
    // Checked at the call, against the pause in the store: refused, the run left as it was...
    await expect(client.resume(runId, { decisions: { nope: "approve" } })).rejects.toThrow(/RunClient\.resume: run ".*" has no interrupt "nope" waiting for a decision \(waiting: call-0-0\)/);
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "interrupted", eventCount: pauseEnd });
    // ...and the right decision then goes through.
    await client.resume(runId, { decisions: { "call-0-0": "approve" } });
    // Followed from the pause on: the queued resume keeps the stream open until its output.
    const events = await lastValueFrom(client.events(runId, { after: pauseEnd }).pipe(toArray()));
    expect(events[0]).toMatchObject({ type: "start", resumed: true });
    expect(events.at(-1)).toMatchObject({ type: "output", output: "4 doubled is 8." });
    expect(effects).toEqual([4]);
    await expect(client.resume(runId, { decisions: { "call-0-0": "approve" } })).rejects.toThrow(/not paused/);
  });

  it("fails a run whose executor no worker has, naming the executors it has", async () => {
    const client = fixture.client();
    fixture.worker({ double: () => doublingExecutor() });
    const runId = await client.submit("nope", { input: "double 1" });
    const error = await client.result(runId).catch((caught: unknown) => caught);
    expect(RunStoppedError.isInstance(error) && error.status).toBe("failed");
    expect((error as RunStoppedError).reason).toMatch(/No executor named "nope" on this worker \(it has "double"\)/);
  });

  it("submitting an id again after its run was deleted from the store runs the new run (the old run's job, which BullMQ keeps, does not stand in for it)", async () => {
    const client = fixture.client();
    fixture.worker({ double: () => doublingExecutor() });
    const runId = `again-${fixture.queueName}`;
    await client.submit("nope", { input: "double 1" }, { runId });
    await expect(client.result(runId)).rejects.toThrow(/No executor named "nope"/); // its job failed, and is kept
    await fixture.store.deleteRun(runId);
    await expect(client.submit("double", { input: "double 5" }, { runId })).resolves.toBe(runId);
    expect((await client.result(runId)).output).toBe("5 doubled is 10.");
    // An earlier run of the id that was cancelled: its cancel (kept in Redis for a day) is not the new run's.
    const cancelledId = `again-cancelled-${fixture.queueName}`;
    await client.submit("double", { input: "double 2" }, { runId: cancelledId });
    await client.cancel(cancelledId);
    await fixture.store.deleteRun(cancelledId);
    await client.submit("double", { input: "double 3" }, { runId: cancelledId });
    expect((await client.result(cancelledId)).output).toBe("3 doubled is 6.");
    // A run id in use is refused, and the run it names is left as it is.
    await expect(client.submit("double", { input: "double 6" }, { runId })).rejects.toThrow(/exists already/);
    expect((await client.result(runId)).output).toBe("5 doubled is 10.");
  });

  it("gives a finished run's result and events from the store alone while Redis is unreachable", async () => {
    fixture.worker({ double: () => doublingExecutor() });
    const runId = await fixture.client().submit("double", { input: "double 8" });
    expect((await fixture.client().result(runId)).output).toBe("8 doubled is 16.");
    // A client whose Redis does not answer (nothing listens on its port).
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port: free } = server.address() as AddressInfo;
        server.close(() => resolve(free));
      });
    });
    const cut = fixture.client({ connection: { host: "127.0.0.1", port, retryStrategy: () => 50 } });
    expect((await cut.result(runId)).output).toBe("8 doubled is 16.");
    const events = await lastValueFrom(cut.events(runId, { after: 2 }).pipe(toArray()));
    expect(events[0]?.seq).toBe(3);
    expect(events.at(-1)).toMatchObject({ type: "output", output: "8 doubled is 16." });
    await expect(cut.result("no-such-run")).rejects.toSatisfy((error) => RunNotFoundError.isInstance(error));
  });

  it("send steers a run on a worker: the message joins at its next turn boundary, and a finished run refuses one", async () => {
    const client = fixture.client();
    const runId = `steer-${fixture.queueName}`;
    const sent: Promise<unknown>[] = [];
    fixture.worker({ steer: () => doublingExecutor({ toolMs: 150, onTool: (what) => void (what === "start" && sent.push(client.send(runId, "Also check Rome."))) }) });
    await client.submit("steer", { input: "double 6" }, { runId });
    const result = await client.result(runId);
    expect(await Promise.all(sent)).toEqual([{ runId, inboxSeq: 1, status: "running" }]);
    expect(result.output).toBe("6 doubled is 12. You also said: Also check Rome.");
    const events = await lastValueFrom(client.events(runId).pipe(toArray()));
    const types = events.map((event) => event.type).filter((type) => type === "step" || type === "message" || type === "output");
    expect(types).toEqual(["step", "message", "output"]);
    await expect(client.send(runId, "And Oslo?")).rejects.toThrow(/finished \(finish\) before the message arrived/);
  });

  it("rejects unknown runs and bad arguments clearly", async () => {
    const client = fixture.client();
    await expect(client.result("no-such-run")).rejects.toSatisfy((error) => RunNotFoundError.isInstance(error));
    await expect(client.cancel("no-such-run")).rejects.toSatisfy((error) => RunNotFoundError.isInstance(error));
    await expect(client.submit("", { input: "x" })).rejects.toThrow(/`executor` must be/);
    await expect(client.submit("double", [] as never)).rejects.toThrow(/`inputs` must be an object/);
    expect(() => client.events("r", { after: -1 })).toThrow(/`after` must be an integer >= 0/);
    const circular: Record<string, unknown> = {};
    circular["self"] = circular;
    await expect(client.submit("double", circular)).rejects.toThrow(/inputs.self contains a circular reference/);
  });
});

function textOf(events: RunEvent[]): string {
  return events.map((event) => (event.type === "token" ? event.text : "")).join("");
}
