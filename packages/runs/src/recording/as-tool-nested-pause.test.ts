// An `asTool` call whose specialist has a store records its sub-run as `as-tool:<the call's key>`:
// a caller resumed after it stopped in the middle of the call takes that run's answer (or resumes
// it) instead of starting the specialist again, and a pause inside is answered on the caller, from
// another "process" too: new executors over new store instances on the same SQLite file (see
// docs/executor-options.md, "asTool()").
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentStep } from "@agentrx/core";
import { AgentExecutor, type RunStore, type RunWrite } from "@agentrx/executors";
import { withApproval } from "@agentrx/tools";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryRunStore } from "../memory/index";
import { SqliteRunStore } from "../sqlite/index";
import { delegate } from "./durable-test-fixtures";

const dir = mkdtempSync(join(tmpdir(), "agentrx-as-tool-pause-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** What the specialist did, across "processes". */
interface Seen {
  refunded: number[];
  /** How many times the specialist's agent was asked (a restarted sub-run asks it again). */
  specialistCalls: number;
}

/**
 * One "process": a store instance on `path`, the billing specialist (which refunds 10, with
 * approval when `approval`) and the supervisor that calls it as a tool, then answers with what it said.
 */
function startProcess(path: string, seen: Seen, { caller, approval = true }: { caller?: RunStore; approval?: boolean } = {}) {
  const store = new SqliteRunStore({ path });
  const refund = tool(
    async ({ amount }: { amount: number }) => {
      seen.refunded.push(amount);
      return `refunded ${amount}`;
    },
    { name: "refund", description: "Refunds an amount.", schema: z.object({ amount: z.number() }) },
  );
  const billingAgent = RunnableLambda.from((input: { steps: AgentStep[] }) => {
    seen.specialistCalls++;
    return input.steps.length === 0 ? { tool: "refund", toolInput: { amount: 10 }, log: "", toolCallId: "r1" } : { returnValues: { output: `Billing: ${input.steps[0]?.observation}` }, log: "" };
  });
  const billing = new AgentExecutor({ agent: billingAgent, tools: [approval ? withApproval(refund) : refund], store, leaseMs: 100 });
  const billingTool = billing.asTool({ name: "billing", description: "Refunds." });
  const supervisorAgent = RunnableLambda.from((input: { steps: AgentStep[] }) =>
    input.steps.length === 0 ? { tool: "billing", toolInput: { input: "refund order 42" }, log: "", toolCallId: "b1" } : { returnValues: { output: `Supervisor: ${input.steps[0]?.observation}` }, log: "" },
  );
  const supervisor = new AgentExecutor({ agent: supervisorAgent, tools: [billingTool], store: caller ?? store, leaseMs: 100 });
  return { store, supervisor };
}

/** A caller's store that refuses the write of the caller's own step while `control.dying`: its process "stops" there. */
function dyingStore(control: { dying: boolean }): RunStore {
  const inner = new MemoryRunStore();
  const store = delegate(inner);
  store.write = async (runId: string, write: RunWrite) => {
    if (control.dying && write.events.some((event) => event.data["type"] === "step" && event.data["subRun"] === undefined)) throw new Error("the process stopped");
    return inner.write(runId, write);
  };
  return store;
}

describe("asTool: a recorded sub-run across processes", () => {
  it("a pause inside is answered on the caller by new instances: the specialist's call runs once", async () => {
    const path = join(dir, `runs-${++files}.db`);
    const seen: Seen = { refunded: [], specialistCalls: 0 };
    const first = startProcess(path, seen);
    const paused = await first.supervisor.invoke({ input: "Refund me" }, { runId: "caller" });
    expect(paused.stopReason).toBe("interrupted");
    expect(paused.interrupts).toEqual([
      {
        id: "call-0-0/call-0-0",
        toolCallId: "r1",
        tool: "refund",
        toolInput: { amount: 10 },
        iteration: 0,
        index: 0,
        reason: "approval",
        subRun: { tool: "billing", runId: "as-tool:caller:0:b1", interruptId: "call-0-0" },
      },
    ]);
    await first.store.close();

    const second = startProcess(path, seen);
    const result = await second.supervisor.resume("caller", { decisions: { "call-0-0/call-0-0": "approve" } });
    expect(result).toMatchObject({ stopReason: "finish", output: "Supervisor: Billing: refunded 10" });
    expect(seen.refunded).toEqual([10]);
    expect(seen.specialistCalls).toBe(2); // its first turn, then its answer: never started again
    expect((await second.store.getRun("as-tool:caller:0:b1"))?.status).toBe("finished");
    await second.store.close();
  });

  it("a caller that stopped after the specialist answered an approved call retries it without the decisions, and takes that answer", async () => {
    const path = join(dir, `runs-${++files}.db`);
    const seen: Seen = { refunded: [], specialistCalls: 0 };
    const control = { dying: true };
    const live = startProcess(path, seen, { caller: dyingStore(control) });
    await live.supervisor.invoke({ input: "Refund me" }, { runId: "caller" });
    await expect(live.supervisor.resume("caller", { decisions: { "call-0-0/call-0-0": "approve" } })).rejects.toThrow(/the process stopped/);
    expect(seen.refunded).toEqual([10]);
    expect((await live.store.getRun("as-tool:caller:0:b1"))?.status).toBe("finished");
    control.dying = false;
    await new Promise((resolve) => setTimeout(resolve, 150)); // the caller's lease lapses

    const result = await live.supervisor.resume("caller");
    expect(result).toMatchObject({ stopReason: "finish", output: "Supervisor: Billing: refunded 10" });
    expect(seen.refunded).toEqual([10]);
    await live.store.close();
  });

  it("a caller that stopped in the middle of a call (no approval) retries it and takes the specialist's recorded answer instead of starting it again", async () => {
    const path = join(dir, `runs-${++files}.db`);
    const seen: Seen = { refunded: [], specialistCalls: 0 };
    const control = { dying: true };
    const live = startProcess(path, seen, { caller: dyingStore(control), approval: false });
    await expect(live.supervisor.invoke({ input: "Refund me" }, { runId: "caller" })).rejects.toThrow(/the process stopped/);
    expect(seen).toEqual({ refunded: [10], specialistCalls: 2 });
    control.dying = false;
    await new Promise((resolve) => setTimeout(resolve, 150)); // the caller's lease lapses

    const result = await live.supervisor.resume("caller");
    expect(result).toMatchObject({ stopReason: "finish", output: "Supervisor: Billing: refunded 10" });
    expect(seen).toEqual({ refunded: [10], specialistCalls: 2 });
    await live.store.close();
  });

  it("decisions for the specialist's run that failed meanwhile: it is not resumed, its call never runs, and the call says so", async () => {
    const path = join(dir, `runs-${++files}.db`);
    const seen: Seen = { refunded: [], specialistCalls: 0 };
    const here = startProcess(path, seen);
    await here.supervisor.invoke({ input: "Refund me" }, { runId: "caller" });
    // Another process took it and failed it (a claim, then a write that ends it as failed).
    const claimed = await here.store.claimRun("as-tool:caller:0:b1", { owner: "elsewhere", leaseMs: 1_000, at: Date.now() });
    await here.store.write("as-tool:caller:0:b1", { owner: "elsewhere", leaseMs: 1_000, at: Date.now(), events: [], update: { status: "failed", error: "it broke", release: true }, ...(claimed.epoch === undefined ? {} : { epoch: claimed.epoch }) });
    const result = await here.supervisor.resume("caller", { decisions: { "call-0-0/call-0-0": "approve" } });
    expect(result.output).toMatch(/^Supervisor: Tool "billing" failed with error: asTool "billing": the other agent's run "as-tool:caller:0:b1" is failed, not paused any more, so the decisions given on its pause were not carried out and it was not resumed/);
    expect(seen).toEqual({ refunded: [], specialistCalls: 1 });
    expect((await here.store.getRun("as-tool:caller:0:b1"))?.status).toBe("failed");
    await here.store.close();
  });
});

