// A run's checkpoint keeps its running time over every segment (`elapsedMs`, what `agentrx runs`'
// DURATION, the trace page's header and a notebook's table show, and what `maxExecutionTime`
// counts): a resumed run's is its paused (or cut-off) segments' plus its own, never less, and the
// time it waited between them (for a person's decision) is not running time (docs/approval.md).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentAction, AgentStep } from "@agentrx/core";
import { AgentExecutor, type RunStore, type StoredRunEvent } from "@agentrx/executors";
import { SqliteRunStore } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { InProcessRunStore } from "./in-process-run-store";

const dir = mkdtempSync(join(tmpdir(), "agentrx-elapsed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** An agent that thinks `firstMs` before asking for a refund (which needs approval), then `thenMs` before answering. */
function executorOn(store: RunStore, firstMs: number, thenMs: number) {
  const refund = withApproval(tool(async () => "refunded", { name: "refund", description: "Refunds.", schema: z.object({}) }));
  const agent = RunnableLambda.from(async (input: { steps: AgentStep[] }) => {
    if (input.steps.length === 0) {
      await sleep(firstMs);
      return [{ tool: "refund", toolInput: {}, log: "", toolCallId: "r" } as AgentAction];
    }
    await sleep(thenMs);
    return { returnValues: { output: "done" }, log: "" };
  });
  return new AgentExecutor({ agent, tools: [refund], store });
}

/** Each segment's span in the record: from its `start` to its last event. */
function segmentSpans(events: readonly StoredRunEvent[]): number[] {
  const spans: { start: number; end: number }[] = [];
  for (const event of events) {
    if (event.type === "start") spans.push({ start: event.at, end: event.at });
    else (spans.at(-1) as { end: number }).end = event.at;
  }
  return spans.map(({ start, end }) => end - start);
}

const elapsedOf = async (store: RunStore, runId: string) => (await store.getRun(runId))?.checkpoint?.elapsedMs as number;

/** The stores to pause in and resume from: one store, and two connections to one SQLite file (as a notebook does). */
const setups: Record<string, () => { pausing: RunStore; resuming: RunStore }> = {
  "one store": () => {
    const store = new InProcessRunStore();
    return { pausing: store, resuming: store };
  },
  "two connections to one SQLite file": () => {
    const path = join(dir, `runs-${Math.random().toString(36).slice(2)}.db`);
    return { pausing: new SqliteRunStore({ path }), resuming: new SqliteRunStore({ path }) };
  },
};

describe("the running time a resumed run records", () => {
  for (const [name, setup] of Object.entries(setups)) {
    it(`is its paused segment's plus its own, without the wait for the decision (${name})`, async () => {
      const { pausing, resuming } = setup();
      const paused = await executorOn(pausing, 150, 0).invoke({ input: "refund" }, { runId: "r" });
      expect(paused.stopReason).toBe("interrupted");
      const first = await elapsedOf(pausing, "r");
      // The agent's 150 ms sleep counts (a timer may fire a little early by the wall clock on a
      // loaded machine: libuv measures from its cached loop time).
      expect(first).toBeGreaterThanOrEqual(100);
      expect(first).toBeGreaterThanOrEqual(segmentSpans(await pausing.readEvents("r"))[0] as number);

      await sleep(200); // a person decides: not running time
      const resumedAt = Date.now();
      const done = await executorOn(resuming, 0, 30).resume("r", { decisions: { "call-0-0": "approve" } });
      const resumeWall = Date.now() - resumedAt;
      expect(done.output).toBe("done");
      const total = await elapsedOf(resuming, "r");
      const spans = segmentSpans(await resuming.readEvents("r"));
      expect(spans).toHaveLength(2);
      expect(total).toBeGreaterThanOrEqual(first + (spans[1] as number));
      expect(total - first).toBeLessThanOrEqual(resumeWall);
      await Promise.all([pausing.close?.(), resuming.close?.()]);
    });
  }

  it("counts a cancelled segment's time too", async () => {
    const store = new InProcessRunStore();
    const controller = new AbortController();
    let abortedAt = 0;
    setTimeout(() => {
      abortedAt = Date.now();
      controller.abort();
    }, 120);
    await expect(executorOn(store, 1_000, 0).invoke({ input: "refund" }, { runId: "r", signal: controller.signal })).rejects.toMatchObject({ name: "AbortError" });
    expect((await store.getRun("r"))?.status).toBe("cancelled");
    const first = await elapsedOf(store, "r");
    // At least from the run's start (its first event) to the abort: a loaded machine starts the run
    // some milliseconds after the abort's timer was set.
    const startedAt = (await store.readEvents("r"))[0]!.at;
    expect(first).toBeGreaterThanOrEqual(abortedAt - startedAt - 2);
    expect(abortedAt - startedAt).toBeGreaterThan(60); // the segment did run for a while
    const paused = await executorOn(store, 20, 0).resume("r");
    expect(paused.stopReason).toBe("interrupted");
    expect(await elapsedOf(store, "r")).toBeGreaterThanOrEqual(first + 20);
  });
});
