// Workers in their own processes, as in production: three of them share 200 runs, one is killed
// with SIGKILL mid-way, and the runs it held finish on the others from their records.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunClient } from "./client/run-client";
import { serveRunEvents } from "./sse/serve-run-events";
import { type QueueFixture, queueFixture } from "./test-helpers/queue-fixture";
import { type SseMessage, readSse } from "./test-helpers/sse-client";
import { testServers, until } from "./test-helpers/test-servers";
import type { WorkerProcessArgs } from "./test-helpers/worker-process";
import { type WorkerProcess, startWorkerProcess, stopWorkerProcess, workerArgs } from "./test-helpers/worker-processes";

const servers = await testServers("multi-process worker");
const RUNS = 200;

describe.skipIf(servers.skip)("worker processes (Redis, PostgreSQL)", () => {
  let fixture: QueueFixture;
  let client: RunClient;
  let server: Server;
  let base: string;
  const workers: WorkerProcess[] = [];
  const effects = join(tmpdir(), `agentrx-bullmq-effects-${process.pid}-${Date.now()}.log`);

  const args = (queueName: string, extra: Partial<WorkerProcessArgs> = {}): WorkerProcessArgs =>
    workerArgs(servers, queueName, { concurrency: 10, latencyMs: 50, toolMs: 30, leaseMs: 1000, lockDuration: 1000, stalledInterval: 500, maxAttempts: 3, effects, ...extra });
  const sql = async <T>(text: string, values: unknown[] = []): Promise<T[]> => {
    if (servers.postgres === undefined) throw new Error("no PostgreSQL");
    return (await servers.postgres.pool().query({ text, values })).rows as T[];
  };
  const table = (name: string) => `"${servers.postgres?.schema}".${name}`;
  const lines = () => readFileSync(effects, "utf8").split("\n").filter(Boolean);

  beforeAll(async () => {
    servers.assertReachable();
    fixture = queueFixture(servers, "processes");
    writeFileSync(effects, "");
    server = createServer((req, res) => {
      const runId = /^\/runs\/([^/]+)\/events$/.exec(req.url ?? "")?.[1];
      if (runId) void serveRunEvents(client, decodeURIComponent(runId), req, res);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => stopWorkerProcess(worker)));
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await fixture?.close();
    await servers.cleanup();
    rmSync(effects, { force: true });
  });

  it("three workers run 200 runs; one killed mid-way: all finish right, no finished tool call runs again, a reconnecting client gets every event once", async () => {
    const queueName = fixture.next();
    client = fixture.client();
    workers.push(...(await Promise.all([0, 1, 2].map(() => startWorkerProcess(args(queueName))))));
    const [victim, ...survivors] = workers as [WorkerProcess, WorkerProcess, WorkerProcess];

    const runIds = await Promise.all(Array.from({ length: RUNS }, (_, n) => client.submit("double", { input: `double ${n}` }, { runId: `run-${n}` })));
    // Clients follow some runs over SSE, drop the connection after the first action, and reconnect.
    const followed = [40, 80, 120, 160, 199].map((n) => follow(`run-${n}`));

    // Kill a worker while it holds runs, once a good part of the runs have finished.
    const finished = async () => (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${table("agentrx_runs")} WHERE status = 'finished'`))[0]?.n ?? 0;
    const heldBy = async (pid: number) =>
      (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${table("agentrx_runs")} WHERE status = 'running' AND owner LIKE $1`, [`pid:${pid}:%`]))[0]?.n ?? 0;
    await until(async () => (await finished()) >= 50 && (await heldBy(victim.pid)) > 0, "50 finished runs and runs held by the victim", 30_000);
    victim.child.kill("SIGKILL");
    expect(await victim.exited).toBe("SIGKILL");
    const held = await sql<{ run_id: string; event_count: number }>(
      `SELECT run_id, event_count FROM ${table("agentrx_runs")} WHERE status = 'running' AND owner LIKE $1`,
      [`pid:${victim.pid}:%`],
    );
    // What is recorded now, then what the tools had done by now: a tool call started after this
    // point for a call whose result was recorded would be a repeat.
    const recordedSteps = new Set(
      (await sql<{ run_id: string }>(`SELECT run_id FROM ${table("agentrx_run_events")} WHERE type = 'step'`)).map((row) => Number(row.run_id.slice(4))),
    );
    const linesAtKill = lines().length;

    await until(async () => (await finished()) === RUNS, "every run to finish", 40_000);

    // Every run finished with the right answer.
    for (const [n, runId] of runIds.entries()) {
      const output = (await fixture.store.readEvents(runId)).find((event) => event.type === "output");
      expect(output?.data["output"], runId).toBe(`${n} doubled is ${n * 2}.`);
    }
    // The victim held runs when it died; those it had started recording were resumed elsewhere
    // (a second start event, `resumed: true`), the others started afresh.
    expect(held.length).toBeGreaterThan(0);
    for (const { run_id: runId, event_count: eventCount } of held) {
      const starts = (await fixture.store.readEvents(runId)).filter((event) => event.type === "start").map((event) => event.data["resumed"]);
      expect(starts, runId).toEqual(Number(eventCount) > 0 ? [false, true] : [false]);
    }
    // No tool call whose result was recorded before the kill started again after it.
    const after = lines().slice(linesAtKill);
    const repeats = after.filter((line) => line.startsWith("start ") && recordedSteps.has(Number(line.split(" ")[1])));
    expect(repeats).toEqual([]);
    // Each run's tool ran once, but for calls in flight on the victim, which ran once more elsewhere.
    const starts = new Map<number, string[]>();
    for (const line of lines()) {
      const [what, n, pid] = line.split(" ");
      if (what === "start") starts.set(Number(n), [...(starts.get(Number(n)) ?? []), pid as string]);
    }
    for (let n = 0; n < RUNS; n++) {
      const pids = starts.get(n) ?? [];
      const elsewhere = pids.filter((pid) => pid !== String(victim.pid));
      expect(elsewhere.length, `run-${n}`).toBeLessThanOrEqual(1);
      expect(pids.length - elsewhere.length, `run-${n}`).toBeLessThanOrEqual(1);
      expect(pids.length, `run-${n}`).toBeGreaterThanOrEqual(1);
    }
    expect(survivors.every((worker) => worker.child.exitCode === null)).toBe(true);

    for (const result of await Promise.all(followed)) {
      const { runId, messages } = result;
      const seqs = messages.filter((message) => message.hasId && message.event !== "token").map((message) => Number(message.lastEventId));
      const recorded = (await fixture.store.readEvents(runId)).filter((event) => event.type !== "model_call" && event.type !== "token");
      expect(seqs, runId).toEqual(recorded.map((event) => event.seq)); // each once, in order, nothing missing
      expect(JSON.parse(messages.at(-1)?.data ?? "{}"), runId).toMatchObject({ type: "output", output: `${runId.slice(4)} doubled is ${Number(runId.slice(4)) * 2}.` });
      const text = messages.filter((message) => message.event === "token").map((message) => (JSON.parse(message.data) as { text: string }).text).join("");
      expect(text.endsWith(`${runId.slice(4)} doubled is ${Number(runId.slice(4)) * 2}.`), runId).toBe(true);
      if (recorded.filter((event) => event.type === "start").length === 1) {
        expect(text, runId).toBe(`Doubling ${runId.slice(4)}.${runId.slice(4)} doubled is ${Number(runId.slice(4)) * 2}.`);
      }
    }
  }, 90_000);

  it("a run that kills every worker that takes it is failed after maxAttempts, with the reason recorded", async () => {
    const queueName = fixture.next();
    client = fixture.client();
    const runId = await client.submit("double", { input: "double 5" });
    // Three workers that each die (SIGKILL) when they run the run's tool: the first two take the
    // run and die; the third finds it handed over twice and fails it.
    const crashing = await Promise.all(
      [0, 1, 2].map(() => startWorkerProcess(args(queueName, { crash: true, maxAttempts: 2, lockDuration: 600, stalledInterval: 300, leaseMs: 500 }))),
    );
    workers.push(...crashing);
    await until(async () => (await fixture.store.getRun(runId))?.status === "failed", "the run to be failed", 30_000);
    const deaths = crashing.filter((worker) => worker.child.signalCode !== null).map((worker) => worker.child.signalCode);
    expect(deaths).toEqual(["SIGKILL", "SIGKILL"]);
    const run = await fixture.store.getRun(runId);
    expect(run).toMatchObject({ status: "failed" });
    expect(run?.error).toMatch(/stopped 2 times while running it .* maxAttempts \(2\)/);
    await expect(client.result(runId)).rejects.toThrow(/failed: The run's worker stopped 2 times/);
  }, 60_000);

  /** Follows a run over SSE, drops the connection after its first action, reconnects with the last event id. */
  async function follow(runId: string): Promise<{ runId: string; messages: SseMessage[] }> {
    const first = await readSse(`${base}/runs/${runId}/events`, { stopAfter: (message) => message.event === "action" });
    const second = await readSse(`${base}/runs/${runId}/events`, { lastEventId: first.lastEventId });
    return { runId, messages: [...first.messages, ...second.messages] };
  }
});
