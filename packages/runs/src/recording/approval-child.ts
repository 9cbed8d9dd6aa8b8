// Test-only: the agent of the cross-process approval test, in a process of its own. `run` starts a
// run that pauses for approval; `approve` resumes it with the decisions given. Tool calls are
// appended to a file, one line each.
import { appendFileSync } from "node:fs";
import { AgentExecutor, type Decision } from "@agentrx/executors";
import { SqliteRunStore } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { z } from "zod";

const args = JSON.parse(process.argv[2] as string) as { mode: "run" | "approve"; runId: string; path: string; effects: string; decisions?: Record<string, Decision> };

const wire = withApproval(
  tool(
    async ({ amount }: { amount: number }) => {
      appendFileSync(args.effects, `wire ${amount} in ${process.pid}\n`);
      return `wired ${amount}`;
    },
    { name: "wire", description: "Wires money.", schema: z.object({ amount: z.number() }) },
  ),
);
const agent = RunnableLambda.from((input: { steps: { observation: string }[] }) => {
  appendFileSync(args.effects, `agent ${input.steps.length} in ${process.pid}\n`);
  return input.steps.length === 0
    ? { tool: "wire", toolInput: { amount: 100 }, log: "" }
    : { returnValues: { output: `done: ${input.steps[0]?.observation}` }, log: "" };
});
const store = new SqliteRunStore({ path: args.path });
const executor = new AgentExecutor({ agent, tools: [wire], store });
const result =
  args.mode === "run"
    ? await lastValueFrom(executor.invoke({ input: "wire 100" }, { runId: args.runId }))
    : await lastValueFrom(executor.resume(args.runId, { decisions: args.decisions ?? {} }));
process.stdout.write(JSON.stringify(result));
await store.close();
