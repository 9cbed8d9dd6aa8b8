import type { RunStore } from "../runs/run-store";
import type { RenderTracePageOptions } from "./display-types";
import { loadViewer } from "./load-viewer";

/**
 * The trace page of a recorded run: `renderTracePage` of `@agentrx/viewer`, loaded on first use
 * (install `@agentrx/viewer`; see docs/trace-viewer.md). Kept here so code written before the
 * viewer had its own package still works.
 *
 * @deprecated Use `renderTracePage` from `@agentrx/viewer`.
 * @param store the store the run is recorded in
 * @param runId the run
 * @example
 * ```ts
 * import { AgentExecutor, renderTracePage } from "@agentrx/executors";
 * import { MemoryRunStore } from "@agentrx/runs";
 * import { RunnableLambda } from "@langchain/core/runnables";
 *
 * const store = new MemoryRunStore();
 * const agent = RunnableLambda.from(() => ({ returnValues: { output: "hi" }, log: "" }));
 * const { runId } = await new AgentExecutor({ agent, tools: [], store }).invoke({ input: "hello" });
 * const html = await renderTracePage(store, runId);
 * console.log(html.startsWith("<!doctype html>")); // true
 * ```
 */
export async function renderTracePage(store: RunStore, runId: string, options: RenderTracePageOptions = {}): Promise<string> {
  return (await loadViewer()).renderTracePage(store, runId, options);
}
