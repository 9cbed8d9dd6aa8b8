import { pageShell } from "../trace-page/page/page-shell";
import type { RunListData } from "./run-list-data";
import { RUN_LIST_SCRIPT } from "../page-scripts/page-scripts.generated";

/**
 * The `ui`'s front page: the runs, drawn by the page's script from its embedded data (as text).
 *
 * @internal
 */
export function runListHtml(data: RunListData): string {
  return pageShell({ title: `AgentRx runs · ${data.source}`, data, script: RUN_LIST_SCRIPT, connect: true });
}
