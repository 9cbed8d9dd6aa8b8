export { OpenApiToolkit, createOpenApiToolkit, encodePathParameter } from "./openapi-toolkit";
export type { OpenApiToolkitOptions } from "./openapi-toolkit";
