// Test-only: the child process of another-process.ts. Opens the store and either does what the
// conformance suite's `inAnotherProcess` asks (read the run, claim it, write one event that
// finishes it), creates one run, or appends messages to a thread; prints a JSON report.
import type { RunStore } from "@agentrx/executors";
import { PostgresRunStore } from "../postgres/postgres-run-store";
import { SqliteRunStore } from "../sqlite/sqlite-run-store";
import type { AnotherProcessJob } from "./another-process";

const job = JSON.parse(process.argv[2] ?? "{}") as AnotherProcessJob;
const { target } = job;
const store: RunStore =
  target.kind === "sqlite" ? new SqliteRunStore({ path: target.path }) : new PostgresRunStore({ connectionString: target.connectionString, schema: target.schema });
try {
  if (job.mode === "appendThread") {
    const seqs: number[][] = [];
    for (let append = 0; append < job.appends; append++) {
      const messages = Array.from({ length: job.size }, (_, index) => ({ message: { pid: process.pid, append, index }, tokens: index, at: Date.now() }));
      seqs.push(await store.appendThreadMessages(job.threadId, messages));
    }
    process.stdout.write(JSON.stringify({ pid: process.pid, seqs }));
  } else if (job.mode === "create") {
    const runId = `process-${process.pid}`;
    await store.createRun({ runId, inputs: { pid: process.pid }, status: "queued", at: Date.now() });
    process.stdout.write(JSON.stringify({ pid: process.pid, runId }));
  } else {
    const { runId, owner, leaseMs, at } = job.request;
    const run = await store.getRun(runId);
    const events = await store.readEvents(runId);
    await store.claimRun(runId, { owner, leaseMs, at });
    await store.write(runId, {
      owner,
      leaseMs,
      events: [{ seq: (run?.eventCount ?? 0) + 1, type: "note", at, data: { type: "note", at, pid: process.pid } }],
      update: { status: "finished", stopReason: "finish", release: true },
      at,
    });
    process.stdout.write(JSON.stringify({ pid: process.pid, run, events }));
  }
} finally {
  await store.close();
}
