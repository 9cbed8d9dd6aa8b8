import type { RunStore } from "../runs/run-store";
import { tracePageHtml } from "./page/trace-page-html";
import { TRACE_TEXT_BUDGET, readTracePage } from "./read-trace-page";

/** Options of {@link renderTracePage}. */
export interface RenderTracePageOptions {
  /**
   * Where the record comes from, as the page names it (e.g. a file name or a database).
   * @default "run store"
   */
  source?: string;
  /**
   * Characters of recorded text the page carries in all; the longest texts are cut to fit.
   * @default 2_500_000
   */
  textBudget?: number;
}

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
  const { source = "run store", textBudget = TRACE_TEXT_BUDGET } = options;
  return tracePageHtml(await readTracePage(store, runId, { mode: "file", source, textBudget }));
}
