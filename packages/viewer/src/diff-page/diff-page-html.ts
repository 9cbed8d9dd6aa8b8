import { DIFF_PAGE_SCRIPT } from "../page-scripts/page-scripts.generated";
import { pageShell } from "../trace-page/page/page-shell";
import type { DiffPageData } from "./diff-page-data";

/**
 * The diff page's own CSS, after the trace page's (whose colours and header it uses).
 *
 * @internal
 */
export const DIFF_PAGE_STYLES = `
.diff-body { flex: 1; min-height: 0; overflow: auto; padding: 8px 16px 40px; }
.run-cards { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; margin-left: 90px; }
.run-card { display: flex; flex-direction: column; gap: 2px; min-width: 0; }
.run-name { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; font-weight: 600; }
.letter { display: inline-block; width: 20px; height: 20px; line-height: 20px; text-align: center; border-radius: 50%; background: var(--fg); color: var(--bg); font-weight: 700; }
.diff-banner { margin-top: 10px; padding: 6px 10px; border-left: 3px solid var(--tool); }
.diff-banner.diverges { border-left-color: var(--fail); }
.diff-banner.diverges strong { color: var(--fail); }
.diff-section { margin: 14px 0 0; }
.diff-section h2 { display: flex; align-items: center; gap: 8px; font-size: 13px; margin: 0 0 4px; padding: 4px 0; border-bottom: 1px solid var(--line); }
.badge { font-size: 11px; font-weight: 600; padding: 0 6px; border-radius: 8px; background: var(--chip); color: var(--muted); }
.badge.differs { color: var(--fail); }
.diff-row { display: grid; grid-template-columns: 90px minmax(0, 1fr) minmax(0, 1fr); gap: 0 12px; padding: 3px 0; }
.diff-row .label { color: var(--muted); font-size: 11px; text-transform: uppercase; letter-spacing: .04em; padding-top: 3px; }
.diff-row .cell { min-width: 0; padding: 2px 6px; border-radius: 4px; }
.diff-row .cell.both { grid-column: 2 / span 2; }
.diff-row .cell.differs, .call.differs, .message.differs { background: color-mix(in srgb, var(--fail) 9%, transparent); }
.diff-row.same .cell.both { color: var(--muted); }
pre.text { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 16em; overflow: auto; }
.calls, .messages { margin: 0; padding-left: 20px; }
.call, .message { padding: 2px 4px; border-radius: 4px; }
.call + .call, .message + .message { margin-top: 4px; }
.role { display: inline-block; min-width: 54px; color: var(--muted); font-size: 11px; text-transform: uppercase; }
.recorded-prompt > summary, .shared-prefix > summary { cursor: pointer; color: var(--muted); padding: 3px 0 3px 90px; }
.shared-prefix { margin-top: 10px; border: 1px dashed var(--line); border-radius: 6px; padding: 2px 10px 8px; }
.shared-prefix > summary { padding-left: 0; font-weight: 600; }
.first { outline: 2px solid var(--fail); outline-offset: 2px; border-radius: 4px; }
.first-tag { display: inline-block; margin-right: 8px; padding: 0 6px; border-radius: 8px; background: var(--fail); color: #fff; font-size: 11px; font-weight: 600; }
.diff-row.first > .first-tag { grid-column: 1 / -1; justify-self: start; margin-bottom: 2px; }
.flash { animation: flash 1.2s ease-out; }
@keyframes flash { from { background: color-mix(in srgb, var(--fail) 25%, transparent); } to { background: transparent; } }
`;

/**
 * The diff page's script: src/page-scripts/diff-page.entry.ts, bundled at build time.
 *
 * @internal
 */
export function diffPageScript(): string {
  return DIFF_PAGE_SCRIPT;
}

/**
 * The HTML of the diff page of two runs: one self-contained file (inline CSS and script, no
 * request) in which the runs' records are data, shown as text. Build the data with
 * `diffPageData`.
 *
 * @example
 * ```ts
 * import { MemoryRunStore, readRunRecord } from "@agentrx/runs";
 * import { diffPageData, diffPageHtml } from "@agentrx/viewer/trace-page";
 *
 * const store = new MemoryRunStore();
 * for (const runId of ["a", "b"]) await store.createRun({ runId, inputs: { input: "hi" }, status: "queued", at: Date.now() });
 * const html = diffPageHtml(diffPageData(await readRunRecord(store, "a"), await readRunRecord(store, "b"), { mode: "file", source: "memory" }));
 * console.log(html.startsWith("<!doctype html>")); // true
 * ```
 */
export function diffPageHtml(data: DiffPageData): string {
  const page = pageShell({
    title: `Compare ${data.diff.a.runId} and ${data.diff.b.runId} · AgentRx`,
    data,
    script: DIFF_PAGE_SCRIPT,
    connect: data.mode === "ui",
  });
  return page.replace("</head>", `<style>${DIFF_PAGE_STYLES}</style>\n</head>`);
}
