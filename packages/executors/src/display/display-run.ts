import type { Observable } from "rxjs";
import type { AgentStreamEvent } from "../executor/events";
import type { RunObservable } from "../executor/run-observable";
import type { DisplayRunOptions, RunDisplayBundle } from "./display-types";
import { loadViewer } from "./load-viewer";

/**
 * Runs a run for a notebook and shows it: `displayRun` of `@agentrx/viewer`, loaded on first use
 * (install `@agentrx/viewer`; see docs/notebooks.md). Kept here so code written before the viewer
 * had its own package still works.
 *
 * @deprecated Use `displayRun` from `@agentrx/viewer`.
 * @param run a run from `executor.invoke`, `stream` or `resume`, or any observable of run events
 * @param options where the live table goes, the store of the run's record, update pacing
 * @example
 * ```ts
 * import { AgentExecutor, displayRun } from "@agentrx/executors";
 * import { RunnableLambda } from "@langchain/core/runnables";
 *
 * const agent = RunnableLambda.from(() => ({ returnValues: { output: "hi" }, log: "" }));
 * const executor = new AgentExecutor({ agent, tools: [] });
 * const bundle = await displayRun(executor.invoke({ input: "hello" }), { live: false });
 * console.log(bundle["application/vnd.agentrx.run+json"].status); // "finished"
 * ```
 */
export async function displayRun(run: Observable<AgentStreamEvent> | RunObservable<unknown, unknown>, options: DisplayRunOptions = {}): Promise<RunDisplayBundle> {
  return (await loadViewer()).displayRun(run as Observable<AgentStreamEvent>, options);
}
