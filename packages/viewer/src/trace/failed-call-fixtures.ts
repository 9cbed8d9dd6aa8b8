// Test-only (not exported by the package): a run whose tool calls failed in each way the executor
// marks a step `failed` (`metadata.failed`), next to a call that succeeded and one a person
// rejected, for the trace page's and the notebook's tests.
import type { AgentAction, AgentStep } from "@agentrx/core";
import { AgentExecutor } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

/** The observation the fixture's `handleToolRuntimeErrors` makes of a thrown error (not the default wording). */
export const APOLOGY = "Sorry, the lookup is down: disk on fire";

/**
 * An executor over `store` whose agent calls, in its first turn, `lookup` (which throws: its
 * observation is {@link APOLOGY}, from a custom `handleToolRuntimeErrors`), `strict` with an input
 * its schema refuses, `nope` (no such tool) and `ok` (which succeeds); in its second turn
 * `guarded` (which waits for approval); then it answers.
 */
export function failingExecutor(store: MemoryRunStore = new MemoryRunStore()): AgentExecutor {
  const call = (name: string, toolInput: Record<string, unknown>, id: string): AgentAction => ({ tool: name, toolInput, log: "", toolCallId: id }) as AgentAction;
  const agent = RunnableLambda.from((input: { steps: AgentStep[] }) => {
    if (input.steps.length === 0) return [call("lookup", { q: "x" }, "c-lookup"), call("strict", { n: "not a number" }, "c-strict"), call("nope", {}, "c-nope"), call("ok", {}, "c-ok")];
    if (input.steps.length === 4) return [call("guarded", {}, "c-guarded")];
    return { returnValues: { output: "done" }, log: "" };
  });
  const lookup = tool(
    async () => {
      throw new Error("disk on fire");
    },
    { name: "lookup", description: "Looks up.", schema: z.object({ q: z.string() }) },
  );
  const strict = tool(async ({ n }) => `n is ${n}`, { name: "strict", description: "Takes a number.", schema: z.object({ n: z.number() }) });
  const ok = tool(async () => "fine", { name: "ok", description: "Works.", schema: z.object({}) });
  const guarded = withApproval(tool(async () => "ran", { name: "guarded", description: "Needs a person.", schema: z.object({}) }));
  return new AgentExecutor({ agent, tools: [lookup, strict, ok, guarded], store, handleToolRuntimeErrors: (error) => `Sorry, the lookup is down: ${error.message}` });
}

/** Records the run `failing` (see {@link failingExecutor}): `guarded` is rejected, then the run finishes. */
export async function recordFailingRun(store: MemoryRunStore = new MemoryRunStore()): Promise<MemoryRunStore> {
  const executor = failingExecutor(store);
  const paused = await executor.invoke({ input: "go" }, { runId: "failing" });
  const pause = paused.interrupts?.[0];
  if (pause === undefined) throw new Error("failingExecutor: the run did not pause for approval");
  await executor.resume("failing", { decisions: { [pause.id]: { type: "reject", message: "Not today." } } });
  return store;
}
