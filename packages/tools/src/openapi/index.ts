export { OpenApiToolkit, createOpenApiToolkit } from "./openapi-toolkit";
export type { OpenApiToolkitOptions } from "./openapi-toolkit";
export { encodePathParameter } from "./encode-path-parameter";
export type { ParameterStyle, StyleSerialization } from "./parameter-style";
