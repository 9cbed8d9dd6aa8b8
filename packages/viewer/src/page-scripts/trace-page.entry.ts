// The trace page's script, bundled into a string at build time (scripts/build-page-scripts.mjs):
// it reads the page's embedded data and draws the run.
import { domRuntime } from "../trace-page/page/dom-runtime";
import { traceActionsRuntime } from "../trace-page/page/trace-actions";
import { formatRuntime } from "../trace-page/page/format-runtime";
import { traceDetailRuntime } from "../trace-page/page/trace-detail";
import { traceLayoutRuntime } from "../trace-page/page/trace-layout";
import { traceModelRuntime } from "../trace-page/page/trace-model";
import { tracePageMain } from "../trace-page/page/trace-page-main";
import { traceSummaryRuntime } from "../trace-page/page/trace-summary";
import { traceTreeRuntime } from "../trace-page/page/trace-tree";
import { readPageData } from "./read-page-data";

const dom = domRuntime();
const fmt = formatRuntime();
const layout = traceLayoutRuntime(fmt);
tracePageMain({
  dom,
  fmt,
  model: traceModelRuntime(),
  layout,
  summary: traceSummaryRuntime(fmt, layout),
  detail: traceDetailRuntime(dom, fmt, layout),
  tree: traceTreeRuntime(dom, fmt),
  actions: traceActionsRuntime(dom),
  data: readPageData(),
  root: document.getElementById("app") as HTMLElement,
});
