// Test-only: the child process of cross-process-cancel.test.ts. Runs one agent in a SQLite store
// (argv: the file, the run id): its tool waits until the run's signal aborts. Prints `started` once
// the tool runs, then one JSON line saying how the run ended.
import { AgentExecutor } from "@agentrx/executors";
import { SqliteRunStore } from "@agentrx/runs";
import type { AgentAction, AgentFinish, AgentInput } from "@agentrx/core";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

const [path, runId] = process.argv.slice(2) as [string, string];
const store = new SqliteRunStore({ path });
let aborted = false;
const wait = tool(
  async (_input: { q: string }, config) => {
    process.stdout.write("started\n");
    await new Promise<void>((_, reject) => {
      const timer = setTimeout(() => reject(new Error("never cancelled")), 40_000);
      config?.signal?.addEventListener("abort", () => {
        aborted = true;
        clearTimeout(timer);
        reject(new Error("aborted"));
      }, { once: true });
    });
    return "done";
  },
  { name: "wait", description: "Waits.", schema: z.object({ q: z.string() }) },
);
const agent = RunnableLambda.from(async (input: AgentInput): Promise<AgentAction[] | AgentFinish> =>
  input.steps.length === 0 ? [{ tool: "wait", toolInput: { q: "x" }, log: "", toolCallId: "w1", messageLog: [] } as unknown as AgentAction] : { returnValues: { output: "finished" }, log: "" },
);
// A short lease: a quiet run renews it (and so meets a cancel) every third of it.
const executor = new AgentExecutor({ agent, tools: [wait], store, leaseMs: 300 });
const report = (outcome: Record<string, unknown>) => {
  process.stdout.write(`${JSON.stringify({ ...outcome, aborted })}\n`);
  void store.close().finally(() => process.exit(0));
};
executor.stream({ input: "wait" }, { runId }).subscribe({
  error: (error: unknown) => report({ error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }),
  complete: () => report({ completed: true }),
});
