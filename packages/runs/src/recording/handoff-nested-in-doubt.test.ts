// Decisions on a handoff's nested pause, recorded (`recordDecisions`), outlive a caller whose
// process stopped before the handoff resumed the other agent's run: the next resume hands them on,
// it neither asks again nor takes the handoff call for one in doubt (see docs/approval.md).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentStep } from "@agentrx/core";
import { AgentExecutor, type RunStore, type RunWrite, handoff, recordDecisions } from "@agentrx/executors";
import { withApproval, withInDoubt } from "@agentrx/tools";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SqliteRunStore } from "../sqlite/index";
import { delegate } from "./durable-test-fixtures";

const dir = mkdtempSync(join(tmpdir(), "agentrx-nested-in-doubt-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** One "process": the billing agent (its refunds need approval) and the triage agent that hands off to it, on `store`. */
function startProcess(store: RunStore, refunded: number[], inDoubt: "retry" | "interrupt") {
  const refund = tool(
    async ({ amount }: { amount: number }) => {
      refunded.push(amount);
      return `refunded ${amount}`;
    },
    { name: "refund", description: "Refunds an amount.", schema: z.object({ amount: z.number() }) },
  );
  const billingAgent = RunnableLambda.from((input: { steps: AgentStep[] }) =>
    input.steps.length === 0 ? { tool: "refund", toolInput: { amount: 10 }, log: "", toolCallId: "r1" } : { returnValues: { output: `Billing: ${input.steps[0]?.observation}` }, log: "" },
  );
  const billing = new AgentExecutor({ agent: billingAgent, tools: [withApproval(refund)], store, leaseMs: 100 });
  const toBilling = withInDoubt(handoff(billing, { name: "transfer_to_billing", description: "Refunds." }), inDoubt);
  const triageAgent = RunnableLambda.from((input: { steps: AgentStep[] }) =>
    input.steps.length === 0 ? { tool: "transfer_to_billing", toolInput: {}, log: "", toolCallId: "h1" } : { returnValues: { output: "the caller's model was asked again" }, log: "" },
  );
  const triage = new AgentExecutor({ agent: triageAgent, tools: [toBilling], store, leaseMs: 100 });
  return { triage, tools: [toBilling] };
}

describe("handoff: recorded decisions on a nested pause, the caller's process stopped before the handoff ran", () => {
  for (const [how, inDoubt] of [
    ["recordDecisions", "retry"],
    ["recordDecisions", "interrupt"],
    ["resume", "retry"],
    ["resume", "interrupt"],
  ] as const) {
    it(`decided by ${how}, withInDoubt "${inDoubt}": the next resume hands the decisions on; the other agent's call runs once, and nobody is asked again`, async () => {
      const path = join(dir, `runs-${++files}.db`);
      const refunded: number[] = [];
      const api = new SqliteRunStore({ path });
      const first = startProcess(api, refunded, inDoubt);
      expect((await first.triage.invoke({ input: "Refund me" }, { runId: "caller" })).stopReason).toBe("interrupted");
      const decisions = { "call-0-0/call-0-0": "approve" } as const;
      if (how === "recordDecisions") await recordDecisions(api, "caller", decisions, { tools: first.tools });
      await api.close();

      // The worker's process stops once its resumed segment's start (and, resumed with decisions,
      // those) is recorded, before any tool runs.
      const inner = new SqliteRunStore({ path });
      const dying = delegate(inner);
      const control = { dead: false };
      const last = how === "recordDecisions" ? "start" : "decisions";
      dying.write = async (runId: string, write: RunWrite) => {
        if (control.dead) throw new Error("the process stopped");
        await inner.write(runId, write);
        if (runId === "caller" && write.events.some((event) => event.data["type"] === last)) {
          control.dead = true;
          throw new Error("the process stopped");
        }
      };
      const worker = startProcess(dying, refunded, inDoubt).triage;
      await expect(how === "recordDecisions" ? worker.resume("caller") : worker.resume("caller", { decisions })).rejects.toThrow(/the process stopped/);
      expect(refunded).toEqual([]);
      expect((await inner.getRun("handoff:caller:0:h1"))?.status).toBe("interrupted");
      await inner.close();
      await new Promise((resolve) => setTimeout(resolve, 150)); // the caller's lease lapses

      const store = new SqliteRunStore({ path });
      const result = await startProcess(store, refunded, inDoubt).triage.resume("caller");
      expect(result).toMatchObject({ stopReason: "return_direct", output: "Billing: refunded 10" });
      expect(result.interrupts).toBeUndefined();
      expect(refunded).toEqual([10]);
      expect((await store.getRun("handoff:caller:0:h1"))?.status).toBe("finished");
      await store.close();
    });
  }
});
