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
 * `@agentrx/viewer`, or a rejection that says what went wrong: to install it when the package
 * itself is not found, else why it could not be loaded (a file of it or of a package it imports
 * missing, as during a rebuild or an upgrade while the process ran), with the error as `cause`.
 *
 * @internal
 */
export function loadViewer(): Promise<ViewerModule> {
  loading ??= (import(/* webpackIgnore: true */ /* @vite-ignore */ SPECIFIER) as Promise<ViewerModule>).catch((cause: unknown) => {
    loading = undefined;
    throw new Error(viewerLoadMessage(cause), { cause });
  });
  return loading;
}

/**
 * The message of a failed import of `@agentrx/viewer`: "install it" only when the package itself
 * was not found; otherwise the error, and that a process that has imported it once keeps the
 * failure (Node caches a module that failed to load) until it restarts.
 *
 * @internal
 */
export function viewerLoadMessage(cause: unknown): string {
  const detail = cause instanceof Error ? cause.message : String(cause);
  const code = (cause as { code?: unknown } | null)?.code;
  // Node and Bun name the package they did not find in quotes ("Cannot find package '@agentrx/viewer' imported from ...").
  if ((code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && /['"]@agentrx\/viewer['"]/.test(detail)) {
    return "Displaying a run and rendering a trace page need @agentrx/viewer: install it next to @agentrx/executors (npm install @agentrx/viewer).";
  }
  return `Displaying a run and rendering a trace page need @agentrx/viewer, which could not be loaded: ${detail}. Not installed? npm install @agentrx/viewer. Did its files change while this process ran (a rebuild, an upgrade)? Restart the process (in a notebook, its kernel): a module that failed to load stays failed until then.`;
}
