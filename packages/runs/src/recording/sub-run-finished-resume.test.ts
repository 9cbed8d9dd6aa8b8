import type { AgentStep } from "@agentrx/core";
import { AgentExecutor, type AgentStreamEvent, handoff } from "@agentrx/executors";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryRunStore } from "../memory/index";
import { replayRun } from "../replay/index";

describe.each(["asTool", "handoff"] as const)("a caller resumed after its %s sub-run finished", (kind) => {
  it("takes the sub-run's recorded answer without recording it again: the caller's record shows it once", async () => {
    const store = new MemoryRunStore();
    let searches = 0;
    const search = tool(async () => `found ${++searches}`, { name: "search", description: "Searches.", schema: z.object({}) });
    const sub = new AgentExecutor({
      agent: RunnableLambda.from((input: { steps: AgentStep[] }) =>
        input.steps.length === 0 ? { tool: "search", toolInput: {}, log: "", toolCallId: "s1" } : { returnValues: { output: `sub answer: ${input.steps[0]?.observation}` }, log: "" },
      ),
      tools: [search],
      store,
    });
    const subTool = kind === "asTool" ? sub.asTool({ name: "sub", description: "Helps." }) : handoff(sub, { name: "sub", description: "Helps." });
    const caller = new AgentExecutor({
      agent: RunnableLambda.from((input: { steps: AgentStep[] }) =>
        input.steps.length === 0 ? { tool: "sub", toolInput: kind === "asTool" ? { input: "x" } : {}, log: "", toolCallId: "c1" } : { returnValues: { output: `caller: ${input.steps[0]?.observation}` }, log: "" },
      ),
      tools: [subTool],
      store,
    });
    // Cancelled right after the sub-run's answer reached it, before its tool call's step.
    await new Promise<void>((resolve) => {
      const subscription = caller.stream({ input: "go" }, { runId: "c" }).subscribe({
        next: (event) => {
          if (event.subRun !== undefined && event.type === "output") {
            subscription.unsubscribe();
            resolve();
          }
        },
        error: () => resolve(),
        complete: () => resolve(),
      });
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await store.getRun("c"))?.status).toBe("cancelled");
    const resumed = await lastValueFrom(caller.resume("c").pipe(toArray()));
    expect(resumed.filter((event) => event.subRun !== undefined)).toEqual([]);
    expect(resumed.at(-1)).toMatchObject({ type: "output", output: kind === "asTool" ? "caller: sub answer: found 1" : "sub answer: found 1" });
    expect(searches).toBe(1); // nothing ran twice
    const replayed: AgentStreamEvent[] = await lastValueFrom(replayRun(store, "c").pipe(toArray()));
    const sub$ = replayed.filter((event) => event.subRun !== undefined).map((event) => event.type);
    expect(sub$.filter((type) => type === "output")).toHaveLength(1);
    expect(sub$.filter((type) => type === "start")).toHaveLength(1);
  });
});
