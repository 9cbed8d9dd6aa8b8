const TAGS = ["tool", "tool_input", "observation", "final_answer", "user_message"] as const;

/**
 * Escapes the XML agent's own tags inside content (`<tool>` becomes `[[tool]]`, `</tool>` becomes
 * `[[/tool]]`, and so on for `tool_input`, `observation`, `final_answer` and `user_message`), so a tool result
 * that contains them cannot break the scratchpad's structure.
 */
export function escapeXmlTags(text: string): string {
  let out = text;
  for (const tag of TAGS) out = out.split(`<${tag}>`).join(`[[${tag}]]`).split(`</${tag}>`).join(`[[/${tag}]]`);
  return out;
}

/** Reverses {@link escapeXmlTags}. */
export function unescapeXmlTags(text: string): string {
  let out = text;
  for (const tag of TAGS) out = out.split(`[[${tag}]]`).join(`<${tag}>`).split(`[[/${tag}]]`).join(`</${tag}>`);
  return out;
}
