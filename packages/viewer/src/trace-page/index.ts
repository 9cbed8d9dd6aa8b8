// `@agentrx/viewer/trace-page`: the trace page's parts, for the viewers built on it (the
// `agentrx` CLI in `@agentrx/runs`, the `ui` server, the notebook display). Runtime-neutral: no
// Node built-in. Applications want `renderTracePage` from `@agentrx/viewer` instead.
export { CappedText, capTexts } from "./capped-text";
export { TRACE_REQUEST_BUDGET, TRACE_TEXT_BUDGET, readTracePage, readTraceText, traceRunOf } from "./read-trace-page";
export type { ReadTracePageOptions } from "./read-trace-page";
export { ReadableEventReader, isUnreadableRunEvent, readReadableEvents } from "./read-readable-events";
export type { ReadableRunEntry, UnreadableRunEvent } from "./read-readable-events";
export type {
  TraceEdit,
  TracePausedCall,
  TraceEvent,
  TraceMessage,
  TracePageData,
  TraceRequest,
  TraceRequestParts,
  TraceRequestPartsUpdate,
  TraceRequestRef,
  TraceSubRunEvent,
  TraceRun,
  TraceText,
  TraceTextCut,
  TraceToolCall,
  TraceUpdate,
  TraceUsage,
} from "./trace-data";
export { TraceEventConverter } from "./trace-event-converter";
export type { ServerTraceEvent } from "./trace-event-converter";
export { TraceFollower } from "./trace-follower";
export { domRuntime } from "./page/dom-runtime";
export type { DomChild, DomProps, DomRuntime } from "./page/dom-runtime";
export { formatRuntime } from "./page/format-runtime";
export type { FormatRuntime } from "./page/format-runtime";
export { escapeHtml, pageShell } from "./page/page-shell";
export type { PageShellOptions } from "./page/page-shell";
export { tracePageHtml, tracePageScript } from "./page/trace-page-html";
export type { TracePageSource } from "./page/trace-page-html";
export { traceLayoutRuntime } from "./page/trace-layout";
export type { TraceLayoutRuntime, TraceRow, TraceRowState, TraceSlowest } from "./page/trace-layout";
export { traceModelRuntime, traceRequestOf } from "./page/trace-model";
export type { TraceModel, TraceModelRuntime } from "./page/trace-model";
export { traceSummaryRuntime } from "./page/trace-summary";
export type { TraceScale, TraceSummary, TraceSummaryRuntime } from "./page/trace-summary";
export { runListItemOf, runStopLabel } from "../ui/run-list-data";
export { isStalledRun } from "./is-stalled-run";
export type { RunListData, RunListItem } from "../ui/run-list-data";
export { DIFF_PROMPT_TEXT_BUDGET, diffPageData, diffPageHtml } from "../diff-page/index";
export type { DiffPageData, DiffPrompt, DiffPromptMessage } from "../diff-page/index";
