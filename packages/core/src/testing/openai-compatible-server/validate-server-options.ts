import { InvalidArgumentError } from "../../errors/invalid-argument-error";

/** Validates the options of `startOpenAICompatibleServer`; throws `InvalidArgumentError`. */
export function validateServerOptions(
  responses: unknown,
  onExhausted: unknown,
  chunkSize: unknown,
  toolCallChunkSize: unknown,
  tokenDelayMs: unknown,
  validateRequests: unknown,
  toolCallOrder: unknown = "interleaved",
  reasoningField: unknown = "reasoning_content",
): void {
  const fail = (argument: string, value: unknown, expected: string) => {
    throw new InvalidArgumentError({
      argument,
      value,
      message: `startOpenAICompatibleServer: \`${argument}\` must be ${expected}, got ${String(value)}.`,
    });
  };
  if (!Array.isArray(responses)) fail("responses", responses, "an array of replies");
  if (!["error", "repeat-last", "cycle"].includes(onExhausted as string)) {
    fail("onExhausted", onExhausted, '"error", "repeat-last" or "cycle"');
  }
  if (chunkSize !== "word" && !(Number.isInteger(chunkSize) && (chunkSize as number) > 0)) {
    fail("chunkSize", chunkSize, '"word" or a positive integer');
  }
  if (!(Number.isInteger(toolCallChunkSize) && (toolCallChunkSize as number) > 0)) {
    fail("toolCallChunkSize", toolCallChunkSize, "a positive integer");
  }
  if (toolCallOrder !== "interleaved" && toolCallOrder !== "sequential") {
    fail("toolCallOrder", toolCallOrder, '"interleaved" or "sequential"');
  }
  if (reasoningField !== "reasoning_content" && reasoningField !== "reasoning") {
    fail("reasoningField", reasoningField, '"reasoning_content" or "reasoning"');
  }
  if (typeof tokenDelayMs !== "number" || !(tokenDelayMs >= 0)) fail("tokenDelayMs", tokenDelayMs, "a number >= 0");
  if (typeof validateRequests !== "boolean") fail("validateRequests", validateRequests, "true or false");
}
