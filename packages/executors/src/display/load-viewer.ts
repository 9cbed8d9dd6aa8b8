import type { Observable } from "rxjs";
import type { AgentStreamEvent } from "../executor/events";
import type { RunStore } from "../runs/run-store";
import type { DisplayRunOptions, RenderTracePageOptions, RunDisplayBundle } from "./display-types";

// `@agentrx/viewer`, imported the first time a run is displayed or a trace page rendered through
// `@agentrx/executors`, and never otherwise. The specifier is not a literal, so bundlers leave the
// import alone: a bundle of `AgentExecutor` carries nothing of the viewer. @internal

const SPECIFIER = "@agentrx/viewer";

/** What `@agentrx/executors` uses of `@agentrx/viewer`. @internal */
export interface ViewerModule {
  displayRun(run: Observable<AgentStreamEvent>, options?: DisplayRunOptions): Promise<RunDisplayBundle>;
  renderTracePage(store: RunStore, runId: string, options?: RenderTracePageOptions): Promise<string>;
}

let loading: Promise<ViewerModule> | undefined;

/**
 * `@agentrx/viewer`, or a rejection that says to install it.
 *
 * @internal
 */
export function loadViewer(): Promise<ViewerModule> {
  loading ??= (import(/* webpackIgnore: true */ /* @vite-ignore */ SPECIFIER) as Promise<ViewerModule>).catch((cause: unknown) => {
    loading = undefined;
    throw new Error(
      `Displaying a run and rendering a trace page need @agentrx/viewer: install it next to @agentrx/executors (npm install @agentrx/viewer) and import displayRun / renderTracePage from it. (${cause instanceof Error ? cause.message : String(cause)})`,
      { cause },
    );
  });
  return loading;
}
