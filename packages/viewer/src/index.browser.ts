// The browser build of `@agentrx/viewer`: everything but the Node `ui` server (./index.ts).
export * from "./notebook/index";
export { renderTracePage } from "./trace-page/render-trace-page";
export type { RenderTracePageOptions } from "@agentrx/executors";
