// Runs in the page: bundled into the page's script at build time (scripts/build-page-scripts.mjs).

/** What a click on a row of the tree hit: the row (its `data-id`), on its twisty or elsewhere. */
export interface RowPress {
  /** The row's id (its element's `data-id`). */
  id: string;
  /** Whether it hit the row's twisty (which opens or closes the row) rather than the row. */
  twisty: boolean;
}

/** Callbacks of {@link watchRowPresses}. */
export interface RowPressOptions {
  /** A row was clicked: pressed and released on the same row (and part of it), or sent a `click`. */
  onClick: (press: RowPress) => void;
  /** Whether the press being released dragged the timeline: the click that ends a drag selects nothing. */
  dragged: () => boolean;
}

/**
 * Calls `onClick` when a row of `container` is clicked, even when the row's element was drawn
 * again between the press and the release: a running run's tree is redrawn every second and with
 * each new event (see docs/trace-viewer.md), and the browser then fires no `click` on the row (its
 * element is gone), so a click at that moment would be lost. A primary press and its release on
 * the same row's same part click it; the `click` the browser may send after such a release is left
 * out, and any other `click` (a script's, an assistive technology's) clicks its row as before.
 *
 * @internal
 */
export function watchRowPresses(container: HTMLElement, options: RowPressOptions): void {
  const pressOf = (target: EventTarget | null): RowPress | undefined => {
    if (!(target instanceof Element) || !container.contains(target)) return undefined;
    const id = target.closest("[data-id]")?.getAttribute("data-id");
    return id ? { id, twisty: target.closest(".twisty") !== null } : undefined;
  };
  /** The row part the primary pointer went down on, until it goes up or is cancelled. */
  let pressed: RowPress | undefined;
  /** A release just clicked a row: the `click` the browser sends after it is that same click. */
  let released = false;
  container.addEventListener("pointerdown", (event) => {
    pressed = event.isPrimary && event.button === 0 ? pressOf(event.target) : undefined;
  });
  container.addEventListener("pointerup", (event) => {
    const press = pressed;
    pressed = undefined;
    if (press === undefined || event.button !== 0 || options.dragged()) return;
    const release = pressOf(event.target);
    if (release?.id !== press.id || release.twisty !== press.twisty) return;
    released = true;
    // The browser sends the `click` (if any) in the same task as the release.
    setTimeout(() => (released = false), 0);
    options.onClick(press);
  });
  // Released outside the rows (or the press ended otherwise): that press clicks nothing.
  window.addEventListener("pointerup", () => (pressed = undefined));
  window.addEventListener("pointercancel", () => (pressed = undefined));
  container.addEventListener("click", (event) => {
    if (released) {
      released = false;
      return;
    }
    const press = pressOf(event.target);
    if (press !== undefined) options.onClick(press);
  });
}
