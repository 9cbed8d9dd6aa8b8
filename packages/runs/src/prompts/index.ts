export { promptsOf, readPrompts } from "./read-prompts";
export type { RecordedPrompt } from "./read-prompts";
