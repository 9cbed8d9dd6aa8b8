// Cancelling a calling run that paused inside a handoff (or an `asTool` call) from another process
// (`RunStore.cancelRun`) cancels the other agent's paused run with it, in every store: it is not
// left paused with nobody to resume it (see docs/approval.md, "A pause inside a handoff").
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentStep } from "@agentrx/core";
import { AgentExecutor, type RunStore, handoff, recordDecisions } from "@agentrx/executors";
import { withApproval } from "@agentrx/tools";
import { RunnableLambda } from "@langchain/core/runnables";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryRunStore } from "../memory/index";
import { PostgresRunStore } from "../postgres/index";
import { SqliteRunStore } from "../sqlite/index";
import { postgresTestDatabase } from "../testing/postgres-test-database";
import { callsFirst, refundTool } from "../../../executors/src/executor/test-helpers";

const dir = mkdtempSync(join(tmpdir(), "agentrx-cancel-nested-"));
const database = await postgresTestDatabase("cancel of a nested pause");
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await database.drop();
});

let runs = 0;
/** A caller's run id unique in the shared PostgreSQL schema. */
const callerId = () => `caller-${++runs}`;

const kinds: { name: string; skip: boolean; open: () => RunStore }[] = [
  { name: "MemoryRunStore", skip: false, open: () => new MemoryRunStore() },
  { name: "SqliteRunStore", skip: false, open: () => new SqliteRunStore({ path: join(dir, `runs-${++runs}.db`) }) },
  {
    name: "PostgresRunStore",
    skip: database.skip,
    open: () => {
      database.assertReachable();
      return new PostgresRunStore({ connectionString: database.connectionString, schema: database.schema });
    },
  },
];

const REASON = "The run was cancelled from agentrx ui.";
/** What a caller asks the billing agent (a handoff's input). */
const REFUND_ORDER = { input: "refund order 42" };

/** The billing agent: its refund (of 10) needs approval; `refunded` says which ran. */
function billingExecutor(store: RunStore, refunded: number[]): AgentExecutor {
  const refund = refundTool(refunded);
  return new AgentExecutor({ agent: callsFirst("refund", "r1", { amount: 10 }), tools: [withApproval(refund)], store });
}

