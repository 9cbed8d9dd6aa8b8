// Test-only: one process of the kill-at-the-worst-moment test. It runs (or resumes) a recorded run
// of three turns of two tool calls; every tool call tells the parent, at its first line, that it
// started (the parent may SIGKILL this process right then), and every agent call and tool effect
// is appended to a file, one line each.
import { appendFileSync } from "node:fs";
import { type AgentStep, getIdempotencyKey } from "@agentrx/core";
import { AgentExecutor, type RunStore } from "@agentrx/executors";
import { type ChildStoreTarget, openChildStore, whenLeaseFree } from "./child-store";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

interface Args {
  /** `many`: bring every run of `ids` to its end at once: start the ones not recorded, resume the others. */
  mode: "run" | "resume" | "many";
  runId: string;
  effects: string;
  store: ChildStoreTarget;
  /** With `run`: start this many runs at once (`<runId>-0`, ...), so that their writes share commits. */
  runs?: number;
  /** With `many`: the runs. */
  ids?: string[];
}

const args = JSON.parse(process.argv[2] as string) as Args;
const effect = (line: string) => appendFileSync(args.effects, `${line}\n`);

const work = tool(
  async ({ job }: { job: string }, config) => {
    const key = getIdempotencyKey(config);
    effect(`start ${job} ${key}`);
    await new Promise<void>((resolve) => (process.send ? process.send({ started: job, key }, () => resolve()) : resolve()));
    await new Promise((resolve) => setTimeout(resolve, 30));
    effect(`done ${job}`);
    return `${job} ok`;
  },
  { name: "work", description: "Does a job.", schema: z.object({ job: z.string() }) },
);

// With many runs in one process, a run's input names it, and its jobs and agent calls carry that
// name (`<run>/t0-1`), so that every line of the effects file says whose it is.
const agent = RunnableLambda.from((input: { steps: AgentStep[]; input: string }) => {
  const turn = input.steps.length / 2;
  const prefix = input.input === "go" ? "" : `${input.input}/`;
  effect(input.input === "go" ? `agent ${turn}` : `agent ${turn} ${input.input}`);
  if (turn >= 3) return { returnValues: { output: input.steps.map((step) => step.observation).join(", ") }, log: "" };
  return [0, 1].map((i) => ({ tool: "work", toolInput: { job: `${prefix}t${turn}-${i}` }, log: "", toolCallId: `c${turn}-${i}` }));
});

const store: RunStore = openChildStore(args.store);
const executor = new AgentExecutor({ agent, tools: [work], store, leaseMs: 300 });

/** Resumes a run, waiting out the lease a killed process left behind. */
async function resumeWhenFree(runId: string): Promise<unknown> {
  return (await whenLeaseFree(() => executor.resume(runId))).output;
}

process.send?.({ ready: true });
if (args.mode === "many") {
  const outputs = await Promise.all(
    (args.ids ?? []).map(async (runId) => {
      const run = await store.getRun(runId);
      if (run === undefined) return (await executor.invoke({ input: runId }, { runId })).output;
      if (run.status !== "finished") return resumeWhenFree(runId);
      return (await store.readEvents(runId)).find((event) => event.data["type"] === "output")?.data["output"];
    }),
  );
  process.stdout.write(JSON.stringify(outputs));
  await store.close();
} else if (args.mode === "run" && args.runs !== undefined) {
  for (let r = 0; r < args.runs; r++) executor.stream({ input: `${args.runId}-${r}` }, { runId: `${args.runId}-${r}` }).subscribe();
} else if (args.mode === "run") {
  executor.stream({ input: "go" }, { runId: args.runId }).subscribe();
} else {
  process.stdout.write(JSON.stringify({ output: await resumeWhenFree(args.runId) }));
  await store.close();
}
