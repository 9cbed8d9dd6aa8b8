import type { TracePageData } from "../trace-data";
import type { ServerTraceEvent } from "../trace-event-converter";
import { domRuntime } from "./dom-runtime";
import { formatRuntime } from "./format-runtime";
import { pageShell } from "./page-shell";
import { traceDetailRuntime } from "./trace-detail";
import { traceLayoutRuntime } from "./trace-layout";
import { traceModelRuntime } from "./trace-model";
import { traceSummaryRuntime } from "./trace-summary";
import { tracePageMain } from "./trace-page-main";
import { traceTreeRuntime } from "./trace-tree";

/** A trace page's data as the server holds it: its texts may still have to be cut (`CappedText`). */
export type TracePageSource = Omit<TracePageData, "events"> & { events: (ServerTraceEvent | TracePageData["events"][number])[] };

let script: string | undefined;

/**
 * The trace page's script: the page's self-contained functions, put together. `__name` is defined
 * for compilers that keep function names by wrapping them in it (tsx does).
 *
 * @internal
 */
export function tracePageScript(): string {
  script ??= [
    '"use strict";',
    "var __name = function (target) { return target; };",
    "(function () {",
    `  var dom = (${domRuntime.toString()})();`,
    `  var fmt = (${formatRuntime.toString()})();`,
    `  var model = (${traceModelRuntime.toString()})();`,
    `  var layout = (${traceLayoutRuntime.toString()})(fmt);`,
    `  var summary = (${traceSummaryRuntime.toString()})(fmt, layout);`,
    `  var detail = (${traceDetailRuntime.toString()})(dom, fmt, layout);`,
    `  var tree = (${traceTreeRuntime.toString()})(dom, fmt);`,
    '  var data = JSON.parse(document.getElementById("agentrx-data").textContent);',
    `  (${tracePageMain.toString()})({ dom: dom, fmt: fmt, model: model, layout: layout, summary: summary, detail: detail, tree: tree, data: data, root: document.getElementById("app") });`,
    "})();",
  ].join("\n");
  if (/<\/script/i.test(script)) throw new Error("The trace page's script must not contain </script.");
  return script;
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
    script: tracePageScript(),
    connect: data.mode === "ui",
  });
}
