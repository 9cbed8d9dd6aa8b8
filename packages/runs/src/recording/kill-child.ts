// Test-only: one process of the kill-at-the-worst-moment test. It runs (or resumes) a recorded run
// of three turns of two tool calls; every tool call tells the parent, at its first line, that it
// started (the parent may SIGKILL this process right then), and every agent call and tool effect
// is appended to a file, one line each.
import { appendFileSync } from "node:fs";
import { type AgentStep, getIdempotencyKey } from "@agentrx/core";
import { AgentExecutor, RunBusyError, type RunStore } from "@agentrx/executors";
import { type ChildStoreTarget, openChildStore } from "./child-store";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

interface Args {
  mode: "run" | "resume";
  runId: string;
  effects: string;
  store: ChildStoreTarget;
  /** With `run`: start this many runs at once (`<runId>-0`, ...), so that their writes share commits. */
  runs?: number;
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

const agent = RunnableLambda.from((input: { steps: AgentStep[] }) => {
  const turn = input.steps.length / 2;
  effect(`agent ${turn}`);
  if (turn >= 3) return { returnValues: { output: input.steps.map((step) => step.observation).join(", ") }, log: "" };
  return [0, 1].map((i) => ({ tool: "work", toolInput: { job: `t${turn}-${i}` }, log: "", toolCallId: `c${turn}-${i}` }));
});

const store: RunStore = openChildStore(args.store);
const executor = new AgentExecutor({ agent, tools: [work], store, leaseMs: 300 });

if (args.mode === "run" && args.runs !== undefined) {
  for (let r = 0; r < args.runs; r++) executor.stream({ input: "go" }, { runId: `${args.runId}-${r}` }).subscribe();
} else if (args.mode === "run") {
  executor.stream({ input: "go" }, { runId: args.runId }).subscribe();
} else {
  for (;;) {
    try {
      const result = await executor.resume(args.runId);
      process.stdout.write(JSON.stringify({ output: result.output }));
      break;
    } catch (error) {
      if (!RunBusyError.isInstance(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50)); // the killed process's lease has not expired yet
    }
  }
  await store.close();
}
