export { createKnowledgeBaseTool } from "./knowledge-base-tool";
export type { KnowledgeBaseToolOptions, KnowledgeDocument, KnowledgeResult } from "./knowledge-base-tool";
