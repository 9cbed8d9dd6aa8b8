// Sums the usage of a run's model calls: the token counts, their details (cache reads and writes,
// reasoning tokens, ...) and the cost, as the executor sums a run's usage. @internal
import { type RunUsage, addCost } from "@agentrx/executors";

export function addUsage(total: RunUsage | undefined, usage: RunUsage): RunUsage {
  if (total === undefined) return copyUsage(usage);
  const sum: RunUsage = {
    input_tokens: total.input_tokens + usage.input_tokens,
    output_tokens: total.output_tokens + usage.output_tokens,
    total_tokens: total.total_tokens + usage.total_tokens,
  };
  const input = addDetails(total.input_token_details, usage.input_token_details);
  if (input !== undefined) sum.input_token_details = input;
  const output = addDetails(total.output_token_details, usage.output_token_details);
  if (output !== undefined) sum.output_token_details = output;
  const cost = addCost(total.cost, usage.cost);
  if (cost !== undefined) sum.cost = cost;
  return sum;
}

/** A copy of a usage, its details and cost included (so that summing into it never changes the caller's). */
function copyUsage(usage: RunUsage): RunUsage {
  return {
    ...usage,
    ...(usage.input_token_details === undefined ? {} : { input_token_details: { ...usage.input_token_details } }),
    ...(usage.output_token_details === undefined ? {} : { output_token_details: { ...usage.output_token_details } }),
    ...(usage.cost === undefined ? {} : { cost: { ...usage.cost } }),
  };
}

/** Two detail records summed key by key (a count only one of them has is kept as it is). */
function addDetails<T extends object>(a: T | undefined, b: T | undefined): T | undefined {
  if (a === undefined) return b === undefined ? undefined : { ...b };
  if (b === undefined) return { ...a };
  const out: Record<string, number> = { ...(a as Record<string, number>) };
  for (const [key, value] of Object.entries(b as Record<string, unknown>)) {
    if (typeof value === "number") out[key] = (out[key] ?? 0) + value;
  }
  return out as T;
}
