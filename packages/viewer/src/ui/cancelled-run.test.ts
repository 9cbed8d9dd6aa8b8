// A run cancelled in the middle of a tool call and then resumed to its end, as the runs list, the
// trace page and the notebook display show it: never "unreadable", no stale cancel error.
import { AgentExecutor, RUN_MIME_TYPE } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { tool } from "@langchain/core/tools";
import { filter, firstValueFrom, skip } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { finish, scriptedAgent, toolCall } from "../../../executors/src/executor/test-helpers";
import { displayRun } from "../notebook/display-run";
import { readTracePage } from "../trace-page/read-trace-page";
import { runStopLabel } from "./run-list-data";

describe("a cancelled run, then resumed", () => {
  it("is listed as cancelled, then as finished with no error; its page and its notebook summary agree", async () => {
    const store = new MemoryRunStore();
    let hang = true;
    const lookup = tool(async ({ q }: { q: string }, config) => {
      if (hang) await new Promise((_, reject) => config?.signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
      return `found ${q}`;
    }, { name: "lookup", description: "Looks up.", schema: z.object({ q: z.string() }) });
    const { agent } = scriptedAgent([[toolCall("lookup", { q: "a" }, "c1"), toolCall("lookup", { q: "b" }, "c2"), toolCall("lookup", { q: "c" }, "c3")], finish("done")]);
    const executor = new AgentExecutor({ agent, tools: [lookup], store });

    // Cancel once the three calls are under way (unsubscribing cancels the run).
    const run = executor.stream({ input: "go" });
    const started = await firstValueFrom(run.pipe(filter((event) => event.type === "action"), skip(2)));
    expect(started.type).toBe("action");
    const runId = (await store.listRuns({ limit: 1 }))[0]!.runId;
    await expect.poll(async () => (await store.getRun(runId))?.status).toBe("cancelled");
    const cancelled = (await store.getRun(runId))!;
    expect(cancelled.error).toBeDefined();
    expect(runStopLabel(cancelled)).toBe("cancelled");
    const cancelledPage = await readTracePage(store, runId, { mode: "file", source: "memory" });
    expect(cancelledPage.run.error).toBe(cancelled.error);

    hang = false;
    const bundle = await displayRun(executor.resume(runId), { live: false });
    const finished = (await store.getRun(runId))!;
    expect(finished).toMatchObject({ status: "finished", stopReason: "finish" });
    expect(finished.error).toBeUndefined();
    expect(runStopLabel(finished)).toBe("finish");
    expect((await readTracePage(store, runId, { mode: "file", source: "memory" })).run.error).toBeUndefined();
    // The resumed run's three tool results are three tool calls in its summary, not "0 tool calls".
    expect(bundle[RUN_MIME_TYPE]).toMatchObject({ status: "finished", actions: 3, steps: 3 });
    expect(bundle["text/plain"]).toMatch(/^Run finished \(finish\): 3 tool calls/);
  });
});
