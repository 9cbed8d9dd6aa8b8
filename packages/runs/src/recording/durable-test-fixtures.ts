// Fixtures of the durability tests: an agent that asks for a turn of tools per step, tools that
// check the record at their first line, and stores that are slow, stuck or taken over.
import { type AgentAction, type AgentStep, getIdempotencyKey } from "@agentrx/core";
import { type RunStore, type RunWrite, RunLeaseLostError } from "@agentrx/executors";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

/** What the fixture's tools and agent saw. */
export interface Observed {
  /** Every tool start, as `tool:input`, in order. */
  started: string[];
  /** The idempotency key of every tool start. */
  keys: string[];
  /** Write-ahead violations: a tool or model call that started before its intent was in the store. */
  violations: string[];
  /** How many steps the agent saw at each call. */
  agentCalls: number[];
}

/**
 * An agent that asks for `turns` turns of `width` parallel `work` calls, then answers with the
 * observations it saw; and a `work` tool that checks, at its first line, that its action is
 * recorded (when `store` is given), then waits `toolMs`.
 */
export function durableFixture(options: { turns?: number; width?: number; toolMs?: number; store?: RunStore; runId?: string } = {}) {
  const { turns = 2, width = 2, toolMs = 5, store, runId = "run" } = options;
  const seen: Observed = { started: [], keys: [], violations: [], agentCalls: [] };
  const work = tool(
    async ({ job }: { job: string }, config) => {
      seen.started.push(`work:${job}`);
      seen.keys.push(getIdempotencyKey(config) ?? "none");
      if (store) {
        const events = await store.readEvents(runId);
        const recorded = events.some((event) => event.data["type"] === "action" && JSON.stringify(event.data["action"]).includes(`"${job}"`));
        if (!recorded) seen.violations.push(`tool ${job} started before its action was recorded`);
      }
      await new Promise((resolve) => setTimeout(resolve, toolMs));
      return `done ${job}`;
    },
    { name: "work", description: "Does a job.", schema: z.object({ job: z.string() }) },
  );
  const agent = RunnableLambda.from(async (input: { steps: AgentStep[] }) => {
    seen.agentCalls.push(input.steps.length);
    if (store && input.steps.length > 0) {
      const events = await store.readEvents(runId);
      const recordedSteps = events.filter((event) => event.data["type"] === "step").length;
      if (recordedSteps < input.steps.length) seen.violations.push(`the agent was called with ${input.steps.length} steps, ${recordedSteps} recorded`);
    }
    const turn = input.steps.length / width;
    if (turn >= turns) return { returnValues: { output: input.steps.map((step) => step.observation).join(", ") }, log: "" };
    return Array.from({ length: width }, (_, i): AgentAction & { toolCallId: string } => ({
      tool: "work",
      toolInput: { job: `t${turn}-${i}` },
      log: "",
      toolCallId: `call-${turn}-${i}`,
    }));
  });
  return { agent, tools: [work], seen };
}

/** A store that forwards to `inner`, with each write delayed by `delayMs`, or stuck from the `stuckAfter`-th write on. */
export function slowStore(inner: RunStore, behaviour: { delayMs?: number; stuckAfter?: number; leaseLostAfter?: number }): RunStore & { writes: number } {
  let writes = 0;
  const wrapped = delegate(inner) as RunStore & { writes: number };
  Object.defineProperty(wrapped, "writes", { get: () => writes });
  wrapped.write = async (runId: string, write: RunWrite) => {
    writes++;
    if (behaviour.stuckAfter !== undefined && writes > behaviour.stuckAfter) return new Promise<void>(() => undefined);
    if (behaviour.leaseLostAfter !== undefined && writes > behaviour.leaseLostAfter) throw new RunLeaseLostError({ runId, owner: write.owner, epoch: write.epoch ?? 0 });
    if (behaviour.delayMs) await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
    return inner.write(runId, write);
  };
  return wrapped;
}

/** A store whose every method forwards to `inner` (so single methods can be replaced). */
export function delegate(inner: RunStore): RunStore {
  const methods = [
    "createRun", "claimRun", "write", "getRun", "readEvents", "listRuns", "deleteRun", "pruneRuns",
    "appendThreadMessages", "readThreadMessages", "clearThread", "close",
  ] as const;
  const out = {} as Record<string, unknown>;
  for (const name of methods) out[name] = (inner[name] as (...args: unknown[]) => unknown).bind(inner);
  return out as unknown as RunStore;
}
