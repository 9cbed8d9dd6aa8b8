// Runs in the page: bundled into the page's script at build time (scripts/build-page-scripts.mjs).

/** What {@link domRuntime}'s `h` accepts as a child: text (always inserted as text), a node, or nothing. */
export type DomChild = Node | string | number | null | undefined | false;

/** Properties `h` sets on an element. */
export interface DomProps {
  class?: string;
  /** Attributes, set with `setAttribute` (never `innerHTML`). */
  attrs?: Record<string, string | undefined>;
  style?: Record<string, string>;
  on?: Record<string, (event: Event) => void>;
}

/** The page's DOM helpers. */
export type DomRuntime = ReturnType<typeof domRuntime>;

/**
 * Builds elements from data. Text goes in as text nodes, never as HTML: recorded data (tool
 * output, model replies) cannot add markup or scripts to the page.
 *
 * @internal
 */
export function domRuntime() {
  function h<K extends keyof HTMLElementTagNameMap>(tag: K, props?: DomProps | null, ...children: DomChild[]): HTMLElementTagNameMap[K] {
    const element = document.createElement(tag);
    if (props) {
      if (props.class) element.className = props.class;
      for (const [name, value] of Object.entries(props.attrs ?? {})) if (value !== undefined) element.setAttribute(name, value);
      for (const [name, value] of Object.entries(props.style ?? {})) element.style.setProperty(name, value);
      for (const [name, listener] of Object.entries(props.on ?? {})) element.addEventListener(name, listener);
    }
    append(element, children);
    return element;
  }

  function append(parent: Node, children: readonly DomChild[]): void {
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      parent.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
    }
  }

  function clear(element: Element): void {
    while (element.firstChild) element.removeChild(element.firstChild);
  }

  return { h, append, clear };
}
