// `@agentrx/executors/trace-page` moved to `@agentrx/viewer/trace-page` (install @agentrx/viewer);
// this subpath re-exports it so imports written before the move keep working.
export * from "@agentrx/viewer/trace-page";
