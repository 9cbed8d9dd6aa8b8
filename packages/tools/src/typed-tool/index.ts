export type { TypedTool, TypedToolSchema } from "./typed-tool";
