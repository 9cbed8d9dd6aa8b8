// `@agentrx/executors/trace-page` moved to `@agentrx/viewer/trace-page` (install @agentrx/viewer).
export * from "@agentrx/viewer/trace-page";
