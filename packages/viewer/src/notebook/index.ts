export { displayRun } from "./display-run";
export { RUN_MIME_TYPE } from "@agentrx/executors";
export type { DisplayRunOptions, LiveRunDisplay, MimeBundle, RunDisplayBundle, RunTableStatus, RunTableSummary } from "@agentrx/executors";
