// Runs in the page: bundled into the page's script at build time (scripts/build-page-scripts.mjs).
import type { TracePageData, TraceUpdate } from "../trace-data";
import type { DomRuntime } from "./dom-runtime";
import type { FormatRuntime } from "./format-runtime";
import type { TraceDetailContext, TraceDetailRuntime } from "./trace-detail";
import type { TraceLayoutRuntime, TraceRow } from "./trace-layout";
import type { TraceCopiedPrefix, TraceSummary, TraceSummaryRuntime } from "./trace-summary";
import type { TraceModelRuntime } from "./trace-model";
import type { TraceActionsRuntime } from "./trace-actions";
import type { traceTreeRuntime } from "./trace-tree";
import { STALLED_STATUS_LABEL, stalledRunHint } from "../is-stalled-run";
import { runApiPath, runPagePath } from "../run-route";

/** What the trace page's script is given. */
export interface TracePageParts {
  dom: DomRuntime;
  fmt: FormatRuntime;
  model: TraceModelRuntime;
  layout: TraceLayoutRuntime;
  summary: TraceSummaryRuntime;
  detail: TraceDetailRuntime;
  tree: ReturnType<typeof traceTreeRuntime>;
  actions: TraceActionsRuntime;
  data: TracePageData;
  root: HTMLElement;
}

/**
 * The trace page: header (status, stop reason, tokens, wall time, counts, where the time went, the
 * slowest tool call, a notice naming the events that could not be read), the waterfall tree, the detail pane and a legend. In the `ui`, a run still in
 * progress follows its record through Server-Sent Events.
 *
 * @internal
 */
