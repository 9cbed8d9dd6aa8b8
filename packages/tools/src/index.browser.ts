// The browser build of `@agentrx/tools` (the package's `browser` export condition): everything of
// ./index.ts except what needs Node's `http`, `https` and `dns` modules: the SSRF-safe HTTP client
// (`createSafeHttpClient`), the HTTP tool (`createHttpRequestTool`) and the OpenAPI toolkit
// (`createOpenApiToolkit`, `OpenApiToolkit`), whose requests go through that client. Leaving them
// out, rather than exporting stubs that throw, lets a bundler name the missing export when a
// browser build imports one.
export * from "./errors/index";
export * from "./policies/index";
export * from "./calculator/index";
export * from "./knowledge-base/index";
export { encodePathParameter } from "./openapi/encode-path-parameter";
export type { ParameterStyle, StyleSerialization } from "./openapi/parameter-style";
export * from "./approval/index";
export * from "./typed-tool/index";
