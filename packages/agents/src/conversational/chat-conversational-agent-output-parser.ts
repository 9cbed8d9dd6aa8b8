import { JSONAgentOutputParser, type JSONAgentOutputParserOptions } from "../json-chat/json-agent-output-parser";

/** Options of {@link ChatConversationalAgentOutputParser}. */
export type ChatConversationalAgentOutputParserOptions = JSONAgentOutputParserOptions;

/**
 * Parses the output of LangChain's chat-conversational agent (for users migrating old agents): a
 * JSON blob `{"action": ..., "action_input": ...}`, fenced (even after other text or other code
 * blocks) or bare. `"action": "Final Answer"` is the finish; any other action is a tool call. It is
 * the {@link JSONAgentOutputParser} except that the blob must have both `action` and
 * `action_input`, as LangChain's requires; a blob without them, or text without a blob, raises an
 * `OutputParserException` with `sendToLLM` set.
 *
 * @example
 * ```ts
 * import { ChatConversationalAgentOutputParser } from "@agentrx/agents";
 *
 * const parser = new ChatConversationalAgentOutputParser({ toolNames: ["search"] });
 * console.log(await parser.parse('Sure:\n```json\n{"action": "search", "action_input": "Paris"}\n```')); // { tool: "search", toolInput: "Paris", log: "..." }
 * ```
 */
export class ChatConversationalAgentOutputParser extends JSONAgentOutputParser {
  static override lc_name(): string {
    return "ChatConversationalAgentOutputParser";
  }

  protected override requiredKeys(): readonly string[] {
    return ["action_input"];
  }
}
