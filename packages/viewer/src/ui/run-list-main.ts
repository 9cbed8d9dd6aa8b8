// Runs in the page: bundled into the page's script at build time (scripts/build-page-scripts.mjs).
import type { DomRuntime } from "../trace-page/page/dom-runtime";
import type { FormatRuntime } from "../trace-page/page/format-runtime";
import { STALLED_STATUS_LABEL, stalledRunHint } from "../trace-page/is-stalled-run";
import type { RunListData, RunListItem } from "./run-list-data";

/** How many characters of a run's input its row shows (the whole preview is its cell's tooltip). */
const INPUT_CELL_LENGTH = 60;

/**
 * The `ui`'s front page: the recorded runs, newest first (or last updated, or most expensive, first),
 * with their cost and the start of their input, filtered by status and thread and searched by words of
 * their input and answer (the store's full-text search), refreshed every two seconds. The filters
 * and the sort are the page's URL's (`/?status=failed&thread=t1&search=...&sort=cost`):
 * the page starts from them and writes them back when they change, so a reload or a link keeps
 * them. A running run whose lease lapsed shows as `running (stalled)`. Each run opens its trace
 * page; two runs ticked are compared on the diff page.
 *
 * @internal
 */
export function runListMain(dom: DomRuntime, fmt: FormatRuntime, data: RunListData, root: HTMLElement): void {
  const { h } = dom;
  const statuses = ["", "running", "finished", "failed", "cancelled", "interrupted", "queued"];
  // Several statuses (`?status=failed,cancelled`, from a link) get an option of their own.
  const given = (data.status ?? []).join(",");
  if (!statuses.includes(given)) statuses.push(given);
  const status = h("select", { attrs: { "aria-label": "Status", "data-filter": "status" } }, ...statuses.map((value) => h("option", { attrs: { value } }, value === "" ? "any status" : value.split(",").join(" or "))));
  const thread = h("input", { attrs: { type: "search", placeholder: "thread id", "aria-label": "Thread", "data-filter": "thread" } });
  const search = h("input", { attrs: { type: "search", placeholder: "search inputs and answers", "aria-label": "Search the runs' inputs and answers", maxlength: "200", "data-filter": "search" } });
  const sorts: [string, string][] = [["", "newest first"], ["updated", "last updated first"], ["cost", "most expensive first"]];
  const sort = h("select", { attrs: { "aria-label": "Sort", "data-filter": "sort" } }, ...sorts.map(([value, label]) => h("option", { attrs: { value } }, label)));
  // The page starts from the filters the server applied (its URL's), so its refreshes keep them.
  status.value = given;
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

  function render(runs: RunListItem[]): void {
    shown = runs;
    dom.clear(body);
    for (const run of runs) {
      const link = h("a", { attrs: { href: `/runs/${encodeURIComponent(run.runId)}` } }, run.runId);
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
        // No price for any of its model calls: unknown, not free (a cost sort counts it as 0).
        h("td", { class: "num", attrs: { "data-cost": "" } }, run.cost !== undefined ? fmt.usd(run.cost) : "–"),
        h("td", { class: "num" }, fmt.duration(run.durationMs)),
        h("td", null, fmt.time(run.createdAt)),
        h("td", { class: "input", attrs: { title: run.input, "data-input": "" } }, inputCell(run.input)),
      ];
      const row = h("tr", { attrs: { "data-run-id": run.runId } }, ...cells);
      row.addEventListener("click", (event) => {
        if ((event.target as Element).closest("a, input") === null) link.click();
      });
      body.appendChild(row);
    }
    const filtered = status.value !== "" || thread.value.trim() !== "" || search.value.trim() !== "";
    const which = sort.value === "cost" ? "most expensive" : sort.value === "updated" ? "last updated" : "newest";
    count.textContent = `${runs.length} run${runs.length === 1 ? "" : "s"}${runs.length === data.limit ? ` (the ${data.limit} ${which})` : ""}`;
    empty.textContent = runs.length > 0 ? "" : filtered ? "No runs match these filters." : "No runs recorded yet. Runs are recorded by an executor with a store: new AgentExecutor({ ..., store }).";
    empty.removeAttribute("data-error");
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
    return line.length > INPUT_CELL_LENGTH ? `${line.slice(0, INPUT_CELL_LENGTH - 1)}…` : line;
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
      ["status", status.value || undefined],
      ["thread", thread.value.trim() || undefined],
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
  status.addEventListener("change", changed);
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
