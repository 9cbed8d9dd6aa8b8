export * from "./errors/index";
export * from "./policies/index";
export * from "./calculator/index";
export * from "./http/index";
export * from "./knowledge-base/index";
export * from "./openapi/index";
export * from "./approval/index";
export * from "./typed-tool/index";
