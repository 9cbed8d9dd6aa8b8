import { checkOptionKeys } from "@agentrx/core";
import type { RenderTracePageOptions, RunStore } from "@agentrx/executors";
import { tracePageHtml } from "./page/trace-page-html";
import { TRACE_TEXT_BUDGET, readTracePage } from "./read-trace-page";

/**
 * The trace page of a recorded run: one self-contained HTML file (inline styles and script, no
 * request, a Content-Security-Policy that lets only its own script run) with a waterfall of the
 * run's model and tool calls, its tree and each call's detail. The same page `agentrx trace`
 * writes; it needs no Node built-in, so a web app, an edge function or a notebook can serve it.
 *
 * A damaged record still gives a page: an event that cannot be read (a corrupt row, a gap in the
 * record, an event that cannot be decoded, such as a step whose action is unreadable) is a row
 * that says why, and the header says how many events could not be read. Rejects with
 * `RunNotFoundError` for an unknown run and with a `RunStoreError` when the store fails.
 *
 * @param store the store the run is recorded in
 * @param runId the run
 * @example
 * ```ts
 * import { AgentExecutor } from "@agentrx/executors";
 * import { MemoryRunStore } from "@agentrx/runs";
 * import { renderTracePage } from "@agentrx/viewer";
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
  checkOptionKeys("renderTracePage", options, ["source", "textBudget"] satisfies (keyof RenderTracePageOptions)[]);
  const { source = "run store", textBudget = TRACE_TEXT_BUDGET } = options;
  return tracePageHtml(await readTracePage(store, runId, { mode: "file", source, textBudget }));
}
