export { diffRuns, readRunRecord } from "./diff-runs";
export type { DiffPair, DiffToolCall, FirstDivergence, IterationDiff, RunDiff, RunRecord } from "./diff-runs";
