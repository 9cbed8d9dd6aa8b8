// The rules of Anthropic's Messages API that agent frameworks break, checked as the API checks
// them, with the API's own error text (not exported from the package).

/** Why a request would be refused: the message of Anthropic's `invalid_request_error`. */
export type AnthropicRejection = string;

type Block = Record<string, any>;
type Message = { role?: unknown; content?: unknown };

const IMAGE_MEDIA_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"];
const EXTENDED_THINKING_DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking";

/** The blocks of a message's content (a string is one text block). */
export function blocksOf(content: unknown): Block[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? (content as Block[]) : [];
}

/**
 * The first rule `body` breaks, or `undefined` when Anthropic would take it. `verifySignature`
 * says whether a thinking block's `signature` is the one the server gave that thinking.
 */
export function validateAnthropicRequest(body: Record<string, any>, verifySignature: (thinking: string, signature: string) => boolean): AnthropicRejection | undefined {
  if (typeof body["model"] !== "string") return "model: Field required";
  if (typeof body["max_tokens"] !== "number") return "max_tokens: Field required";
  if (!Array.isArray(body["messages"])) return "messages: Field required";
  const messages = body["messages"] as Message[];
  const thinking = body["thinking"] as { type?: string; budget_tokens?: number } | undefined;
  const thinkingOn = thinking?.type === "enabled";
  if (thinkingOn) {
    const budget = thinking.budget_tokens;
    if (typeof budget !== "number") return "thinking.enabled.budget_tokens: Field required";
    if (budget < 1024) return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024";
    if (body["max_tokens"] <= budget) {
      return `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at ${EXTENDED_THINKING_DOCS}#max-tokens-and-context-window-size`;
    }
    if (body["temperature"] !== undefined && body["temperature"] !== 1) {
      return "`temperature` may only be set to 1 when thinking is enabled or in interleaved thinking mode. Please consult our documentation at " + EXTENDED_THINKING_DOCS;
    }
    const choice = (body["tool_choice"] as { type?: string } | undefined)?.type;
    if (choice === "any" || choice === "tool") return "Thinking may not be enabled when tool_choice forces tool use.";
  }
  if (messages.length === 0) return "messages: at least one message is required";
  let cacheBreakpoints = 0;
  const countCache = (block: unknown) => {
    if (typeof block === "object" && block !== null && (block as Block)["cache_control"] !== undefined) cacheBreakpoints++;
  };
  for (const tool of (body["tools"] as unknown[] | undefined) ?? []) countCache(tool);
  for (const block of Array.isArray(body["system"]) ? body["system"] : []) countCache(block);

  for (const [i, message] of messages.entries()) {
    if (message.role !== "user" && message.role !== "assistant") return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    if (typeof message.content !== "string" && !Array.isArray(message.content)) return `messages.${i}.content: Input should be a valid string or list`;
    const blocks = blocksOf(message.content);
    if (Array.isArray(message.content) && blocks.length === 0 && !(i === messages.length - 1 && message.role === "assistant")) {
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    }
    for (const [j, block] of blocks.entries()) {
      countCache(block);
      const at = `messages.${i}.content.${j}`;
      const problem = blockProblem(block, at, message.role as string, verifySignature);
      if (problem) return problem;
    }
    // Every tool_use is answered by a tool_result in the very next message, and every tool_result
    // answers a tool_use of the message just before.
    if (message.role === "assistant") {
      const ids = blocks.filter((block) => block["type"] === "tool_use").map((block) => String(block["id"]));
      const next = messages[i + 1];
      const answered = new Set(
        next?.role === "user" ? blocksOf(next.content).filter((block) => block["type"] === "tool_result").map((block) => String(block["tool_use_id"])) : [],
      );
      const missing = ids.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        return `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
    } else {
      const previous = messages[i - 1];
      const asked = new Set(previous?.role === "assistant" ? blocksOf(previous.content).filter((block) => block["type"] === "tool_use").map((block) => String(block["id"])) : []);
      for (const [j, block] of blocks.entries()) {
        if (block["type"] === "tool_result" && !asked.has(String(block["tool_use_id"]))) {
          return `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block["tool_use_id"])}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
      }
    }
  }
  if (cacheBreakpoints > 4) return `A maximum of 4 blocks with cache_control may be provided. Found ${cacheBreakpoints}.`;

  // With thinking on, the assistant turn that the trailing tool results answer must start with its
  // thinking block, sent back as it came.
  if (thinkingOn) {
    const last = messages[messages.length - 1];
    const endsWithToolResult = last?.role === "user" && blocksOf(last.content).some((block) => block["type"] === "tool_result");
    if (endsWithToolResult) {
      let turnStart = messages.length - 2;
      // The turn began at the first assistant message after the last user message that is not only tool results.
      while (turnStart - 2 >= 0 && messages[turnStart - 1]?.role === "user" && blocksOf(messages[turnStart - 1]?.content).every((block) => block["type"] === "tool_result")) turnStart -= 2;
      const first = blocksOf(messages[turnStart]?.content)[0];
      if (first !== undefined && first["type"] !== "thinking" && first["type"] !== "redacted_thinking") {
        return (
          `messages.${turnStart}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first["type"])}\`. ` +
          "When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of " +
          "`tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this " +
          `requirement, disable \`thinking\`. Please consult our documentation at ${EXTENDED_THINKING_DOCS}`
        );
      }
    }
  }
  return undefined;
}

