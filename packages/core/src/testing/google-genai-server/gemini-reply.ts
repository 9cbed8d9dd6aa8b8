// Replies of the Gemini loopback server: a scripted turn as a `GenerateContentResponse`, or as the
// chunks `streamGenerateContent?alt=sse` sends (not exported from the package).

/** A function call the Gemini loopback server sends (a `functionCall` part). */
export interface GeminiLoopbackToolCall {
  /** The function's name. */
  name: string;
  /** Its arguments. @default {} */
  args?: Record<string, unknown>;
}

/** One scripted turn of the Gemini loopback server. */
export interface GeminiLoopbackTurn {
  /**
   * The model's thinking: a thought part (`thought: true`) first, when the request asks for
   * `thinkingConfig.includeThoughts`; counted in `usageMetadata.thoughtsTokenCount` either way.
   */
  thinking?: string;
  /** The model's text (a text part). */
  text?: string;
  /** Function calls (`functionCall` parts), after the text; the first carries the step's `thoughtSignature`. */
  toolCalls?: GeminiLoopbackToolCall[];
  /** @default "STOP" */
  finishReason?: "STOP" | "MAX_TOKENS" | "SAFETY" | "RECITATION" | "OTHER";
}

/** An HTTP error the Gemini loopback server answers with, in Google's error format. */
export interface GeminiLoopbackError {
  /** The HTTP status (400, 429, 500...). */
  status: number;
  /** `error.message`. @default a message naming the status */
  message?: string;
}

/** Gemini's `usageMetadata`. */
export interface GeminiUsageMetadata {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
}

/** A part of a Gemini content. */
export type GeminiPart = Record<string, unknown>;

/** The parts of a scripted turn; `signature` is called once per turn that has function calls. */
export function turnParts(turn: GeminiLoopbackTurn, includeThoughts: boolean, signature: () => string): GeminiPart[] {
  const parts: GeminiPart[] = [];
  if (turn.thinking !== undefined && includeThoughts) parts.push({ text: turn.thinking, thought: true });
  if (turn.text) parts.push({ text: turn.text });
  for (const [position, call] of (turn.toolCalls ?? []).entries()) {
    parts.push({ functionCall: { name: call.name, args: call.args ?? {} }, ...(position === 0 ? { thoughtSignature: signature() } : {}) });
  }
  return parts.length ? parts : [{ text: "" }];
}

/** Rough token count of a value: its JSON's characters / 4. */
export function geminiTokens(value: unknown): number {
  return Math.ceil(JSON.stringify(value ?? "").length / 4);
}

/** The `GenerateContentResponse` of a turn. */
export function generateContentResponse(parts: GeminiPart[], finishReason: string, usage: GeminiUsageMetadata, model: string): Record<string, unknown> {
  return {
    candidates: [{ content: { role: "model", parts }, finishReason, index: 0 }],
    usageMetadata: usage,
    modelVersion: model,
  };
}

/**
 * The chunks of a streamed turn, as Gemini streams them: the thought part, the text word by word,
 * each function call whole, then a last chunk with the finish reason and the usage.
 */
export function streamChunks(parts: GeminiPart[], finishReason: string, usage: GeminiUsageMetadata, model: string): Record<string, unknown>[] {
  const chunk = (chunkParts: GeminiPart[]) => ({ candidates: [{ content: { role: "model", parts: chunkParts }, index: 0 }], modelVersion: model });
  const chunks: Record<string, unknown>[] = [];
  for (const part of parts) {
    if (typeof part["text"] === "string" && part["thought"] !== true && part["text"]) {
      for (const word of (part["text"] as string).match(/\s*\S+\s*/g) ?? []) chunks.push(chunk([{ text: word }]));
    } else if (part["text"] !== "") chunks.push(chunk([part]));
  }
  chunks.push({ ...generateContentResponse([{ text: "" }], finishReason, usage, model) });
  return chunks;
}
