// Sums the usage of a run's model calls (the counts the protocols carry). @internal
import type { UsageMetadata } from "@langchain/core/messages";

export function addUsage(total: UsageMetadata | undefined, usage: UsageMetadata): UsageMetadata {
  if (total === undefined) return { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens, total_tokens: usage.total_tokens };
  return {
    input_tokens: total.input_tokens + usage.input_tokens,
    output_tokens: total.output_tokens + usage.output_tokens,
    total_tokens: total.total_tokens + usage.total_tokens,
  };
}
