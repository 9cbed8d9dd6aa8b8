// Runs in the page: bundled into the page's script at build time (scripts/build-page-scripts.mjs).
import type { DomRuntime } from "../trace-page/page/dom-runtime";
import type { FormatRuntime } from "../trace-page/page/format-runtime";
import { STALLED_STATUS_LABEL, stalledRunHint } from "../trace-page/is-stalled-run";
import { runPagePath } from "../trace-page/run-route";
import type { RunListData, RunListItem } from "./run-list-data";
import { cutText } from "../trace-page/cut-text";

/** The statuses the list can be filtered by, in the order its status control offers them. */
const STATUS_CHOICES = ["running", "finished", "failed", "cancelled", "interrupted", "queued"];

/** How many characters of a run's input its row shows (the whole preview is its cell's tooltip). */
const INPUT_CELL_LENGTH = 60;

/**
 * The `ui`'s front page: the recorded runs, newest first (or last updated, or most expensive, first),
 * with their cost and the start of their input, filtered by status and thread and searched by words of
 * their input and answer (the store's full-text search), refreshed every two seconds. The status
 * control is a list of checkboxes: tick several statuses (failed and interrupted, say) to see the
 * runs of any of them, none for every run. The filters
 * and the sort are the page's URL's (`/?status=failed,interrupted&thread=t1&search=...&sort=cost`):
 * the page starts from them and writes them back when they change, so a reload or a link keeps
 * them. A running run whose lease lapsed shows as `running (stalled)`. Each run opens its trace
 * page; two runs ticked are compared on the diff page.
 *
 * @internal
 */
