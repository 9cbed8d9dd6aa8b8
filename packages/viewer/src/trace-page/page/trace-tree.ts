// Runs in the page: bundled into the page's script at build time (scripts/build-page-scripts.mjs).
import type { DomRuntime } from "./dom-runtime";
import type { FormatRuntime } from "./format-runtime";
import { watchRowPresses } from "./row-press";
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
  /** Up to this many visible rows, the tree draws them all; past it, only a window around the view. */
  const ALL_ROWS = 2000;
  /** Rows drawn above and below the view in a window. */
  const OVERSCAN = 150;

  function createTree(options: TraceTreeOptions) {
    const axis = h("div", { class: "axis", attrs: { "aria-hidden": "true" } });
    const zoomButton = (label: string, title: string, action: string) => {
      const button = h("button", { class: "zoom-button", attrs: { type: "button", title, "aria-label": title, "data-zoom-action": action } }, label);
      return button;
    };
    const zoomOut = zoomButton("−", "Zoom out (-)", "out");
    const zoomIn = zoomButton("+", "Zoom in (+; Ctrl + wheel)", "in");
    const zoomReset = zoomButton("Reset", "Show the whole run (0)", "reset");
    const zoomLabel = h("span", { class: "zoom-label muted", attrs: { "data-zoom": "1" } }, "");
    const head = h("div", { class: "wf-head" }, h("div", { class: "name" }, h("span", null, "Step"), h("span", { class: "zoom", attrs: { role: "group", "aria-label": "Zoom the timeline" } }, zoomOut, zoomIn, zoomReset, zoomLabel)), axis);
    // Focusable itself: a long run's selected row may be scrolled out of the rows drawn, and the keys still work.
    const tree = h("div", { class: "tree", attrs: { role: "tree", "aria-label": "Run steps and their timeline", tabindex: "-1" } });
    const element = h("section", { class: "waterfall", attrs: { "aria-label": "Timeline" } }, head, tree);
    let rows: TraceRow[] = [];
    let byId = new Map<string, TraceRow>();
    const opened = new Map<string, boolean>(); // the user's choices, over the rows' defaults
    let selectedId = "run";
    let visible: TraceRow[] = [];
    let scale: TraceScale | undefined;
    /** The part of the timeline in view, as fractions of its width: all of it until zoomed. */
    let view = { from: 0, to: 1 };
    /** The rows drawn, as indexes into `visible` (`last` excluded): all of them, or a window around the view. */
    let drawn = { first: 0, last: 0 };
    let rowHeight = 26;

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

    /** A time's position in the view: 0 at its left edge, 1 at its right (outside when zoomed away). */
    function vx(s: TraceScale, at: number): number {
      return (s.x(at) - view.from) / (view.to - view.from);
    }

    function barOf(row: TraceRow, s: TraceScale): HTMLElement[] {
      const out: HTMLElement[] = [];
      const slowest = row.badges.includes("slowest");
      if (row.start !== undefined && row.end !== undefined) {
        const left = vx(s, row.start);
        const right = Math.max(vx(s, row.end), left);
        if (right < 0 || left > 1) return out; // out of view
        // Cut to the view; the part of the bar in view keeps its place.
        const x0 = Math.max(0, left);
        const x1 = Math.min(1, right);
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
        if (row.kind === "model" && row.firstTokenAt !== undefined && duration > 0 && x1 > x0) {
          // The first token's place within the part of the bar in view.
          const wait = (vx(s, row.firstTokenAt) - x0) / (x1 - x0);
          if (wait >= 0 && wait <= 1) dom.append(bar, [h("span", { class: "wait", style: { width: pct(wait) } }), h("span", { class: "ttft", attrs: { title: `first token after ${fmt.duration(row.firstTokenAt - row.start)}` }, style: { left: pct(wait) } })]);
          else if (wait > 1) bar.appendChild(h("span", { class: "wait", style: { width: "100%" } }));
        }
        out.push(bar);
        if (right <= 1 && (kind !== "span" || row.kind === "run" || row.kind === "subrun" || row.kind === "iteration") && !(row.kind === "tool" && row.state === "none")) {
          const label = h("span", { class: slowest ? "dur slowest" : "dur" }, row.state === "running" ? `${fmt.duration(duration)}…` : fmt.duration(duration));
          label.style.left = `calc(${pct(x1)} + 6px)`; // the track keeps room for it on its right
          out.push(label);
        }
      } else if (row.at !== undefined) {
        const x = vx(s, row.at);
        if (x >= 0 && x <= 1) out.push(h("span", { class: "point", attrs: { title: `+${fmt.duration(row.at - s.start)}` }, style: { left: pct(x) } }));
      }
      return out;
    }

    function rowElement(row: TraceRow, s: TraceScale): HTMLElement {
      const hasChildren = row.childIds.length > 0;
      const open = isOpen(row);
      const twisty = h("span", { class: "twisty", attrs: { "aria-hidden": "true" } }, hasChildren ? (open ? "▾" : "▸") : "");
      const kindLabel = row.kind === "segment" && row.label === "forked" ? "fork" : { run: "run", subrun: "sub-run", segment: "resume", iteration: "iter", model: "model", tool: "tool", step: "result", answer: "answer", event: "event" }[row.kind];
      const chips = row.badges
        .filter((badge) => !(row.kind === "run" && badge === row.badges[0]))
        .map((badge) => h("span", { class: `chip ${badge === "slowest" ? "slowest" : badge === "failed" || badge === "parsing error" || badge === "unreadable" ? "failed" : /attempts|timed out/.test(badge) ? "warn" : ""}` }, badge));
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
          h("span", { class: row.kind === "tool" || row.kind === "run" || row.kind === "subrun" ? "note mono" : "note" }, row.note),
        ),
        h("div", { class: "track" }, ...barOf(row, s)),
      );
      return element;
    }

    /** The rows in view, as indexes into `visible` (`last` excluded), from the scroll position. */
    function rowsInView(): { first: number; last: number } {
      const top = Math.max(0, element.scrollTop - tree.offsetTop);
      const height = element.clientHeight > 0 ? element.clientHeight : 1000;
      return { first: Math.floor(top / rowHeight), last: Math.ceil((top + height) / rowHeight) };
    }

    /**
     * Draws the visible rows: all of them up to {@link ALL_ROWS} (so the browser's find sees every
     * row), else those in view and {@link OVERSCAN} on each side, between spacers as tall as the
     * rows left out: a run of thousands of steps draws (and redraws, live) a few hundred rows.
     */
    function drawRows(s: TraceScale): void {
      const hadFocus = tree.contains(document.activeElement);
      const inView = rowsInView();
      drawn = visible.length <= ALL_ROWS ? { first: 0, last: visible.length } : { first: Math.max(0, inView.first - OVERSCAN), last: Math.min(visible.length, inView.last + OVERSCAN) };
      const fragment = document.createDocumentFragment();
      const spacer = (rows: number) => h("div", { class: "spacer", attrs: { "aria-hidden": "true" }, style: { height: `${rows * rowHeight}px` } });
      if (drawn.first > 0) fragment.appendChild(spacer(drawn.first));
      for (let i = drawn.first; i < drawn.last; i++) fragment.appendChild(rowElement(visible[i] as TraceRow, s));
      if (drawn.last < visible.length) fragment.appendChild(spacer(visible.length - drawn.last));
      dom.clear(tree);
      tree.appendChild(fragment);
      const measured = tree.querySelector(".row")?.getBoundingClientRect().height;
      if (measured !== undefined && measured > 0 && drawn.last - drawn.first < visible.length) rowHeight = measured;
      if (hadFocus) focusSelected();
    }

    /** Focuses the selected row, or the tree when that row is not drawn (scrolled far away). */
    function focusSelected(): void {
      const row = document.getElementById(`row-${selectedId}`) as HTMLElement | null;
      (row ?? tree).focus({ preventScroll: true });
    }

    /** Scrolls a row that is not drawn into the middle of the view, and draws the rows there. */
    function reveal(index: number): void {
      if (scale === undefined || (index >= drawn.first && index < drawn.last)) return;
      element.scrollTop = Math.max(0, tree.offsetTop + index * rowHeight - element.clientHeight / 2);
      drawRows(scale);
    }

    let scrollFrame = 0;
    // A window of rows is redrawn when the view comes near its edge.
    element.addEventListener("scroll", () => {
      if (drawn.last - drawn.first >= visible.length || scrollFrame !== 0) return;
      const inView = rowsInView();
      const nearTop = drawn.first > 0 && inView.first - drawn.first < OVERSCAN / 2;
      const nearBottom = drawn.last < visible.length && drawn.last - inView.last < OVERSCAN / 2;
      if (!nearTop && !nearBottom) return;
      scrollFrame = requestAnimationFrame(() => {
        scrollFrame = 0;
        if (scale !== undefined) drawRows(scale);
      });
    });

    function draw(): void {
      if (scale === undefined) return;
      const s = scale;
      visible = computeVisible();
      if (!visible.some((row) => row.id === selectedId)) selectedId = visible[0]?.id ?? "run";
      const hadFocus = tree.contains(document.activeElement);
      drawRows(s);
      dom.clear(axis);
      const span = view.to - view.from;
      const zoomed = span < 1 - 1e-9;
      for (const tick of zoomed ? s.ticksIn(view.from, view.to) : s.ticks) axis.appendChild(h("span", { class: "tick", style: { left: pct((tick.x - view.from) / span) } }, tick.label));
      for (const gap of s.breaks) {
        const x = (gap.x + gap.width / 2 - view.from) / span;
        if (x >= 0 && x <= 1) axis.appendChild(h("span", { class: "muted", attrs: { title: gap.label }, style: { left: pct(x) } }, "⋯"));
      }
      element.classList.toggle("zoomed", zoomed);
      zoomLabel.textContent = zoomed ? `×${Number((1 / span).toPrecision(3))}` : "";
      zoomLabel.setAttribute("data-zoom", String(1 / span));
      zoomOut.disabled = !zoomed;
      zoomReset.disabled = !zoomed;
      if (hadFocus) focusSelected();
    }

    function update(nextRows: TraceRow[], nextScale: TraceScale): void {
      rows = nextRows;
      byId = new Map(rows.map((row) => [row.id, row]));
      const previous = scale;
      scale = nextScale;
      // A zoomed view keeps the same stretch of time while the timeline changes (a live run grows).
      if (previous !== undefined && view.to - view.from < 1 - 1e-9) view = fitView(nextScale.x(previous.at(view.from)), nextScale.x(previous.at(view.to)));
      draw();
    }

    function select(id: string, focus: boolean): void {
      const row = byId.get(id);
      if (row === undefined) return;
      // Open the row's ancestors so it is visible.
      for (let parent = row.parentId; parent !== undefined; parent = byId.get(parent)?.parentId) if (!isOpen(byId.get(parent) as TraceRow)) opened.set(parent, true);
      const previous = selectedId;
      selectedId = id;
      let index = visible.findIndex((item) => item.id === id);
      if (index === -1) {
        draw();
        index = visible.findIndex((item) => item.id === id);
        reveal(index);
      } else {
        reveal(index);
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
      focusSelected();
    }

    /** The narrowest view: about a millisecond of the run. */
    function minSpan(): number {
      return scale === undefined ? 1 : Math.min(1, 1 / Math.max(1, scale.end - scale.start));
    }

    let frame = 0;
    /** A view from `from` to `to`, kept inside the timeline and no narrower than `minSpan()`. */
    function fitView(from: number, to: number): { from: number; to: number } {
      let span = Math.min(1, Math.max(minSpan(), to - from));
      if (!Number.isFinite(span)) span = 1;
      let start = Math.min(Math.max(0, from), 1 - span);
      if (span >= 1) start = 0;
      return { from: start, to: start + span };
    }

    /** Sets the view (kept inside the timeline) and draws it, once per animation frame. */
    function setView(from: number, to: number): void {
      view = fitView(from, to);
      if (frame !== 0) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        draw();
      });
    }

    /** Zooms by `factor` (above 1: in) around `anchor`, a position in the view (0 to 1). */
    function zoom(factor: number, anchor = 0.5): void {
      const span = view.to - view.from;
      const at = view.from + anchor * span;
      const next = span / factor;
      setView(at - anchor * next, at - anchor * next + next);
    }

    /** Moves the view by `by` of its width (negative: to the left). */
    function pan(by: number): void {
      const span = view.to - view.from;
      setView(view.from + by * span, view.to + by * span);
    }

    function resetZoom(): void {
      setView(0, 1);
    }

    zoomIn.addEventListener("click", () => zoom(2));
    zoomOut.addEventListener("click", () => zoom(0.5));
    zoomReset.addEventListener("click", resetZoom);
    /** Where the pointer is in the view (0 to 1), from the axis's box. */
    const anchorOf = (clientX: number) => {
      const box = axis.getBoundingClientRect();
      return box.width > 0 ? Math.min(1, Math.max(0, (clientX - box.left) / box.width)) : 0.5;
    };
    element.addEventListener(
      "wheel",
      (event) => {
        if (event.ctrlKey || event.metaKey) {
          // Ctrl + wheel (a touchpad's pinch too) zooms around the pointer.
          event.preventDefault();
          zoom(Math.exp(-event.deltaY * 0.002), anchorOf(event.clientX));
        } else if (view.to - view.from < 1 && (event.shiftKey || Math.abs(event.deltaX) > Math.abs(event.deltaY))) {
          event.preventDefault();
          const box = axis.getBoundingClientRect();
          pan((event.shiftKey && event.deltaX === 0 ? event.deltaY : event.deltaX) / Math.max(1, box.width));
        }
      },
      { passive: false },
    );
    // Dragging the timeline (a bar, the axis) sideways pans a zoomed view; a click still selects.
    let drag: { x: number; from: number; moved: boolean } | undefined;
    element.addEventListener("pointerdown", (event) => {
      const target = event.target as Element;
      if (event.button !== 0 || view.to - view.from >= 1 || !target.closest(".track, .axis")) return;
      drag = { x: event.clientX, from: view.from, moved: false };
    });
    window.addEventListener("pointermove", (event) => {
      if (drag === undefined) return;
      const dx = event.clientX - drag.x;
      if (!drag.moved && Math.abs(dx) < 4) return;
      drag.moved = true;
      element.classList.add("panning");
      const span = view.to - view.from;
      const width = Math.max(1, axis.getBoundingClientRect().width);
      setView(drag.from - (dx / width) * span, drag.from - (dx / width) * span + span);
    });
    window.addEventListener("pointerup", () => {
      if (drag?.moved) {
        // The click that ends a drag selects nothing.
        const eat = (event: Event) => event.stopPropagation();
        window.addEventListener("click", eat, { capture: true, once: true });
        setTimeout(() => window.removeEventListener("click", eat, { capture: true }), 0);
        setTimeout(() => element.classList.remove("panning"), 0);
      }
      drag = undefined;
    });

    // A click on a row selects it, on its twisty opens or closes it: also when a live run's redraw
    // replaced the row's element between the press and the release.
    watchRowPresses(tree, {
      dragged: () => drag?.moved === true,
      onClick: ({ id, twisty }) => {
        const row = byId.get(id);
        if (row === undefined) return;
        if (twisty) toggle(row);
        else select(id, true);
      },
    });
    tree.addEventListener("keydown", (event) => {
      // The browser's and the system's shortcuts stay theirs: Ctrl + / Ctrl 0 zoom the page, Alt + ← goes back.
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      const index = visible.findIndex((row) => row.id === selectedId);
      const row = visible[index];
      if (row === undefined) return;
      const go = (target: TraceRow | undefined) => {
        if (target) select(target.id, true);
      };
      if (event.shiftKey && (event.key === "ArrowLeft" || event.key === "ArrowRight")) {
        pan(event.key === "ArrowLeft" ? -0.25 : 0.25);
        event.preventDefault();
        return;
      }
      switch (event.key) {
        case "+":
        case "=":
          zoom(2);
          break;
        case "-":
          zoom(0.5);
          break;
        case "0":
          resetZoom();
          break;
        case "z":
          zoomTo(row);
          break;
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

    /** Zooms to a row's bar (with a margin), or back to the whole run when it has none. */
    function zoomTo(row: TraceRow): void {
      if (scale === undefined || row.start === undefined || row.end === undefined || row.kind === "run") return resetZoom();
      const a = scale.x(row.start);
      const b = scale.x(row.end);
      const margin = Math.max((b - a) * 0.1, minSpan());
      setView(a - margin, b + margin);
    }

    return { element, update, select, selected: () => byId.get(selectedId), zoom, pan, resetZoom, view: () => ({ ...view }) };
  }

  return { createTree };
}
