export { RUN_MIME_TYPE, displayRun } from "./display-run";
export type { DisplayRunOptions, LiveRunDisplay, MimeBundle, RunDisplayBundle } from "./display-run";
export type { RunTableStatus, RunTableSummary } from "./run-table";