describe.each(kinds)("$name: cancelRun of a caller paused inside a sub-run", ({ skip, open }) => {
  it.skipIf(skip)("cancels the other agent's paused run of a handoff, naming the caller; its refund never runs", async () => {
    const store = open();
    const refunded: number[] = [];
    const toBilling = handoff(billingExecutor(store, refunded), { name: "transfer_to_billing", description: "Refunds." });
    const triage = new AgentExecutor({ agent: callsFirst("transfer_to_billing", "h1", REFUND_ORDER), tools: [toBilling], store });
    const caller = callerId();
    const paused = await triage.invoke({ input: "Refund me" }, { runId: caller });
    const subRunId = `handoff:${caller}:0:h1`;
    expect(paused.interrupts?.map((interrupt) => interrupt.subRun?.runId)).toEqual([subRunId]);

    expect(await store.cancelRun!(caller, { reason: REASON, at: Date.now() })).toBe(true);
    expect(await store.getRun(caller)).toMatchObject({ status: "cancelled", error: REASON });
    expect(await store.getRun(subRunId)).toMatchObject({ status: "cancelled", error: `Its calling run "${caller}" was cancelled: ${REASON}` });
    expect((await store.getRun(subRunId))?.owner).toBeUndefined();
    // Nothing to cancel any more, and the sub-run cannot be decided: its refund never runs.
    expect(await store.cancelRun!(caller, { reason: REASON, at: Date.now() })).toBe(false);
    const result = await triage.resume(caller);
    expect(result.stopReason).toBe("interrupted");
    const decided = await triage.resume(caller, { decisions: { "call-0-0/call-0-0": "approve" } });
    expect(decided.output).toMatch(new RegExp(`the other agent's run "${subRunId}" is cancelled, not paused any more`));
    expect(refunded).toEqual([]);
    await store.close();
  });

  it.skipIf(skip)("cancels both runs below a caller two handoffs down, each naming its own caller", async () => {
    const store = open();
    const refunded: number[] = [];
    const billing = billingExecutor(store, refunded);
    const middle = new AgentExecutor({ agent: callsFirst("to_billing", "m1", REFUND_ORDER), tools: [handoff(billing, { name: "to_billing", description: "Refunds." })], store });
    const top = new AgentExecutor({ agent: callsFirst("to_middle", "t1", REFUND_ORDER), tools: [handoff(middle, { name: "to_middle", description: "Routes." })], store });
    const caller = callerId();
    await top.invoke({ input: "Refund me" }, { runId: caller });
    const middleId = `handoff:${caller}:0:t1`;
    const billingId = `handoff:${middleId}:0:m1`;
    expect((await store.getRun(billingId))?.status).toBe("interrupted");

    expect(await store.cancelRun!(caller, { reason: REASON, at: Date.now() })).toBe(true);
    expect(await store.getRun(middleId)).toMatchObject({ status: "cancelled", error: `Its calling run "${caller}" was cancelled: ${REASON}` });
    expect(await store.getRun(billingId)).toMatchObject({ status: "cancelled", error: `Its calling run "${middleId}" was cancelled: ${REASON}` });
    expect(refunded).toEqual([]);
    await store.close();
  });

  it.skipIf(skip)("cancels the paused run of an asTool call, also once the caller's decisions are recorded (queued)", async () => {
    const store = open();
    const refunded: number[] = [];
    const supervisor = new AgentExecutor({ agent: callsFirst("billing", "b1", REFUND_ORDER), tools: [billingExecutor(store, refunded).asTool({ name: "billing", description: "Refunds." })], store });
    const caller = callerId();
    await supervisor.invoke({ input: "Refund me" }, { runId: caller });
    await recordDecisions(store, caller, { "call-0-0/call-0-0": "approve" });
    expect((await store.getRun(caller))?.status).toBe("queued");

    expect(await store.cancelRun!(caller, { reason: REASON, at: Date.now() })).toBe(true);
    expect(await store.getRun(`as-tool:${caller}:0:b1`)).toMatchObject({ status: "cancelled", error: `Its calling run "${caller}" was cancelled: ${REASON}` });
    expect(refunded).toEqual([]);
    await store.close();
  });

  it.skipIf(skip)("leaves a sub-run of the pause that finished meanwhile as it is, and cancels the one still paused", async () => {
    const store = open();
    const refunded: number[] = [];
    const billing = billingExecutor(store, refunded);
    const refunds = billingExecutor(store, refunded);
    // One turn, two calls: both other agents pause, and so does the supervisor, on both.
    const agent = RunnableLambda.from((input: { steps: AgentStep[] }) =>
      input.steps.length === 0
        ? [
            { tool: "billing", toolInput: { input: "refund order 42" }, log: "", toolCallId: "b1" },
            { tool: "refunds", toolInput: { input: "refund order 43" }, log: "", toolCallId: "b2" },
          ]
        : { returnValues: { output: "done" }, log: "" },
    );
    const tools = [billing.asTool({ name: "billing", description: "Refunds." }), refunds.asTool({ name: "refunds", description: "Refunds too." })];
    const supervisor = new AgentExecutor({ agent, tools, store });
    const caller = callerId();
    const paused = await supervisor.invoke({ input: "Refund both" }, { runId: caller });
    const [first, second] = [`as-tool:${caller}:0:b1`, `as-tool:${caller}:0:b2`];
    expect(paused.interrupts?.map((interrupt) => interrupt.subRun?.runId)).toEqual([first, second]);
    // The first is decided on its own run, with its own executor: it finishes.
    expect(await billing.resume(first, { decisions: { "call-0-0": "approve" } })).toMatchObject({ output: "done: refunded 10" });
    const finished = await store.getRun(first);

    expect(await store.cancelRun!(caller, { reason: REASON, at: Date.now() })).toBe(true);
    expect(await store.getRun(first)).toEqual(finished);
    expect(await store.getRun(second)).toMatchObject({ status: "cancelled", error: `Its calling run "${caller}" was cancelled: ${REASON}` });
    expect(refunded).toEqual([10]);
    await store.close();
  });
});
