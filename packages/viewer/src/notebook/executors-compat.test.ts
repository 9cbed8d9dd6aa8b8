// The names `@agentrx/executors` kept when the display moved here: they load this package on
// first use and give what its own functions give.
import { AgentExecutor, RUN_MIME_TYPE, displayRun as executorsDisplayRun, renderTracePage as executorsRenderTracePage } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { RunnableLambda } from "@langchain/core/runnables";
import { describe, expect, it } from "vitest";
// The file `@agentrx/executors/trace-page` resolves to in a package (it imports `@agentrx/viewer/trace-page`).
import * as tracePageParts from "../../../executors/trace-page/index.js";
import * as viewerTracePage from "@agentrx/viewer/trace-page";

function helloExecutor(store?: MemoryRunStore) {
  let calls = 0;
  const agent = RunnableLambda.from(() => {
    calls += 1;
    return { returnValues: { output: "hi" }, log: "" };
  });
  return { executor: new AgentExecutor({ agent, tools: [], ...(store === undefined ? {} : { store }) }), calls: () => calls };
}

describe("@agentrx/executors' display names", () => {
  it("displayRun shows the run through @agentrx/viewer, and awaiting the run afterwards does not run it again", async () => {
    const { executor, calls } = helloExecutor();
    const run = executor.invoke({ input: "hello" });
    const bundle = await executorsDisplayRun(run, { live: false });
    expect(bundle[RUN_MIME_TYPE]).toMatchObject({ status: "finished", output: "hi" });
    expect(bundle["text/html"]).toContain('<iframe class="agentrx-trace"');
    expect((await run).output).toBe("hi");
    expect(calls()).toBe(1);
  });

  it("a run's Jupyter display hook loads the viewer lazily and gives the run's bundle", async () => {
    const { executor } = helloExecutor();
    const run = executor.invoke({ input: "hello" });
    const display = (run as unknown as Record<symbol, () => Promise<Record<string, unknown>>>)[Symbol.for("Jupyter.display")];
    const bundle = await display!.call(run);
    expect(bundle[RUN_MIME_TYPE]).toMatchObject({ status: "finished", output: "hi" });
  });

  it("renderTracePage renders the same page as the viewer's", async () => {
    const store = new MemoryRunStore();
    const { runId } = await helloExecutor(store).executor.invoke({ input: "hello" });
    const html = await executorsRenderTracePage(store, runId, { source: "memory" });
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toContain(`Run ${runId} · finished`);
  });

  it("@agentrx/executors/trace-page re-exports @agentrx/viewer/trace-page", () => {
    expect(Object.keys(tracePageParts).sort()).toEqual(Object.keys(viewerTracePage).sort());
    expect(tracePageParts.readTracePage).toBe(viewerTracePage.readTracePage);
  });
});
