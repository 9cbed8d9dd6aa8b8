export { createSafeHttpClient } from "./safe-http-client";
export type { HostResolver, SafeHttpClient, SafeHttpOptions, SafeHttpRequest, SafeHttpResponse } from "./safe-http-client";
export { createHttpRequestTool } from "./http-request-tool";
export type { HttpRequestToolInput, HttpRequestToolOptions } from "./http-request-tool";
