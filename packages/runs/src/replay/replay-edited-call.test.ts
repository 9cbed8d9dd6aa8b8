// replayRun of a run in which a person edited a tool call before it ran: the replayed step carries
// the input the call ran with, as the live step did (docs/approval.md, "Choices").
import type { AgentAction, AgentStep } from "@agentrx/core";
import { AgentExecutor, type AgentStreamEvent, type StepEvent } from "@agentrx/executors";
import { withApproval } from "@agentrx/tools";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryRunStore } from "../memory/index";
import { diffRuns, readRunRecord } from "../diff/index";
import { replayRun } from "./replay-run";
import { collect } from "./replay-test-fixtures";

function refundExecutor(store: MemoryRunStore) {
  const refund = withApproval(
    tool(async ({ amount }: { amount: number }) => `refunded ${amount}`, { name: "refund", description: "Refunds.", schema: z.object({ amount: z.number() }) }),
  );
  const agent = RunnableLambda.from((input: { steps: AgentStep[] }) =>
    input.steps.length === 0
      ? ([
          { tool: "refund", toolInput: { amount: 900 }, log: "", toolCallId: "r0" },
          { tool: "refund", toolInput: { amount: 5 }, log: "", toolCallId: "r1" },
        ] as (AgentAction & { toolCallId: string })[])
      : { returnValues: { output: input.steps.map((step) => String(step.observation)).join("; ") }, log: "" },
  );
  return new AgentExecutor({ agent, tools: [refund], store, returnIntermediateSteps: true });
}

const stepInputs = (events: AgentStreamEvent[]) => events.filter((event): event is StepEvent => event.type === "step").map((event) => event.step.action.toolInput);

describe("replayRun of a run with an edited call", () => {
  it("replays the step and the output's intermediate steps with the edited input, as the live run emitted them", async () => {
    const store = new MemoryRunStore();
    const executor = refundExecutor(store);
    await executor.invoke({ input: "refund" }, { runId: "src" });
    const live = await collect(executor.resume("src", { decisions: { "call-0-0": { type: "edit", toolInput: { amount: 30 } }, "call-0-1": "approve" } }));
    expect(stepInputs(live)).toEqual([{ amount: 30 }, { amount: 5 }]);

    const replayed = await collect(replayRun(store, "src"));
    expect(stepInputs(replayed)).toEqual(stepInputs(live));
    const output = replayed.at(-1);
    expect(output?.type === "output" && output.intermediateSteps?.map((step) => step.action.toolInput)).toEqual([{ amount: 30 }, { amount: 5 }]);
    // The action events still show what the model asked for.
    expect(replayed.filter((event) => event.type === "action").map((event) => event.type === "action" && event.action.toolInput)).toEqual([{ amount: 900 }, { amount: 5 }]);
  });

  it("agrees with its fork on the copied turn in diffRuns", async () => {
    const store = new MemoryRunStore();
    const executor = refundExecutor(store);
    await executor.invoke({ input: "refund" }, { runId: "src" });
    await executor.resume("src", { decisions: { "call-0-0": { type: "edit", toolInput: { amount: 30 } }, "call-0-1": "approve" } });
    await executor.fork("src", { at: 1, edit: { observation: "refund failed" }, runId: "fork" });
    const diff = diffRuns(await readRunRecord(store, "src"), await readRunRecord(store, "fork"));
    expect(diff.firstDivergence?.description).toBe("Iteration 0: tool call 1 (refund) returned a different observation.");
  });
});
