export { replayRun } from "./replay-run";
export type { ReplayRunOptions, ReplayTiming } from "./replay-run";
