// Test-only (not exported by the package): a run with a call in doubt, for the trace page's and
// the notebook's tests.
import type { AgentAction, AgentStep } from "@agentrx/core";
import { AgentExecutor } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

/**
 * A run (`pay`) whose `charge` call was in flight when the run was cancelled, so it is in doubt,
 * and an executor over its store that pauses on such a call (`inDoubt: "interrupt"`).
 */
export async function inDoubtRun(): Promise<{ store: MemoryRunStore; executor: AgentExecutor }> {
  const store = new MemoryRunStore();
  let calls = 0;
  let release: (() => void) | undefined;
  const started = new Promise<void>((resolve) => (release = resolve));
  const charge = tool(
    async () => {
      calls++;
      release?.();
      await new Promise((resolve) => setTimeout(resolve, calls === 1 ? 10_000 : 1));
      return "charged";
    },
    { name: "charge", description: "Charges.", schema: z.object({ cents: z.number() }) },
  );
  const agent = RunnableLambda.from((input: { steps: AgentStep[] }) =>
    input.steps.length === 0 ? ({ tool: "charge", toolInput: { cents: 5 }, log: "", toolCallId: "pay-1" } as AgentAction) : { returnValues: { output: "paid" }, log: "" },
  );
  const executor = new AgentExecutor({ agent, tools: [charge], store, inDoubt: "interrupt" });
  const run = executor.invoke({ input: "pay" }, { runId: "pay" }).subscribe({ error: () => undefined });
  await started;
  run.unsubscribe(); // cancelled while charge runs: the call is in doubt
  await new Promise((resolve) => setTimeout(resolve, 20));
  return { store, executor };
}
