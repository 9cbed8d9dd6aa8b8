// Test-only: one of several processes that resume the same runs at once (the fencing test). Each
// agent call may stall the whole process (a synchronous wait) past the run's lease, so another
// process takes the run over while this one still believes it holds it. Every tool start is
// appended to a file: a tool call that starts twice is a fencing failure.
import { appendFileSync } from "node:fs";
import type { AgentStep } from "@agentrx/core";
import { AgentExecutor, type RunStore } from "@agentrx/executors";
import { type ChildStoreTarget, openChildStore } from "./child-store";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

interface Args {
  runIds: string[];
  effects: string;
  stallMs: number;
  store: ChildStoreTarget;
}

const args = JSON.parse(process.argv[2] as string) as Args;
const sleeper = new Int32Array(new SharedArrayBuffer(4));
let agentCalls = 0;

const work = tool(
  async ({ run, job }: { run: string; job: string }) => {
    appendFileSync(args.effects, `start ${run} ${job} ${process.pid}\n`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    return `${job} ok`;
  },
  { name: "work", description: "Does a job.", schema: z.object({ run: z.string(), job: z.string() }) },
);

const agent = RunnableLambda.from((input: { run: string; steps: AgentStep[] }) => {
  // Every third agent call stalls the process past its lease (a long GC, a frozen VM).
  if (++agentCalls % 3 === 0) Atomics.wait(sleeper, 0, 0, args.stallMs);
  const turn = input.steps.length / 2;
  if (turn >= 2) return { returnValues: { output: input.steps.map((step) => step.observation).join(", ") }, log: "" };
  return [0, 1].map((i) => ({ tool: "work", toolInput: { run: input.run, job: `t${turn}-${i}` }, log: "" }));
});

const store: RunStore = openChildStore(args.store);
const executor = new AgentExecutor({ agent, tools: [work], store, leaseMs: 500 });

const deadline = Date.now() + 60_000;
for (;;) {
  const open = [];
  for (const runId of args.runIds) if ((await store.getRun(runId))?.status !== "finished") open.push(runId);
  if (open.length === 0 || Date.now() > deadline) break;
  for (const runId of open.sort(() => Math.random() - 0.5)) {
    try {
      await executor.resume(runId);
    } catch {
      // busy (another process holds it), or this process lost it (fenced off): try another
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
}
await store.close();