export function tracePageMain(parts: TracePageParts): void {
  const { dom, fmt, layout, detail, data, root } = parts;
  const { h } = dom;
  const trace = parts.model.createTrace(data.run, data.requestParts);
  parts.model.applyEvents(trace, data.events);
  const runPath = runApiPath(data.run.runId);
  const context: TraceDetailContext = { mode: data.mode };
  if (data.mode === "ui") {
    context.fetchText = async (seq, field) => {
      const response = await fetch(`${runPath}/text?seq=${seq}&field=${encodeURIComponent(field)}`);
      const body = (await response.json()) as { text?: string; error?: string };
      if (!response.ok || typeof body.text !== "string") throw new Error(body.error ?? `HTTP ${response.status}`);
      return body.text;
    };
  }

  const header = h("header", { class: "top" });
  // The header is drawn again with the run (every second while it runs), but each of its parts is
  // replaced only when what it shows changed (see `patch`): a link or button focused in it, text
  // selected in it and its live regions stay. The actions bar (what is chosen, typed or focused in
  // it, and what an action said, are kept) and the live-update notice (changed only when its
  // message does) are kept apart.
  const headTop = h("div");
  const actionsSlot = h("div");
  const liveNotice = h("div", { attrs: { role: "status", "data-fact": "live" } });
  const headBottom = h("div");
  dom.append(header, [headTop, actionsSlot, liveNotice, headBottom]);
  let actionsBar: { element: HTMLElement; iterations: number } | undefined;
  // No live region: the pane is redrawn on every selection and, for a running step, with the clock,
  // so a screen reader would read it again and again. Selecting a row focuses it, which is read.
  const detailPane = h("aside", { class: "detail", attrs: { "aria-label": "Details of the selected step" } });
  let detailKey = "";
  /** The pane as last drawn, before the user changed it (a long text shown whole, say): to tell whether a redraw would change it. */
  let detailDrawn: Node | undefined;
  const showDetail = (row: TraceRow, force: boolean) => {
    const key = `${row.id}|${row.state}|${row.end ?? ""}|${trace.lastSeq}`;
    if (!force && key === detailKey) return;
    detailKey = key;
    // A live run's new events (a token every few hundred milliseconds) redraw the pane only when
    // they change what it shows: a long text shown whole, the pane's scroll and the text selected
    // in it stay while the user reads an earlier call.
    const fresh = h("div");
    detail.render(fresh, row, trace, context);
    if (!force && detailDrawn !== undefined && fresh.isEqualNode(detailDrawn)) return;
    detailDrawn = fresh.cloneNode(true);
    dom.clear(detailPane);
    while (fresh.firstChild) detailPane.appendChild(fresh.firstChild);
  };
  const tree = parts.tree.createTree({ onSelect: (row) => showDetail(row, true) });
  const swatch = (color: string, extra = "") => h("span", { class: "swatch", style: { background: color, ...(extra ? { border: extra } : {}) } });
  const legend = h(
    "footer",
    { class: "legend" },
    h("span", null, swatch("var(--model-wait)"), "model: waiting for the first token"),
    h("span", null, swatch("var(--model)"), "model: replying"),
    h("span", null, swatch("var(--tool)"), "tool call"),
    h("span", null, swatch("var(--warn)"), "retried or timed out"),
    h("span", null, swatch("var(--fail)"), "failed"),
    h("span", null, swatch("var(--cached)"), "cached"),
    h("span", null, swatch("var(--running)"), "running"),
    h("span", null, "↑ ↓ move · → ← open, close · + − 0 z zoom · Shift+← → or drag: pan"),
  );
  dom.append(root, [header, h("div", { class: "body" }, tree.element, detailPane), legend]);

  function fact(name: string, key: string, value: string): HTMLElement {
    return h("div", { attrs: { "data-fact": key } }, h("dt", null, name), h("dd", null, value));
  }

  /**
   * The run's cost, saying how many calls it leaves out (`$0.0042 + 2 unpriced`, or `2 unpriced`
   * when none was priced; hover for their model), or nothing when the run was not priced. A model
   * without a price (a local model, a name the prices do not know) costs nothing here: see
   * docs/cost.md#calls-without-a-price.
   */
  function costFact(summary: TraceSummary): HTMLElement | null {
    const text = fmt.costWithUnpriced(summary.cost === undefined ? undefined : fmt.usd(summary.cost), summary.unpriced?.calls);
    if (text === undefined) return null;
    const element = fact("Cost", "cost", text);
    const unpriced = summary.unpriced;
    if (unpriced !== undefined) {
      const calls = `${fmt.count(unpriced.calls)} model call${unpriced.calls === 1 ? "" : "s"}`;
      const models = unpriced.models.length > 0 ? ` (${unpriced.models.join(", ")})` : "";
      const what = summary.cost === undefined ? `No model call was priced: ${calls}` : `The cost leaves out ${calls}`;
      element.setAttribute("title", `${what} whose model${models} had no price: give it one in the executor's prices.`);
    }
    return element;
  }

  /**
   * A fork's copied prefix, apart from the figures above (the run it was forked from made those
   * calls): which run, which iterations, and what they held and cost. In the ui, the run is a link.
   */
  function copiedLine(copied: TraceCopiedPrefix): HTMLElement {
    const source = data.mode === "ui" ? h("a", { attrs: { href: runPagePath(copied.runId), "data-fork-source": "" } }, copied.runId) : h("code", null, copied.runId);
    return h(
      "div",
      { class: "copied", attrs: { "data-fact": "copied" } },
      h("span", { class: "muted" }, "Forked from"),
      source,
      h("span", null, parts.summary.copiedText(copied)),
      copied.iteration === 0 ? null : h("span", { class: "muted" }, "(that run's work, not counted above)"),
    );
  }

  /** The run's status; a stalled run's says why it is stalled and how to resume it (its tooltip). */
  function statusBadge(status: string): HTMLElement {
    if (trace.run.stalled !== true || status !== "running") return h("span", { class: `status ${status}`, attrs: { "data-status": status } }, status);
    return h("span", { class: `status ${status} stalled`, attrs: { "data-status": status, "data-stalled": "", title: stalledRunHint(data.run.runId) } }, STALLED_STATUS_LABEL);
  }

  /** Why the page no longer follows the run live (the stream failed or was refused), while it says so. */
  let liveProblem: string | undefined;

  /**
   * Puts the actions bar in its place, made again only when the run has more iterations to fork
   * from (the iteration chosen stays chosen), and not while an action runs or says it failed.
   */
  function showActions(actions: NonNullable<TracePageData["actions"]>): void {
    const kept = actionsBar;
    const iterations = trace.iterations.length;
    if (kept !== undefined && (kept.iterations === iterations || kept.element.querySelector("button:disabled, .error-text") !== null)) return;
    const element = parts.actions.render(actions, iterations, parts.actions.poster(runPath, actions.token));
    const chosen = kept?.element.querySelector<HTMLSelectElement>('[data-field="fork-at"]')?.value;
    const at = element.querySelector<HTMLSelectElement>('[data-field="fork-at"]');
    if (at !== null && chosen !== undefined && chosen !== String(kept?.iterations)) at.value = chosen;
    actionsBar = { element, iterations };
    dom.clear(actionsSlot);
    actionsSlot.appendChild(element);
  }

  function renderHeader(summary: TraceSummary): void {
    const title = h(
      "h1",
      { class: "title" },
      data.mode === "ui" ? h("a", { attrs: { href: "/" } }, "← Runs") : null,
      h("span", null, "Run"),
      h("code", null, data.run.runId),
      statusBadge(summary.status),
      trace.run.threadId ? h("span", { class: "muted" }, `thread ${trace.run.threadId}`) : null,
      h("span", { class: "muted" }, `${data.source} · ${fmt.time(layout.startedAt(trace))}`),
    );
    const tokens = summary.tokens ? `${fmt.count(summary.tokens.total)}` : "–";
    const facts = h(
      "dl",
      { class: "facts" },
      fact("Stop reason", "stop-reason", summary.stopReason ?? "–"), // a running run has none yet: its status says it runs
      fact("Tokens", "tokens", tokens),
      costFact(summary),
      fact("Wall time", "wall-time", fmt.duration(summary.wallMs)),
      fact("Iterations", "iterations", fmt.count(summary.iterations)),
      fact("Model calls", "model-calls", fmt.count(summary.modelCalls)),
      fact("Tool calls", "tool-calls", fmt.count(summary.toolCalls)),
    );
    if (summary.tokens) facts.children[1]?.setAttribute("title", `${fmt.count(summary.tokens.input)} in, ${fmt.count(summary.tokens.output)} out${summary.copied?.tokens ? ` (this run's own; the copied prefix's ${fmt.count(summary.copied.tokens.total)} are not counted)` : ""}`);
    const whole = Math.max(1, summary.modelMs + summary.toolMs + summary.otherMs);
    const share = (ms: number) => `${Math.round((ms / whole) * 100)}%`;
    const split = h(
      "div",
      { class: "split", attrs: { "data-fact": "time-split" } },
      h("span", { class: "muted" }, "Where the time went"),
      h(
        "span",
        { class: "split-bar", attrs: { role: "img", "aria-label": `model ${share(summary.modelMs)}, tools ${share(summary.toolMs)}, other ${share(summary.otherMs)}` } },
        h("span", { style: { width: share(summary.modelMs), background: "var(--model)" } }),
        h("span", { style: { width: share(summary.toolMs), background: "var(--tool)" } }),
      ),
      h(
        "span",
        { class: "split-legend" },
        h("span", null, swatch("var(--model)"), `model ${fmt.duration(summary.modelMs)} (${share(summary.modelMs)})`),
        h("span", null, swatch("var(--tool)"), `tools ${fmt.duration(summary.toolMs)} (${share(summary.toolMs)})`),
        h("span", null, swatch("var(--gap)"), `other ${fmt.duration(summary.otherMs)}`),
      ),
    );
    const top: HTMLElement[] = [title, facts, split];
    if (summary.copied !== undefined) top.push(copiedLine(summary.copied));
    // A fork served by the ui links to its diff against the run it was forked from.
    const parent = data.run.forkOf;
    if (data.mode === "ui" && parent !== undefined) {
      const href = `/diff?${new URLSearchParams({ a: parent.runId, b: data.run.runId }).toString()}`;
      top.push(h("a", { class: "compare-parent", attrs: { href, "data-compare-parent": "" } }, `Compare with parent run ${parent.runId}`));
    }
    patch(headTop, top);
    // A fork's `at` counts the record's iterations, the copied ones too.
    if (data.mode === "ui" && data.actions !== undefined) showActions(data.actions);
    if ((liveProblem ?? "") !== liveNotice.textContent) {
      dom.clear(liveNotice);
      liveNotice.className = liveProblem === undefined ? "" : "notice";
      if (liveProblem !== undefined) liveNotice.appendChild(h("strong", null, liveProblem));
    }
    const bottom: HTMLElement[] = [];
    if (summary.unreadable.length > 0) {
      const count = summary.unreadable.length;
      const links = summary.unreadable.slice(0, 20).map((seq) => {
        const button = h("button", { attrs: { type: "button", "data-target": `event-${seq}` } }, `event ${seq}`);
        button.addEventListener("click", () => tree.select(`event-${seq}`, true));
        return button;
      });
      bottom.push(
        h(
          "div",
          { class: "notice", attrs: { role: "status", "data-fact": "unreadable" } },
          h("strong", null, `${fmt.count(count)} event${count === 1 ? "" : "s"} of this run could not be read`),
          h("span", { class: "muted" }, "the record is damaged there; the rest is shown as recorded"),
          ...links,
          count > links.length ? h("span", { class: "muted" }, `and ${fmt.count(count - links.length)} more`) : null,
        ),
      );
    }
    if (summary.slowest !== undefined) {
      const slowest = summary.slowest;
      const button = h("button", { attrs: { type: "button", "data-target": slowest.id } }, `${slowest.tool} ${slowest.input}`);
      button.addEventListener("click", () => tree.select(slowest.id, true));
      bottom.push(h("div", { class: "slowest", attrs: { "data-fact": "slowest" } }, h("span", { class: "muted" }, "Slowest tool call"), button, h("strong", null, fmt.duration(slowest.durationMs))));
    }
    patch(headBottom, bottom);
  }

  /**
   * Shows `parts` in `slot`, in order, keeping each element already there that is the same as its
   * new one (`isEqualNode`: the same markup and text): the header is drawn again every second
   * while the run runs, and what has not changed must not flicker, lose focus or the text selected
   * in it, or be read again by a screen reader. The new parts' click handlers only act on what
   * their markup shows (a `data-target`), so keeping the old element keeps what it does.
   */
  function patch(slot: HTMLElement, parts: HTMLElement[]): void {
    parts.forEach((part, index) => {
      const current = slot.children[index];
      if (current === undefined) slot.appendChild(part);
      else if (!current.isEqualNode(part)) slot.replaceChild(part, current);
    });
    while (slot.children.length > parts.length) slot.lastElementChild?.remove();
  }

  function render(): void {
    // A file shows the run as it was when the file was made, whenever it is opened.
    const now = data.mode === "ui" || typeof data.generatedAt !== "number" ? Date.now() : data.generatedAt;
    const rows = layout.rows(trace, now);
    renderHeader(parts.summary.summary(trace, rows, now));
    tree.update(rows, parts.summary.scale(trace, now));
    const selected = tree.selected();
    if (selected !== undefined) showDetail(selected, false);
    document.title = `${trace.run.status} · run ${data.run.runId} · AgentRx`;
  }

  render();
  tree.select("run", false);

  // A stalled run is followed too: another process may resume it.
  if (data.mode !== "ui" || (trace.run.status !== "running" && trace.run.status !== "queued")) return;
  let scheduled = false;
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setTimeout(() => {
      scheduled = false;
      render();
    }, 100);
  };
  const ticker = setInterval(schedule, 1000); // running bars grow with the clock
  const source = new EventSource(`${runPath}/events?after=${trace.lastSeq}`);
  source.addEventListener("update", (event) => {
    parts.model.applyUpdate(trace, JSON.parse((event as MessageEvent<string>).data) as TraceUpdate);
    liveProblem = undefined;
    schedule();
  });
  // The server could not read the run's record: it ends the stream, and the browser asks again.
  source.addEventListener("failure", (event) => {
    const { error } = JSON.parse((event as MessageEvent<string>).data) as { error?: string };
    liveProblem = `Live updates failed: ${error ?? "the server could not read the run"}. Retrying…`;
    schedule();
  });
  source.addEventListener("error", () => {
    if (source.readyState === EventSource.CLOSED) {
      // Refused for good (the run is gone, the server answers otherwise): stop drawing it as it runs.
      clearInterval(ticker);
      liveProblem = "Live updates stopped: the server refused to stream this run (was it deleted?). Reload the page to try again.";
    } else liveProblem ??= "Live updates interrupted: reconnecting to the server…";
    schedule();
  });
  source.addEventListener("end", () => {
    source.close();
    clearInterval(ticker);
    // What can be done next (a pause's decisions, a resume) is the server's to say: ask it again.
    if (data.actions !== undefined) location.reload();
    else schedule();
  });
}