export function runListMain(dom: DomRuntime, fmt: FormatRuntime, data: RunListData, root: HTMLElement): void {
  const { h } = dom;
  // The status filter: a button-like summary ("any status", "failed or interrupted") that opens
  // one checkbox per status.
  const given = new Set<string>(data.status ?? []);
  const statusBoxes = STATUS_CHOICES.map((value) => {
    const box = h("input", { attrs: { type: "checkbox", value, "data-status-choice": value } });
    box.checked = given.has(value);
    return box;
  });
  const statusSummary = h("summary", { attrs: { title: "Show the runs of these statuses" } });
  const status = h(
    "details",
    { class: "status-filter", attrs: { "data-filter": "status" } },
    statusSummary,
    h("fieldset", { attrs: { "aria-label": "Status" } }, ...statusBoxes.map((box) => h("label", null, box, box.value))),
  );
  /** The statuses ticked, in the control's order, comma-separated ("" for any status). */
  const statusValue = () => statusBoxes.filter((box) => box.checked).map((box) => box.value).join(",");
  const showStatus = () => {
    const value = statusValue();
    statusSummary.textContent = value === "" ? "any status" : value.split(",").join(" or ");
    statusSummary.setAttribute("aria-label", `Status: ${statusSummary.textContent}`);
  };
  showStatus();
  const thread = h("input", { attrs: { type: "search", placeholder: "thread id", "aria-label": "Thread", "data-filter": "thread" } });
  const search = h("input", { attrs: { type: "search", placeholder: "search inputs and answers", "aria-label": "Search the runs' inputs and answers", maxlength: "200", "data-filter": "search" } });
  const sorts: [string, string][] = [["", "newest first"], ["updated", "last updated first"], ["cost", "most expensive first"]];
  const sort = h("select", { attrs: { "aria-label": "Sort", "data-filter": "sort" } }, ...sorts.map(([value, label]) => h("option", { attrs: { value } }, label)));
  // The page starts from the filters the server applied (its URL's), so its refreshes keep them.
  thread.value = data.threadId ?? "";
  search.value = data.search ?? "";
  sort.value = data.sort ?? "";
  const count = h("span", { class: "muted" });
  /** The ticked runs, in the order they were ticked (kept across refreshes). */
  const selected: string[] = [];
  const compare = h("button", { attrs: { type: "button", "data-action": "compare", disabled: "" } }, "Compare");
  const compareHint = h("span", { class: "muted" });
  const body = h("tbody");
  const columns = ["", "Run", "Thread", "Status", "Stop", "Turns", "Tokens", "Cost", "Duration", "Started", "Input"];
  const table = h("table", { class: "runs" }, h("thead", null, h("tr", null, ...columns.map((name) => h("th", { attrs: { scope: "col" } }, name)))), body);
  const empty = h("p", { class: "empty" });
  dom.append(root, [
    h(
      "header",
      { class: "top" },
      h("h1", { class: "title" }, h("span", null, "AgentRx runs"), h("span", { class: "muted" }, data.source)),
      h("div", { class: "filters" }, search, status, thread, sort, count, compare, compareHint),
    ),
    h("div", { class: "list" }, table, empty),
  ]);

  /**
   * Shows `runs`. The list is refreshed every two seconds: a row whose run did not change is kept
   * as it is (the same element), so a link focused in it (a keyboard user going down the list),
   * text selected in it or a click on it are not lost; a row that changed is replaced.
   */
  function render(runs: RunListItem[]): void {
    shown = runs;
    const current = new Map<string, Element>();
    for (const row of Array.from(body.children)) current.set(row.getAttribute("data-run-id") ?? "", row);
    const rows = runs.map((run) => {
      const fresh = rowOf(run);
      const kept = current.get(run.runId);
      return kept !== undefined && kept.isEqualNode(fresh) ? kept : fresh;
    });
    // The rows that go first, then the new ones in their places: a kept row moves only when the order changed.
    const keep = new Set(rows);
    for (const row of Array.from(body.children)) if (!keep.has(row)) row.remove();
    rows.forEach((row, index) => {
      const at = body.children[index];
      if (at !== row) body.insertBefore(row, at ?? null);
    });
    const filtered = statusValue() !== "" || thread.value.trim() !== "" || search.value.trim() !== "";
    const which = sort.value === "cost" ? "most expensive" : sort.value === "updated" ? "last updated" : "newest";
    count.textContent = `${runs.length} run${runs.length === 1 ? "" : "s"}${runs.length === data.limit ? ` (the ${data.limit} ${which})` : ""}`;
    empty.textContent = runs.length > 0 ? "" : filtered ? "No runs match these filters." : "No runs recorded yet. Runs are recorded by an executor with a store: new AgentExecutor({ ..., store }).";
    empty.removeAttribute("data-error");
  }

  /** A run's row (its tick kept across refreshes in `selected`). */
  function rowOf(run: RunListItem): HTMLElement {
    const link = h("a", { attrs: { href: runPagePath(run.runId) } }, run.runId);
    const tick = h("input", { attrs: { type: "checkbox", "aria-label": `Select ${run.runId} to compare`, "data-select": run.runId } });
    tick.checked = selected.includes(run.runId);
    tick.addEventListener("change", () => {
      const at = selected.indexOf(run.runId);
      if (tick.checked && at === -1) selected.push(run.runId);
      if (!tick.checked && at !== -1) selected.splice(at, 1);
      updateCompare();
    });
    const cells = [
      h("td", null, tick),
      h("td", { class: "mono" }, link),
      h("td", null, run.threadId ?? "–"),
      h("td", null, statusBadge(run)),
      h("td", { attrs: { title: run.error } }, run.stop ?? "–"),
      h("td", { class: "num" }, run.steps !== undefined ? fmt.count(run.steps) : "–"),
      h("td", { class: "num" }, run.tokens !== undefined ? fmt.count(run.tokens) : "–"),
      // No price for any of its model calls: unknown, not free (a cost sort counts it as 0); calls
      // without a price are counted (`$0.0213 + 2 unpriced`, docs/cost.md#calls-without-a-price).
      h("td", { class: "num", attrs: { "data-cost": "" } }, fmt.costWithUnpriced(run.cost !== undefined ? fmt.usd(run.cost) : undefined, run.unpricedCalls) ?? "–"),
      h("td", { class: "num" }, fmt.duration(run.durationMs)),
      h("td", null, fmt.time(run.createdAt)),
      h("td", { class: "input", attrs: { title: run.input, "data-input": "" } }, inputCell(run.input)),
    ];
    const row = h("tr", { attrs: { "data-run-id": run.runId } }, ...cells);
    row.addEventListener("click", (event) => {
      if ((event.target as Element).closest("a, input") === null) link.click();
    });
    return row;
  }

  /** A run's status; a stalled run's says why it is stalled and how to resume it (its tooltip). */
  function statusBadge(run: RunListItem): HTMLElement {
    if (run.stalled !== true) return h("span", { class: `status ${run.status}` }, run.status);
    return h("span", { class: `status ${run.status} stalled`, attrs: { title: stalledRunHint(run.runId), "data-stalled": "" } }, STALLED_STATUS_LABEL);
  }

  /** The start of a run's input on one line, cut to {@link INPUT_CELL_LENGTH} characters. */
  function inputCell(text: string | undefined): string {
    const line = (text ?? "").replace(/\s+/g, " ").trim();
    if (line === "") return "–";
    return line.length > INPUT_CELL_LENGTH ? `${cutText(line, INPUT_CELL_LENGTH - 1)}…` : line;
  }

  /** What the server refused in the filters (a search without a word, say): no runs, and why. */
  function refused(message: string): void {
    render([]);
    count.textContent = "";
    empty.textContent = message;
    empty.setAttribute("data-error", "");
  }

  /** Enables Compare for exactly two ticked runs. */
  function updateCompare(): void {
    compare.disabled = selected.length !== 2;
    compare.style.opacity = compare.disabled ? "0.5" : "";
    compare.style.cursor = compare.disabled ? "default" : "";
    compareHint.textContent = selected.length === 0 ? "tick two runs to compare them" : selected.length === 1 ? "tick one more run" : selected.length === 2 ? "" : "tick only two runs";
  }

  compare.addEventListener("click", () => {
    if (selected.length !== 2) return;
    // The older run is a (a fork is newer than the run it was forked from).
    const created = new Map(shown.map((run) => [run.runId, run.createdAt]));
    const [a, b] = [...selected].sort((x, y) => (created.get(x) ?? 0) - (created.get(y) ?? 0));
    window.location.href = `/diff?${new URLSearchParams({ a: a as string, b: b as string }).toString()}`;
  });

  let shown: RunListItem[] = data.runs;
  let generation = 0;
  /** The filters in the controls, as the query's parameters (absent when empty). */
  function filters(): [string, string | undefined][] {
    return [
      ["status", statusValue() || undefined],
      // As typed: the server takes a thread id as it is, so " support" is not "support".
      ["thread", thread.value.trim() === "" ? undefined : thread.value],
      ["search", search.value.trim() || undefined],
      ["sort", sort.value || undefined],
    ];
  }

  /** Writes the filters into the page's URL (its other parameters, `limit`, stay), for a reload or a link. */
  function keepInUrl(): void {
    const url = new URL(window.location.href);
    for (const [name, value] of filters()) {
      if (value === undefined) url.searchParams.delete(name);
      else url.searchParams.set(name, value);
    }
    if (url.href !== window.location.href) window.history.replaceState(null, "", url);
  }

  async function refresh(): Promise<void> {
    const mine = ++generation;
    const query = new URLSearchParams({ limit: String(data.limit) });
    for (const [name, value] of filters()) if (value !== undefined) query.set(name, value);
    try {
      const response = await fetch(`/api/runs?${query.toString()}`);
      const next = (await response.json()) as Partial<RunListData> & { error?: string };
      if (mine !== generation) return;
      if (!response.ok) refused(next.error ?? `The server answered ${response.status}.`);
      else if (Array.isArray(next.runs)) render(next.runs);
    } catch {
      count.textContent = "the server is not answering";
    }
  }

  const changed = () => {
    keepInUrl();
    void refresh();
  };
  for (const box of statusBoxes) {
    box.addEventListener("change", () => {
      showStatus();
      changed();
    });
  }
  // The status list closes as a menu does: on Escape, or a click elsewhere.
  status.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !status.open) return;
    status.open = false;
    statusSummary.focus();
  });
  document.addEventListener("click", (event) => {
    if (status.open && !status.contains(event.target as Node)) status.open = false;
  });
  sort.addEventListener("change", changed);
  thread.addEventListener("input", changed);
  // Searched once typing pauses (each search asks the store).
  let typing: ReturnType<typeof setTimeout> | undefined;
  search.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(changed, 250);
  });
  render(data.runs);
  updateCompare();
  setInterval(() => void refresh(), 2000);
}
