export { OpenApiToolkit, createOpenApiToolkit } from "./openapi-toolkit";
export type { OpenApiToolkitOptions } from "./openapi-toolkit";
export { encodePathParameter } from "./encode-path-parameter";
