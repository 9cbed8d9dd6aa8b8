/**
 * The trace page's and the run list's CSS: system fonts, light and dark colours (from
 * `prefers-color-scheme`), no external resource.
 *
 * @internal
 */
export const TRACE_PAGE_STYLES = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --panel: #f6f8fa; --hover: #eef2f6;
  --sel: #dbeafe; --focus: #0969da; --link: #0969da;
  --model: #3b6fd4; --model-wait: #b9cdf3; --tool: #1a7f37; --warn: #bf8700; --fail: #cf222e; --cached: #8c959f;
  --running: #8250df; --chip: #eaeef2; --slow: #cf222e; --gap: #d1d9e0;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #30363d; --panel: #151b23; --hover: #1c2430;
    --sel: #1c3a5e; --focus: #4493f8; --link: #4493f8;
    --model: #5b8ff9; --model-wait: #24406e; --tool: #3fb950; --warn: #d29922; --fail: #f85149; --cached: #6e7681;
    --running: #a371f7; --chip: #262c36; --slow: #ff7b72; --gap: #30363d;
  }
}
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; }
body { background: var(--bg); color: var(--fg); font: 13px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace; font-size: 12px; }
a { color: var(--link); }
button { font: inherit; color: inherit; background: var(--chip); border: 1px solid var(--line); border-radius: 6px; padding: 2px 10px; cursor: pointer; }
button:hover { border-color: var(--muted); }
:focus-visible { outline: 2px solid var(--focus); outline-offset: -2px; }
.app { display: flex; flex-direction: column; height: 100vh; }
.top { position: relative; padding: 12px 16px 10px; border-bottom: 1px solid var(--line); background: var(--panel); }
.compare-parent { position: absolute; right: 16px; top: 12px; padding: 4px 12px; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); text-decoration: none; }
.title { display: flex; align-items: baseline; gap: 10px; flex-wrap: wrap; margin: 0 0 8px; font-size: 15px; font-weight: 600; }
.title code { font-size: 13px; font-weight: 500; }
.muted { color: var(--muted); }
.status { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px; font-weight: 600; color: #fff; background: var(--cached); }
.status.finished { background: var(--tool); } .status.failed { background: var(--fail); } .status.cancelled, .status.interrupted { background: var(--warn); }
.status.running, .status.queued { background: var(--running); }
.status.running::before { content: ""; display: inline-block; width: 7px; height: 7px; margin-right: 5px; border-radius: 50%; background: #fff; animation: pulse 1s infinite alternate; }
.status.stalled { background: var(--warn); cursor: help; } .status.stalled::before { animation: none; opacity: .6; }
@keyframes pulse { from { opacity: 1; } to { opacity: .2; } }
.facts { display: flex; flex-wrap: wrap; gap: 6px 22px; margin: 0; }
.facts div { display: flex; flex-direction: column; }
.facts dt { color: var(--muted); font-size: 11px; text-transform: uppercase; letter-spacing: .04em; }
.facts dd { margin: 0; font-size: 15px; font-weight: 600; font-variant-numeric: tabular-nums; }
.split { display: flex; align-items: center; gap: 10px; margin-top: 10px; flex-wrap: wrap; }
.split-bar { display: flex; width: 260px; height: 10px; border-radius: 5px; overflow: hidden; background: var(--gap); }
.split-bar span { height: 100%; }
.split-legend { display: flex; gap: 14px; flex-wrap: wrap; color: var(--muted); }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; vertical-align: -1px; }
.copied { margin-top: 8px; display: flex; align-items: center; gap: 8px; flex-wrap: wrap; }
.slowest { margin-top: 8px; display: flex; align-items: center; gap: 8px; flex-wrap: wrap; }
.slowest button { border-color: var(--slow); }
.slowest strong { color: var(--slow); }
.notice { margin-top: 8px; display: flex; align-items: center; gap: 8px; flex-wrap: wrap; padding: 6px 10px; border-left: 3px solid var(--fail); }
.notice strong { color: var(--fail); }
.notice button { border-color: var(--fail); }
.body { flex: 1; min-height: 0; display: grid; grid-template-columns: minmax(0, 1fr) minmax(320px, 34%); }
.waterfall { overflow: auto; border-right: 1px solid var(--line); position: relative; }
.wf-head, .row { display: grid; grid-template-columns: var(--name-width, minmax(280px, 40%)) minmax(0, 1fr); }
.wf-head { position: sticky; top: 0; z-index: 2; background: var(--bg); border-bottom: 1px solid var(--line); height: 26px; }
.wf-head .name { padding: 4px 8px; color: var(--muted); font-size: 11px; text-transform: uppercase; letter-spacing: .04em; }
.wf-head .name { display: flex; align-items: center; justify-content: space-between; gap: 8px; padding-top: 2px; padding-bottom: 2px; }
.zoom { display: flex; align-items: center; gap: 4px; text-transform: none; letter-spacing: 0; }
.zoom-button { padding: 0 7px; font-size: 11px; line-height: 18px; }
.zoom-button:disabled { opacity: .45; cursor: default; }
.zoom-label { min-width: 3ch; font-variant-numeric: tabular-nums; }
.waterfall.zoomed .track, .waterfall.zoomed .axis { cursor: grab; }
.waterfall.panning, .waterfall.panning .track { cursor: grabbing; user-select: none; }
.axis { position: relative; margin-right: 64px; }
.axis span { position: absolute; top: 5px; transform: translateX(-50%); color: var(--muted); font-size: 11px; white-space: nowrap; font-variant-numeric: tabular-nums; }
.axis span:first-child { transform: none; }
.tree { outline: none; }
.row { height: 26px; border-bottom: 1px solid transparent; cursor: default; content-visibility: auto; contain-intrinsic-size: auto 26px; }
.row:hover { background: var(--hover); }
.row[aria-selected="true"] { background: var(--sel); }
.row .name { display: flex; align-items: center; gap: 6px; min-width: 0; padding-right: 8px; white-space: nowrap; overflow: hidden; }
.twisty { flex: none; width: 14px; text-align: center; color: var(--muted); font-size: 10px; cursor: pointer; }
.kind { flex: none; font-size: 10px; font-weight: 700; text-transform: uppercase; letter-spacing: .03em; padding: 0 5px; border-radius: 4px; color: var(--muted); border: 1px solid var(--line); }
.kind.model { color: var(--model); border-color: var(--model); } .kind.tool { color: var(--tool); border-color: var(--tool); }
.kind.subrun { color: var(--running); border-color: var(--running); }
.label { flex: none; font-weight: 600; }
.note { flex: 1 1 auto; min-width: 0; overflow: hidden; text-overflow: ellipsis; color: var(--muted); }
.chip { flex: none; font-size: 11px; padding: 0 6px; border-radius: 9px; background: var(--chip); color: var(--fg); }
.chip.slowest { background: var(--slow); color: #fff; font-weight: 700; }
.chip.failed, .chip.unreadable { background: var(--fail); color: #fff; } .chip.warn { background: var(--warn); color: #fff; }
.track { position: relative; margin-right: 64px; }
.grid-line { position: absolute; top: 0; bottom: 0; width: 1px; background: var(--line); opacity: .5; }
.bar { position: absolute; top: 6px; height: 14px; min-width: 2px; border-radius: 3px; background: var(--cached); }
.bar.model { background: var(--model); }
.bar.model .wait { position: absolute; left: 0; top: 0; bottom: 0; background: var(--model-wait); border-radius: 3px 0 0 3px; }
.bar.model .ttft { position: absolute; top: -3px; bottom: -3px; width: 2px; background: var(--fg); }
.bar.tool { background: var(--tool); } .bar.warn { background: repeating-linear-gradient(135deg, var(--warn) 0 6px, color-mix(in srgb, var(--warn) 70%, var(--bg)) 6px 12px); }
.bar.failed { background: var(--fail); } .bar.cached, .bar.none { background: var(--cached); }
.bar.inferred { background: transparent; border: 1.5px dashed var(--model); }
.bar.running { background: repeating-linear-gradient(90deg, var(--running) 0 8px, color-mix(in srgb, var(--running) 55%, var(--bg)) 8px 16px); background-size: 32px 100%; animation: crawl 1s linear infinite; }
@keyframes crawl { from { background-position: 0 0; } to { background-position: 32px 0; } }
.bar.span { top: 11px; height: 4px; background: var(--muted); opacity: .55; }
.actions { margin-top: 8px; display: flex; flex-direction: column; gap: 6px; }
.actions .pending, .actions .action-line { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; }
.actions .pending { padding: 6px 8px; border: 1px solid var(--warn); border-radius: 6px; }
.actions .pending code { max-width: 40ch; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.actions .pending .asked-by { overflow-wrap: anywhere; } .actions .pending .asked-by code { max-width: none; white-space: normal; }
.actions .paused-in { margin: 0; overflow-wrap: anywhere; }
.actions .edit-args { flex: 1 1 100%; font: 12px/1.35 ui-monospace, monospace; }
.actions button.primary { border-color: var(--tool); } .actions button.danger { border-color: var(--fail); }
.bar.slowest { outline: 2px solid var(--slow); outline-offset: -2px; } /* inside the bar: a row (content-visibility) clips what is outside */
.point { position: absolute; top: 8px; width: 10px; height: 10px; margin-left: -5px; transform: rotate(45deg); background: var(--muted); }
.dur { position: absolute; top: 5px; font-size: 11px; color: var(--muted); white-space: nowrap; font-variant-numeric: tabular-nums; }
.dur.slowest { color: var(--slow); font-weight: 700; }
.break { position: absolute; top: 0; bottom: 0; background: repeating-linear-gradient(90deg, var(--gap) 0 2px, transparent 2px 5px); opacity: .7; }
.detail { overflow: auto; padding: 12px 16px 24px; }
.detail h2 { margin: 0 0 4px; font-size: 15px; }
.detail h3 { margin: 16px 0 6px; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
.kv { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 3px 14px; margin: 8px 0 0; }
.kv dt { color: var(--muted); } .kv dd { margin: 0; overflow-wrap: anywhere; font-variant-numeric: tabular-nums; }
.payload { margin: 0; padding: 8px 10px; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 420px; overflow: auto; }
.payload.all { max-height: none; }
.payload.streaming { border-color: var(--running); }
.payload.streaming::after { content: "▍"; color: var(--running); animation: pulse 1s infinite alternate; }
.payload-tools { display: flex; align-items: center; gap: 8px; margin-top: 4px; color: var(--muted); font-size: 12px; }
details.request > summary { cursor: pointer; color: var(--link); }
details.request[open] > summary { margin-bottom: 4px; }
.images { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 6px; }
.thumb { margin: 0; display: flex; flex-direction: column; gap: 2px; max-width: 180px; }
.thumb img { max-width: 160px; max-height: 120px; object-fit: contain; border: 1px solid var(--line); border-radius: 4px; background: repeating-conic-gradient(var(--panel) 0 25%, var(--bg) 0 50%) 0 0 / 12px 12px; cursor: zoom-in; }
.thumb.large { max-width: 100%; } .thumb.large img { max-width: 100%; max-height: none; cursor: zoom-out; }
.thumb figcaption { font-size: 11px; color: var(--muted); }
.placeholder-box { width: 160px; min-height: 60px; padding: 6px; font-size: 11px; color: var(--muted); border: 1px dashed var(--line); border-radius: 4px; overflow-wrap: anywhere; }
.message { margin-top: 8px; } .message .role { font-size: 11px; font-weight: 700; text-transform: uppercase; color: var(--muted); }
.error-text { color: var(--fail); }
.hint { color: var(--muted); font-size: 12px; margin-top: 6px; }
.legend { display: flex; gap: 16px; flex-wrap: wrap; padding: 6px 16px; border-top: 1px solid var(--line); color: var(--muted); font-size: 12px; background: var(--panel); }
.legend .swatch { width: 16px; height: 9px; }
.empty { padding: 24px 16px; color: var(--muted); }
table.runs { border-collapse: collapse; width: 100%; }
table.runs th, table.runs td { text-align: left; padding: 6px 12px; border-bottom: 1px solid var(--line); white-space: nowrap; font-variant-numeric: tabular-nums; }
table.runs th { position: sticky; top: 0; background: var(--panel); color: var(--muted); font-size: 11px; text-transform: uppercase; letter-spacing: .04em; }
table.runs tr:hover td { background: var(--hover); }
table.runs td.num { text-align: right; }
table.runs td.input { max-width: 32em; overflow: hidden; text-overflow: ellipsis; color: var(--muted); }
.filters { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; }
.filters input, .filters select { font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 3px 8px; }
.filters input[data-filter="search"] { width: 22em; max-width: 100%; }
.status-filter { position: relative; }
.status-filter summary { list-style: none; cursor: pointer; border: 1px solid var(--line); border-radius: 6px; padding: 3px 8px; background: var(--bg); white-space: nowrap; }
.status-filter summary::-webkit-details-marker { display: none; }
.status-filter summary::after { content: " ▾"; color: var(--muted); }
.status-filter fieldset { position: absolute; z-index: 5; top: calc(100% + 4px); left: 0; margin: 0; padding: 6px 10px; display: grid; gap: 4px; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; box-shadow: 0 4px 14px rgba(0, 0, 0, .15); }
.status-filter label { display: flex; gap: 6px; align-items: center; white-space: nowrap; cursor: pointer; }
.list { overflow: auto; flex: 1; }
@media (max-width: 900px) {
  .body { grid-template-columns: 1fr; grid-template-rows: minmax(0, 1fr) minmax(0, 45%); }
  .waterfall { border-right: none; border-bottom: 1px solid var(--line); }
  .wf-head, .row { --name-width: minmax(180px, 45%); }
}
`;
