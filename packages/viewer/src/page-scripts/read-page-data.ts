/**
 * The data a page carries as JSON in `<script type="application/json" id="agentrx-data">` (see
 * `pageShell`), read in the page.
 *
 * @internal
 */
export function readPageData<T>(): T {
  return JSON.parse((document.getElementById("agentrx-data") as HTMLElement).textContent ?? "null") as T;
}
