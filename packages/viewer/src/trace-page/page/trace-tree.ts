// Runs in the page: bundled into the page's script at build time (scripts/build-page-scripts.mjs).
import type { DomRuntime } from "./dom-runtime";
import type { FormatRuntime } from "./format-runtime";
import type { TraceRow } from "./trace-layout";
import type { TraceScale } from "./trace-summary";

/** Callbacks of the tree. */
export interface TraceTreeOptions {
  /** A row was selected (by click, keyboard or `select`). */
  onSelect: (row: TraceRow) => void;
}

/** The waterfall tree of a trace page. */
export type TraceTree = ReturnType<ReturnType<typeof traceTreeRuntime>["createTree"]>;

/**
 * The waterfall: one row per tree node (run → iterations → model calls and tool calls → steps),
 * each with its bar on one shared clock. An ARIA tree: arrow keys move and open or close nodes,
 * Home and End jump, Enter and Space open or close; the selected row is the one that has focus.
 *
 * @internal
 */
export function traceTreeRuntime(dom: DomRuntime, fmt: FormatRuntime) {
  const { h } = dom;

  function createTree(options: TraceTreeOptions) {
    const axis = h("div", { class: "axis", attrs: { "aria-hidden": "true" } });
    const head = h("div", { class: "wf-head" }, h("div", { class: "name" }, "Step"), axis);
    const tree = h("div", { class: "tree", attrs: { role: "tree", "aria-label": "Run steps and their timeline" } });
    const element = h("section", { class: "waterfall", attrs: { "aria-label": "Timeline" } }, head, tree);
    let rows: TraceRow[] = [];
    let byId = new Map<string, TraceRow>();
    const opened = new Map<string, boolean>(); // the user's choices, over the rows' defaults
    let selectedId = "run";
    let visible: TraceRow[] = [];
    let scale: TraceScale | undefined;

    const isOpen = (row: TraceRow) => opened.get(row.id) ?? !row.collapsed;

    function computeVisible(): TraceRow[] {
      const shown = new Set<string>();
      const out: TraceRow[] = [];
      for (const row of rows) {
        const parent = row.parentId === undefined ? undefined : byId.get(row.parentId);
        if (parent !== undefined && (!shown.has(parent.id) || !isOpen(parent))) continue;
        shown.add(row.id);
        out.push(row);
      }
      return out;
    }

    function pct(value: number): string {
      return `${(value * 100).toFixed(3)}%`;
    }

    function barOf(row: TraceRow, s: TraceScale): HTMLElement[] {
      const out: HTMLElement[] = [];
      const slowest = row.badges.includes("slowest");
      if (row.start !== undefined && row.end !== undefined) {
        const x0 = s.x(row.start);
        const x1 = Math.max(s.x(row.end), x0);
        const duration = row.end - row.start;
        const kind = row.kind === "model" ? "model" : row.kind === "tool" ? "tool" : "span";
        const classes = ["bar", kind];
        if (kind !== "span" && row.state !== "ok") classes.push(row.state);
        if (slowest) classes.push("slowest");
        const bar = h("span", {
          class: classes.join(" "),
          attrs: { title: `${row.label} · ${fmt.duration(duration)} · from +${fmt.duration(row.start - s.start)}`, "data-start": String(row.start), "data-end": String(row.end) },
          style: { left: pct(x0), width: pct(x1 - x0) },
        });
        if (row.kind === "model" && row.firstTokenAt !== undefined && duration > 0) {
          const wait = Math.min(1, Math.max(0, (row.firstTokenAt - row.start) / duration));
          dom.append(bar, [h("span", { class: "wait", style: { width: pct(wait) } }), h("span", { class: "ttft", attrs: { title: `first token after ${fmt.duration(row.firstTokenAt - row.start)}` }, style: { left: pct(wait) } })]);
        }
        out.push(bar);
        if ((kind !== "span" || row.kind === "run" || row.kind === "iteration") && !(row.kind === "tool" && row.state === "none")) {
          const label = h("span", { class: slowest ? "dur slowest" : "dur" }, row.state === "running" ? `${fmt.duration(duration)}…` : fmt.duration(duration));
          label.style.left = `calc(${pct(x1)} + 6px)`; // the track keeps room for it on its right
          out.push(label);
        }
      } else if (row.at !== undefined) {
        out.push(h("span", { class: "point", attrs: { title: `+${fmt.duration(row.at - s.start)}` }, style: { left: pct(s.x(row.at)) } }));
      }
      return out;
    }

    function rowElement(row: TraceRow, s: TraceScale): HTMLElement {
      const hasChildren = row.childIds.length > 0;
      const open = isOpen(row);
      const twisty = h("span", { class: "twisty", attrs: { "aria-hidden": "true" } }, hasChildren ? (open ? "▾" : "▸") : "");
      const kindLabel = { run: "run", segment: "resume", iteration: "iter", model: "model", tool: "tool", step: "result", answer: "answer", event: "event" }[row.kind];
      const chips = row.badges
        .filter((badge) => !(row.kind === "run" && badge === row.badges[0]))
        .map((badge) => h("span", { class: `chip ${badge === "slowest" ? "slowest" : badge === "failed" || badge === "unreadable" ? "failed" : /attempts|timed out/.test(badge) ? "warn" : ""}` }, badge));
      const element = h(
        "div",
        {
          class: "row",
          attrs: {
            role: "treeitem",
            id: `row-${row.id}`,
            "data-id": row.id,
            "data-kind": row.kind,
            "aria-level": String(row.depth + 1),
            "aria-selected": row.id === selectedId ? "true" : "false",
            "aria-expanded": hasChildren ? String(open) : undefined,
            tabindex: row.id === selectedId ? "0" : "-1",
          },
        },
        h(
          "div",
          { class: "name", style: { "padding-left": `${6 + row.depth * 16}px` } },
          twisty,
          h("span", { class: `kind ${row.kind}` }, kindLabel),
          h("span", { class: "label" }, row.label),
          ...chips,
          h("span", { class: row.kind === "tool" || row.kind === "run" ? "note mono" : "note" }, row.note),
        ),
        h("div", { class: "track" }, ...barOf(row, s)),
      );
      twisty.addEventListener("click", (event) => {
        event.stopPropagation();
        toggle(row);
      });
      return element;
    }

    function draw(): void {
      if (scale === undefined) return;
      const s = scale;
      visible = computeVisible();
      if (!visible.some((row) => row.id === selectedId)) selectedId = visible[0]?.id ?? "run";
      const hadFocus = tree.contains(document.activeElement);
      const fragment = document.createDocumentFragment();
      for (const row of visible) fragment.appendChild(rowElement(row, s));
      dom.clear(tree);
      tree.appendChild(fragment);
      dom.clear(axis);
      for (const tick of s.ticks) axis.appendChild(h("span", { style: { left: pct(tick.x) } }, tick.label));
      for (const gap of s.breaks) axis.appendChild(h("span", { class: "muted", attrs: { title: gap.label }, style: { left: pct(gap.x + gap.width / 2) } }, "⋯"));
      if (hadFocus) (document.getElementById(`row-${selectedId}`) as HTMLElement | null)?.focus({ preventScroll: true });
    }

    function update(nextRows: TraceRow[], nextScale: TraceScale): void {
      rows = nextRows;
      byId = new Map(rows.map((row) => [row.id, row]));
      scale = nextScale;
      draw();
    }

    function select(id: string, focus: boolean): void {
      const row = byId.get(id);
      if (row === undefined) return;
      // Open the row's ancestors so it is visible.
      for (let parent = row.parentId; parent !== undefined; parent = byId.get(parent)?.parentId) if (!isOpen(byId.get(parent) as TraceRow)) opened.set(parent, true);
      const previous = selectedId;
      selectedId = id;
      if (!visible.some((item) => item.id === id)) draw();
      else {
        const old = document.getElementById(`row-${previous}`);
        old?.setAttribute("aria-selected", "false");
        old?.setAttribute("tabindex", "-1");
        const now = document.getElementById(`row-${id}`);
        now?.setAttribute("aria-selected", "true");
        now?.setAttribute("tabindex", "0");
      }
      const element = document.getElementById(`row-${id}`);
      if (focus) element?.focus({ preventScroll: true });
      element?.scrollIntoView({ block: "nearest" });
      options.onSelect(row);
    }

    function toggle(row: TraceRow, open = !isOpen(row)): void {
      if (row.childIds.length === 0) return;
      opened.set(row.id, open);
      draw();
      document.getElementById(`row-${selectedId}`)?.focus({ preventScroll: true });
    }

    tree.addEventListener("click", (event) => {
      const target = (event.target as Element).closest("[data-id]");
      const id = target?.getAttribute("data-id");
      if (id) select(id, true);
    });
    tree.addEventListener("keydown", (event) => {
      const index = visible.findIndex((row) => row.id === selectedId);
      const row = visible[index];
      if (row === undefined) return;
      const go = (target: TraceRow | undefined) => {
        if (target) select(target.id, true);
      };
      switch (event.key) {
        case "ArrowDown":
          go(visible[index + 1]);
          break;
        case "ArrowUp":
          go(visible[index - 1]);
          break;
        case "Home":
          go(visible[0]);
          break;
        case "End":
          go(visible[visible.length - 1]);
          break;
        case "ArrowRight":
          if (row.childIds.length === 0) break;
          if (!isOpen(row)) toggle(row, true);
          else go(byId.get(row.childIds[0] as string));
          break;
        case "ArrowLeft":
          if (row.childIds.length > 0 && isOpen(row)) toggle(row, false);
          else if (row.parentId !== undefined) go(byId.get(row.parentId));
          break;
        case "Enter":
        case " ":
          toggle(row);
          break;
        default:
          return;
      }
      event.preventDefault();
    });

    return { element, update, select, selected: () => byId.get(selectedId) };
  }

  return { createTree };
}
