export { createKnowledgeBaseTool } from "./knowledge-base-tool";
export type { KnowledgeBaseToolInput, KnowledgeBaseToolOptions, KnowledgeDocument, KnowledgeResult } from "./knowledge-base-tool";
