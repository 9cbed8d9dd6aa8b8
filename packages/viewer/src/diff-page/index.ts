// The diff page of two runs (`agentrx diff --html`, `/diff` of `agentrx ui`).
export { DIFF_PROMPT_TEXT_BUDGET, diffPageData } from "./diff-page-data";
export type { DiffPageData, DiffPrompt, DiffPromptMessage } from "./diff-page-data";
export { diffPageHtml } from "./diff-page-html";
