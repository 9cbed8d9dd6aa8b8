import type { TracePageData, TraceRequestParts } from "../trace-data";
import type { CappedText } from "../capped-text";
import type { ServerTraceEvent } from "../trace-event-converter";
import { TRACE_PAGE_SCRIPT } from "../../page-scripts/page-scripts.generated";
import { pageShell } from "./page-shell";

/** A trace page's data as the server holds it: its texts may still have to be cut (`CappedText`). */
export type TracePageSource = Omit<TracePageData, "events" | "requestParts"> & {
  events: (ServerTraceEvent | TracePageData["events"][number])[];
  requestParts?: TraceRequestParts<CappedText> | TraceRequestParts;
};

/**
 * The trace page's script: src/page-scripts/trace-page.entry.ts, bundled at build time.
 *
 * @internal
 */
export function tracePageScript(): string {
  return TRACE_PAGE_SCRIPT;
}

/**
 * The HTML of a run's trace page: one self-contained file (inline CSS and script, no request) in
 * which the run's record is data, shown as text.
 *
 * @internal
 */
export function tracePageHtml(data: TracePageSource): string {
  return pageShell({
    title: `Run ${data.run.runId} · ${data.run.status} · AgentRx trace`,
    data,
    script: TRACE_PAGE_SCRIPT,
    connect: data.mode === "ui",
  });
}
