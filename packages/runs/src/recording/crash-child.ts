// Test-only: one process of the crash test. `run` mode starts a recorded run whose first turn asks
// for three tool calls (two quick, one slow) and is killed by the test while the slow one runs;
// `resume` mode resumes it in a fresh process. Side effects are appended to a file, one line each.
import { appendFileSync } from "node:fs";
import { AgentExecutor, type RunStore } from "@agentrx/executors";
import { type ChildStoreTarget, openChildStore, whenLeaseFree } from "./child-store";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { z } from "zod";

interface Args {
  mode: "run" | "resume";
  runId: string;
  effects: string;
  store: ChildStoreTarget;
}

const args = JSON.parse(process.argv[2] as string) as Args;
const effect = (line: string) => appendFileSync(args.effects, `${line}\n`);

const work = tool(
  async ({ name, ms }: { name: string; ms: number }) => {
    effect(`start ${name}`);
    await new Promise((resolve) => setTimeout(resolve, ms));
    effect(`done ${name}`);
    return `${name} ok`;
  },
  { name: "work", description: "Does some work.", schema: z.object({ name: z.string(), ms: z.number() }) },
);

const agent = RunnableLambda.from((input: { steps: { observation: string }[] }) => {
  effect(`agent ${input.steps.length}`);
  if (input.steps.length === 0) {
    return [
      { tool: "work", toolInput: { name: "a", ms: 10 }, log: "a" },
      { tool: "work", toolInput: { name: "b", ms: 50 }, log: "b" },
      { tool: "work", toolInput: { name: "c", ms: 1500 }, log: "c" },
    ];
  }
  return { returnValues: { output: input.steps.map((step) => step.observation).join(", ") }, log: "" };
});

const store: RunStore = openChildStore(args.store);
const executor = new AgentExecutor({ agent, tools: [work], store, leaseMs: 400 });

if (args.mode === "run") {
  executor.stream({ input: "go" }, { runId: args.runId }).subscribe();
} else {
  const output = await whenLeaseFree(() => lastValueFrom(executor.resume(args.runId)), 100);
  process.stdout.write(JSON.stringify(output));
  await store.close();
}
