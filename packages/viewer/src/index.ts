// The Node build of `@agentrx/viewer`: the browser build's exports (./index.browser.ts) and the
// runs UI server, which needs `node:http`.
export * from "./index.browser";
export { startUiServer } from "./ui/start-ui-server";
export type { UiServer, UiServerOptions } from "./ui/start-ui-server";
export type { RunActionRequest } from "./ui/action-request";
export type { UiActionExecutor } from "./ui/run-actions";
