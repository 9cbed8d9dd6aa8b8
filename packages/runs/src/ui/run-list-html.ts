import { domRuntime, formatRuntime, pageShell } from "@agentrx/executors/trace-page";
import type { RunListData } from "./run-list-data";
import { runListMain } from "./run-list-main";

let script: string | undefined;

/**
 * The `ui`'s front page: the runs, drawn by the page's script from its embedded data (as text).
 *
 * @internal
 */
export function runListHtml(data: RunListData): string {
  script ??= [
    '"use strict";',
    "var __name = function (target) { return target; };",
    "(function () {",
    `  var dom = (${domRuntime.toString()})();`,
    `  var fmt = (${formatRuntime.toString()})();`,
    '  var data = JSON.parse(document.getElementById("agentrx-data").textContent);',
    `  (${runListMain.toString()})(dom, fmt, data, document.getElementById("app"));`,
    "})();",
  ].join("\n");
  return pageShell({ title: `AgentRx runs · ${data.source}`, data, script, connect: true });
}
