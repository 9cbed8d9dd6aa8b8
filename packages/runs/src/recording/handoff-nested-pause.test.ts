// A handoff whose other agent paused pauses its caller; the pause is answered from another
// "process": new executors over new store instances on the same SQLite file, restored from the
// record alone (see docs/agent-types.md, "Pauses inside a handoff").
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentStep } from "@agentrx/core";
import { AgentExecutor, type RunStore, type RunWrite, handoff, recordDecisions } from "@agentrx/executors";
import { withApproval } from "@agentrx/tools";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryRunStore } from "../memory/index";
import { SqliteRunStore } from "../sqlite/index";
import { delegate } from "./durable-test-fixtures";

const dir = mkdtempSync(join(tmpdir(), "agentrx-nested-pause-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/**
 * One "process": a store instance on `path`, the billing agent (its refunds need approval) and the
 * triage agent that hands off to it. The caller's lease is 2 s unless a test needs it to lapse
 * quickly: a shorter one fails the caller itself when a loaded machine delays its heartbeat.
 */
function startProcess(path: string, refunded: number[], stores: { caller?: RunStore; billing?: RunStore } = {}, billingLeaseMs = 100, callerLeaseMs = 2_000) {
  const store = new SqliteRunStore({ path });
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
  const billing = new AgentExecutor({ agent: billingAgent, tools: [withApproval(refund)], store: stores.billing ?? store, leaseMs: billingLeaseMs });
  const toBilling = handoff(billing, { name: "transfer_to_billing", description: "Refunds." });
  const triageAgent = RunnableLambda.from((input: { steps: AgentStep[] }) =>
    input.steps.length === 0 ? { tool: "transfer_to_billing", toolInput: {}, log: "", toolCallId: "h1" } : { returnValues: { output: `the caller's model was asked again, after: ${input.steps[0]?.observation}` }, log: "" },
  );
  const triage = new AgentExecutor({ agent: triageAgent, tools: [toBilling], store: stores.caller ?? store, leaseMs: callerLeaseMs });
  return { store, triage, tools: [toBilling] };
}

describe("handoff: a nested pause answered from another process", () => {
  it("resume(runId, { decisions }) on new instances runs the other agent's call once, and the caller ends with its answer", async () => {
    const path = join(dir, `runs-${++files}.db`);
    const refunded: number[] = [];
    const first = startProcess(path, refunded);
    const paused = await first.triage.invoke({ input: "Refund me" }, { runId: "caller" });
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
        subRun: { tool: "transfer_to_billing", runId: "handoff:caller:0:h1", interruptId: "call-0-0" },
      },
    ]);
    await first.store.close();

    const second = startProcess(path, refunded);
    const result = await second.triage.resume("caller", { decisions: { "call-0-0/call-0-0": "approve" } });
    expect(result).toMatchObject({ stopReason: "return_direct", output: "Billing: refunded 10" });
    expect(refunded).toEqual([10]);
    expect((await second.store.getRun("handoff:caller:0:h1"))?.status).toBe("finished");
    await second.store.close();
  });

  it("decisions recorded by one process (recordDecisions) are carried out by a resume without decisions in another", async () => {
    const path = join(dir, `runs-${++files}.db`);
    const refunded: number[] = [];
    const api = startProcess(path, refunded);
    await api.triage.invoke({ input: "Refund me" }, { runId: "caller" });
    // Given the caller's tools, the edit is checked against the other agent's tool (through the handoff's).
    await recordDecisions(api.store, "caller", { "call-0-0/call-0-0": { type: "edit", toolInput: { amount: 7 } } }, { tools: api.tools });
    expect((await api.store.getRun("caller"))?.status).toBe("queued");
    await api.store.close();

    const worker = startProcess(path, refunded);
    const result = await worker.triage.resume("caller");
    expect(result).toMatchObject({ stopReason: "return_direct", output: "Billing: refunded 7" });
    expect(refunded).toEqual([7]);
    await worker.store.close();
  });

  it("a caller that stopped after the other agent answered retries the handoff without the decisions, and takes that answer: the call ran once", async () => {
    const path = join(dir, `runs-${++files}.db`);
    const refunded: number[] = [];
    // The caller's store refuses the write of the handoff's step while `dying`: its process "stops" there.
    const inner = new MemoryRunStore();
    const caller = delegate(inner);
    const control = { dying: true };
    caller.write = async (runId: string, write: RunWrite) => {
      if (control.dying && write.events.some((event) => event.data["type"] === "step" && event.data["subRun"] === undefined)) throw new Error("the process stopped");
      return inner.write(runId, write);
    };
    const live = startProcess(path, refunded, { caller });
    await live.triage.invoke({ input: "Refund me" }, { runId: "caller" });
    await expect(live.triage.resume("caller", { decisions: { "call-0-0/call-0-0": "approve" } })).rejects.toThrow(/the process stopped/);
    expect(refunded).toEqual([10]);
    expect((await live.store.getRun("handoff:caller:0:h1"))?.status).toBe("finished");
    control.dying = false;
    await new Promise((resolve) => setTimeout(resolve, 150)); // the caller's lease lapses

    const result = await live.triage.resume("caller");
    expect(result).toMatchObject({ stopReason: "return_direct", output: "Billing: refunded 10" });
    expect(refunded).toEqual([10]);
    await live.store.close();
  });

  it("a caller resumed after its process stopped, while the other agent's run is still leased by it, waits for that lease to lapse and resumes that run: its call runs once", async () => {
    const path = join(dir, `runs-${++files}.db`);
    const refunded: number[] = [];
    await startProcess(path, refunded).triage.invoke({ input: "Refund me" }, { runId: "caller" }).then(() => undefined);
    // The dying process: it stops once the other agent's run (under a lease of 1 s) has recorded
    // the decisions, before its call starts; no write of it lands after that, the release of that
    // lease included.
    const inner = new SqliteRunStore({ path });
    const dying = delegate(inner);
    const control = { dead: false };
    dying.write = async (runId: string, write: RunWrite) => {
      if (control.dead) throw new Error("the process stopped");
      await inner.write(runId, write);
      if (runId.startsWith("handoff:") && write.events.some((event) => event.data["type"] === "decisions")) {
        control.dead = true;
        throw new Error("the process stopped");
      }
    };
    const live = startProcess(path, refunded, { caller: dying, billing: dying }, 1_000, 100);
    await expect(live.triage.resume("caller", { decisions: { "call-0-0/call-0-0": "approve" } })).rejects.toThrow(/the process stopped/);
    expect(refunded).toEqual([]);
    expect(await inner.getRun("handoff:caller:0:h1")).toMatchObject({ status: "running", leaseExpiresAt: expect.any(Number) });
    await inner.close();
    await live.store.close();
    await new Promise((resolve) => setTimeout(resolve, 150)); // the caller's lease (100 ms) lapses; the other agent's does not

    const second = startProcess(path, refunded);
    const result = await second.triage.resume("caller");
    expect(result).toMatchObject({ stopReason: "return_direct", output: "Billing: refunded 10" });
    expect(refunded).toEqual([10]);
    expect((await second.store.getRun("handoff:caller:0:h1"))?.status).toBe("finished");
    await second.store.close();
  });

  it("decisions for the other agent's run that was cancelled meanwhile: it stays cancelled, its call never runs, and the handoff call says so", async () => {
    const path = join(dir, `runs-${++files}.db`);
    const refunded: number[] = [];
    const here = startProcess(path, refunded);
    await here.triage.invoke({ input: "Refund me" }, { runId: "caller" });
    expect(await here.store.cancelRun("handoff:caller:0:h1", { reason: "Cancelled from agentrx ui.", at: Date.now() })).toBe(true);
    const result = await here.triage.resume("caller", { decisions: { "call-0-0/call-0-0": "approve" } });
    // The handoff failed: its error goes back to the caller's model rather than become the answer.
    expect(result.stopReason).toBe("finish");
    expect(result.output).toMatch(/^the caller's model was asked again, after: .*handoff "transfer_to_billing": the other agent did not answer \(the other agent's run "handoff:caller:0:h1" is cancelled, not paused any more, so the decisions given on its pause were not carried out/);
    expect(refunded).toEqual([]);
    expect((await here.store.getRun("handoff:caller:0:h1"))?.status).toBe("cancelled");
    await here.store.close();
  });

  it("the other agent's run held by a process that keeps its lease: the retry waits a few times, then the handoff call says it is still running there", async () => {
    const path = join(dir, `runs-${++files}.db`);
    const refunded: number[] = [];
    const here = startProcess(path, refunded);
    await here.triage.invoke({ input: "Refund me" }, { runId: "caller" });
    // Another process runs it, renewing its lease (300 ms) long before it lapses.
    const hold = () => here.store.claimRun("handoff:caller:0:h1", { owner: "elsewhere", leaseMs: 300, at: Date.now() });
    await hold();
    const renewing = setInterval(() => void hold().catch(() => undefined), 20);
    try {
      const result = await here.triage.resume("caller", { decisions: { "call-0-0/call-0-0": "approve" } });
      expect(result.output).toMatch(/^the caller's model was asked again, after: .*handoff "transfer_to_billing": the other agent did not answer \(the other agent's run "handoff:caller:0:h1" is still running in another process \(elsewhere\), which holds its lease until .* after 3 waits for its lease to lapse/);
    } finally {
      clearInterval(renewing);
    }
    expect(refunded).toEqual([]);
    expect(await here.store.getRun("handoff:caller:0:h1")).toMatchObject({ status: "running", owner: "elsewhere" });
    await here.store.close();
  });

  it("a resume cancelled while it waits for the other agent's lease stops waiting at once", async () => {
    const path = join(dir, `runs-${++files}.db`);
    const refunded: number[] = [];
    const here = startProcess(path, refunded);
    await here.triage.invoke({ input: "Refund me" }, { runId: "caller" });
    // Another process holds the other agent's run for a minute: the retry would wait for it.
    await here.store.claimRun("handoff:caller:0:h1", { owner: "elsewhere", leaseMs: 60_000, at: Date.now() });
    const controller = new AbortController();
    const resumed = here.triage.resume("caller", { decisions: { "call-0-0/call-0-0": "approve" }, signal: controller.signal });
    setTimeout(() => controller.abort(new Error("the person left")), 100);
    await expect(resumed).rejects.toThrow(/cancel|abort/i);
    expect(refunded).toEqual([]);
    expect((await here.store.getRun("caller"))?.status).toBe("cancelled");
    await here.store.close();
  });
});
