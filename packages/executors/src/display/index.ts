export { RUN_MIME_TYPE } from "./display-types";
export type { DisplayRunOptions, LiveRunDisplay, MimeBundle, RenderTracePageOptions, RunDisplayBundle, RunTableStatus, RunTableSummary } from "./display-types";
export { displayRun } from "./display-run";
export { renderTracePage } from "./render-trace-page";
