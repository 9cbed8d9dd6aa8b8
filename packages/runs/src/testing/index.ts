export { runStoreConformance } from "./run-store-conformance";
export type { AnotherProcessReport, AnotherProcessRequest, RunStoreConformanceOptions } from "./run-store-conformance";
