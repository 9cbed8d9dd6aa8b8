// Runs in the page: bundled into the page's script at build time (scripts/build-page-scripts.mjs).
import type { DomRuntime } from "../trace-page/page/dom-runtime";
import type { FormatRuntime } from "../trace-page/page/format-runtime";
import type { RunListData, RunListItem } from "./run-list-data";

/**
 * The `ui`'s front page: the recorded runs, newest first, filtered by status and thread and
 * searched by words of their input and answer (the store's full-text search; the search is kept in
 * the page's URL, `/?search=...`), refreshed every two seconds. Each run opens its trace page; two
 * runs ticked are compared on the diff page.
 *
 * @internal
 */
export function runListMain(dom: DomRuntime, fmt: FormatRuntime, data: RunListData, root: HTMLElement): void {
  const { h } = dom;
  const statuses = ["", "running", "finished", "failed", "cancelled", "interrupted", "queued"];
  const status = h("select", { attrs: { "aria-label": "Status" } }, ...statuses.map((value) => h("option", { attrs: { value } }, value === "" ? "any status" : value)));
  const thread = h("input", { attrs: { type: "search", placeholder: "thread id", "aria-label": "Thread" } });
  const search = h("input", { attrs: { type: "search", placeholder: "search inputs and answers", "aria-label": "Search the runs' inputs and answers", maxlength: "200", "data-filter": "search" } });
  search.value = data.search ?? "";
  const count = h("span", { class: "muted" });
  /** The ticked runs, in the order they were ticked (kept across refreshes). */
  const selected: string[] = [];
  const compare = h("button", { attrs: { type: "button", "data-action": "compare", disabled: "" } }, "Compare");
  const compareHint = h("span", { class: "muted" });
  const body = h("tbody");
  const columns = ["", "Run", "Thread", "Status", "Stop", "Steps", "Tokens", "Duration", "Started"];
  const table = h("table", { class: "runs" }, h("thead", null, h("tr", null, ...columns.map((name) => h("th", { attrs: { scope: "col" } }, name)))), body);
  const empty = h("p", { class: "empty" });
  dom.append(root, [
    h(
      "header",
      { class: "top" },
      h("h1", { class: "title" }, h("span", null, "AgentRx runs"), h("span", { class: "muted" }, data.source)),
      h("div", { class: "filters" }, search, status, thread, count, compare, compareHint),
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
        h("td", null, h("span", { class: `status ${run.status}` }, run.status)),
        h("td", { attrs: { title: run.error } }, run.stop ?? "–"),
        h("td", { class: "num" }, run.steps !== undefined ? fmt.count(run.steps) : "–"),
        h("td", { class: "num" }, run.tokens !== undefined ? fmt.count(run.tokens) : "–"),
        h("td", { class: "num" }, fmt.duration(run.durationMs)),
        h("td", null, fmt.time(run.createdAt)),
      ];
      const row = h("tr", { attrs: { "data-run-id": run.runId } }, ...cells);
      row.addEventListener("click", (event) => {
        if ((event.target as Element).closest("a, input") === null) link.click();
      });
      body.appendChild(row);
    }
    const filtered = status.value !== "" || thread.value.trim() !== "" || search.value.trim() !== "";
    count.textContent = `${runs.length} run${runs.length === 1 ? "" : "s"}${runs.length === data.limit ? ` (the ${data.limit} newest)` : ""}`;
    empty.textContent = runs.length > 0 ? "" : filtered ? "No runs match these filters." : "No runs recorded yet. Runs are recorded by an executor with a store: new AgentExecutor({ ..., store }).";
    empty.removeAttribute("data-error");
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
  async function refresh(): Promise<void> {
    const mine = ++generation;
    const query = new URLSearchParams({ limit: String(data.limit) });
    if (status.value !== "") query.set("status", status.value);
    if (thread.value.trim() !== "") query.set("thread", thread.value.trim());
    const words = search.value.trim();
    if (words !== "") query.set("search", words);
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

  status.addEventListener("change", () => void refresh());
  thread.addEventListener("input", () => void refresh());
  // Searched once typing pauses (each search asks the store), and kept in the URL for a reload or a link.
  let typing: ReturnType<typeof setTimeout> | undefined;
  search.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      const url = new URL(window.location.href);
      if (search.value.trim() === "") url.searchParams.delete("search");
      else url.searchParams.set("search", search.value.trim());
      window.history.replaceState(null, "", url);
      void refresh();
    }, 250);
  });
  render(data.runs);
  updateCompare();
  setInterval(() => void refresh(), 2000);
}