function blockProblem(block: Block, at: string, role: string, verifySignature: (thinking: string, signature: string) => boolean): string | undefined {
  if (typeof block !== "object" || block === null) return `${at}: Input should be a valid dictionary or object`;
  const type = block["type"];
  const cache = block["cache_control"] as { type?: unknown } | undefined;
  if (cache !== undefined && cache?.type !== "ephemeral") return `${at}.${String(type)}.cache_control.type: Input should be 'ephemeral'`;
  switch (type) {
    case "text":
      if (typeof block["text"] !== "string") return `${at}.text.text: Field required`;
      if (block["text"] === "") return cache !== undefined ? `${at}.text: cache_control cannot be set for empty text blocks` : "messages: text content blocks must be non-empty";
      return undefined;
    case "image": {
      const source = block["source"] as Block | undefined;
      if (source?.["type"] === "base64") {
        if (!IMAGE_MEDIA_TYPES.includes(source["media_type"])) {
          return `${at}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`;
        }
        if (typeof source["data"] !== "string" || source["data"] === "") return `${at}.image.source.base64.data: Field required`;
        if (!/^[A-Za-z0-9+/]+={0,2}$/.test(source["data"])) return `${at}.image.source.base64: invalid base64 data`;
        return undefined;
      }
      if (source?.["type"] === "url") return typeof source["url"] === "string" ? undefined : `${at}.image.source.url.url: Field required`;
      return `${at}.image.source: Input tag '${String(source?.["type"])}' found using 'type' does not match any of the expected tags: 'base64', 'url', 'file'`;
    }
    case "tool_use":
      if (role !== "assistant") return `${at}: \`tool_use\` blocks can only be in \`assistant\` messages`;
      if (typeof block["id"] !== "string" || typeof block["name"] !== "string") return `${at}.tool_use.id: Field required`;
      if (typeof block["input"] !== "object" || block["input"] === null || Array.isArray(block["input"])) return `${at}.tool_use.input: Input should be a valid dictionary`;
      return undefined;
    case "tool_result": {
      if (role !== "user") return `${at}: \`tool_result\` blocks can only be in \`user\` messages`;
      if (typeof block["tool_use_id"] !== "string") return `${at}.tool_result.tool_use_id: Field required`;
      const content = block["content"];
      if (content === undefined || typeof content === "string") return undefined;
      if (!Array.isArray(content)) return `${at}.tool_result.content: Input should be a valid string or list`;
      for (const [k, inner] of (content as Block[]).entries()) {
        if (inner?.["type"] !== "text" && inner?.["type"] !== "image" && inner?.["type"] !== "document" && inner?.["type"] !== "search_result") {
          return `${at}.tool_result.content.${k}.type: Input tag '${String(inner?.["type"])}' found using 'type' does not match any of the expected tags: 'document', 'image', 'search_result', 'text'`;
        }
        const problem = blockProblem(inner, `${at}.tool_result.content.${k}`, "user", verifySignature);
        if (problem) return problem;
      }
      return undefined;
    }
    case "thinking":
      if (role !== "assistant") return `${at}: \`thinking\` blocks can only be in \`assistant\` messages`;
      if (typeof block["thinking"] !== "string") return `${at}.thinking.thinking: Field required`;
      if (typeof block["signature"] !== "string") return `${at}.thinking.signature: Field required`;
      if (!verifySignature(block["thinking"], block["signature"])) return `${at}: Invalid \`signature\` in \`thinking\` block`;
      return undefined;
    case "redacted_thinking":
      return role === "assistant" && typeof block["data"] === "string" ? undefined : `${at}.redacted_thinking.data: Field required`;
    case "document":
      return undefined;
    default:
      return `${at}.type: Input tag '${String(type)}' found using 'type' does not match any of the expected tags: 'text', 'image', 'document', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking'`;
  }
}
