// Test-only: one process of the approval kill test. `run` starts a run whose turn asks for
// [lookup, refund] (refund needs approval): lookup tells the parent that it started (the parent
// SIGKILLs this process then, before the pause is recorded). `resume` resumes the run without
// decisions (waiting out the killed process's lease); `approve` resumes it with the decisions
// given. Every tool effect is appended to a file, one line each.
import { appendFileSync } from "node:fs";
import type { AgentAction, AgentStep } from "@agentrx/core";
import { AgentExecutor, type Decision } from "@agentrx/executors";
import { SqliteRunStore } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { whenLeaseFree } from "./child-store";

const args = JSON.parse(process.argv[2] as string) as { mode: "run" | "resume" | "approve"; runId: string; path: string; effects: string; decisions?: Record<string, Decision> };
const effect = (line: string) => appendFileSync(args.effects, `${line}\n`);

const lookup = tool(
  async () => {
    effect("lookup");
    if (args.mode === "run") {
      process.send?.({ started: "lookup" });
      await new Promise(() => undefined); // killed here
    }
    return "found";
  },
  { name: "lookup", description: "Looks the order up.", schema: z.object({}) },
);
const refund = withApproval(
  tool(
    async ({ amount }: { amount: number }) => {
      effect(`refund ${amount}`);
      return `refunded ${amount}`;
    },
    { name: "refund", description: "Refunds money.", schema: z.object({ amount: z.number() }) },
  ),
);
const agent = RunnableLambda.from((input: { steps: AgentStep[] }) =>
  input.steps.length === 0
    ? [{ tool: "lookup", toolInput: {}, log: "", toolCallId: "l" } as AgentAction, { tool: "refund", toolInput: { amount: 900 }, log: "", toolCallId: "r" } as AgentAction]
    : { returnValues: { output: `done: ${input.steps.map((step) => step.observation).join(", ")}` }, log: "" },
);
const store = new SqliteRunStore({ path: args.path });
const executor = new AgentExecutor({ agent, tools: [lookup, refund], store, leaseMs: 300 });

if (args.mode === "run") {
  executor.stream({ input: "refund" }, { runId: args.runId }).subscribe();
} else {
  const result = await whenLeaseFree(() => executor.resume(args.runId, args.mode === "approve" ? { decisions: args.decisions ?? {} } : {}));
  process.stdout.write(JSON.stringify(result));
  await store.close();
}
