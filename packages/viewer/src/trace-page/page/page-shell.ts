import { TRACE_PAGE_STYLES } from "./trace-page-styles";

/** What {@link pageShell} puts in a page. */
export interface PageShellOptions {
  title: string;
  /** The page's data, embedded as JSON in a `<script type="application/json" id="agentrx-data">`. */
  data: unknown;
  /** The page's script (the only one that may run: the page's Content-Security-Policy names its nonce). */
  script: string;
  /** Whether the script may talk to the server it came from (the `ui`); a file may not. */
  connect: boolean;
}

/**
 * A whole HTML page: inline CSS and one inline script, no external resource, and a
 * Content-Security-Policy that lets only that script run (it carries a fresh random nonce, which
 * recorded text, written before the page, cannot know) and (in a file) forbids every request.
 * Runtime-neutral: it needs only the Web Crypto `getRandomValues` that Node, Deno, Bun and browsers have.
 * The data is JSON inside a `<script type="application/json">`, with `<` written `\u003c` so no
 * recorded text can end that element; the script reads it with `JSON.parse` and inserts it as text.
 *
 * @internal
 */
export function pageShell({ title, data, script, connect }: PageShellOptions): string {
  const json = JSON.stringify(data).replace(/</g, "\\u003c");
  const nonce = randomNonce();
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    "style-src 'unsafe-inline'",
    "img-src data:",
    connect ? "connect-src 'self'" : "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<meta name="color-scheme" content="light dark">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${TRACE_PAGE_STYLES}</style>`,
    "</head>",
    "<body>",
    '<div id="app" class="app"><noscript><p class="empty">This page draws the run with JavaScript; enable it to see the trace.</p></noscript></div>',
    `<script type="application/json" id="agentrx-data">${json}</script>`,
    `<script nonce="${nonce}">${script}</script>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

/** `text` with the five HTML-special characters escaped (for the title only: data goes in as JSON). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}


/** 18 random bytes, base64: a CSP nonce. */
function randomNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes));
}
