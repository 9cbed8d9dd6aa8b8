import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentStep } from "@agentrx/core";
import { ScriptedChatModel, deferred } from "@agentrx/core/testing";
import { AgentExecutor, COMPACTED_STEPS_TOOL, type AgentStreamEvent, type RunStore, compactSteps } from "@agentrx/executors";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryRunStore } from "../memory/index";
import { replayRun } from "../replay/index";
import { SqliteRunStore } from "../sqlite/index";

const dir = mkdtempSync(join(tmpdir(), "agentrx-compact-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * An agent that reads pages 0..4 (one a turn), then answers; the tool blocks on page 3 until `gate`
 * opens (or the run is cancelled). Each page is ~100 tokens: with maxTokens 260 and keep 1, the
 * call of iteration 3 compacts the first two steps.
 */
function setup(gate: Promise<void> | undefined, reached?: () => void) {
  const seen: AgentStep[][] = [];
  const agent = RunnableLambda.from((input: { steps: AgentStep[] }) => {
    seen.push(input.steps);
    const pages = input.steps.filter((step) => step.action.tool === "read").map((step) => (step.action.toolInput as { page: number }).page);
    const next = pages.length === 0 ? 0 : Math.max(...pages) + 1;
    return next >= 4 ? { returnValues: { output: `read ${next} pages` }, log: "" } : { tool: "read", toolInput: { page: next }, log: "" };
  });
  const read = tool(
    async ({ page }: { page: number }, config) => {
      if (page === 3 && gate !== undefined) {
        reached?.();
        await new Promise<void>((resolve, reject) => {
          void gate.then(resolve);
          config?.signal?.addEventListener("abort", () => reject(new Error("aborted")));
        });
      }
      return `Page ${page}: ${"word ".repeat(80)}`;
    },
    { name: "read", description: "Reads a page.", schema: z.object({ page: z.number() }) },
  );
  return { agent, read, seen };
}

const stores: [string, () => RunStore][] = [
  ["memory", () => new MemoryRunStore()],
  ["sqlite", () => new SqliteRunStore({ path: join(dir, `runs-${Math.random().toString(36).slice(2)}.db`) })],
];

describe.each(stores)("compactSteps with a recorded run (%s)", (_name, makeStore) => {
  it("records the summary, and a resumed run reads it instead of summarizing again", async () => {
    const store = makeStore();
    const reached = deferred<void>();
    const first = setup(new Promise<void>(() => {}), () => reached.resolve());
    const summarizer = new ScriptedChatModel({ responses: ["Pages 0 and 1: filler words."] });
    const executor = new AgentExecutor({ agent: first.agent, tools: [first.read], store, middleware: [compactSteps({ model: summarizer, maxTokens: 260, keep: 1 })] });
    const subscription = executor.stream({ input: "read" }, { runId: "compacted" }).subscribe({ error: () => undefined });
    await reached.promise; // page 3 is in flight, after the compaction
    subscription.unsubscribe();
    await expect.poll(async () => (await store.getRun("compacted"))?.status).toBe("cancelled");
    expect(summarizer.calls).toHaveLength(1);
    expect(first.seen[3]?.map((step) => step.action.tool)).toEqual([COMPACTED_STEPS_TOOL, "read"]);
    const recorded = (await store.readEvents("compacted")).filter((event) => event.type === "compaction");
    expect(recorded.map((event) => event.data)).toMatchObject([{ type: "compaction", iteration: 3, steps: 2, summary: "Pages 0 and 1: filler words.", middleware: "compactSteps" }]);

    // Another process: a summarizer that must not be called.
    const second = setup(undefined);
    const unused = new ScriptedChatModel({ responses: [] });
    const resumer = new AgentExecutor({ agent: second.agent, tools: [second.read], store, middleware: [compactSteps({ model: unused, maxTokens: 260, keep: 1 })] });
    const resumed = await lastValueFrom(resumer.resume("compacted").pipe(toArray()));
    expect(resumed.at(-1)).toMatchObject({ type: "output", output: "read 4 pages", stopReason: "finish" });
    expect(unused.calls).toHaveLength(0);
    const view = second.seen[0] as AgentStep[];
    expect(view.map((step) => step.action.tool)).toEqual([COMPACTED_STEPS_TOOL, "read", "read"]);
    expect(view[0]?.observation).toBe("Summary of the earlier steps:\nPages 0 and 1: filler words.");

    // The replay shows the compaction where it happened.
    const replayed: AgentStreamEvent[] = await lastValueFrom(replayRun(store, "compacted").pipe(toArray()));
    const compaction = replayed.find((event) => event.type === "compaction");
    expect(compaction).toMatchObject({ type: "compaction", iteration: 3, steps: 2, summary: "Pages 0 and 1: filler words." });
    await store.close();
  });
});
