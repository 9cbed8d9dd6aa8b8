// Checks of options, done once, when a function is called or a handler is made. @internal
import { InvalidArgumentError } from "@agentrx/core";

export function checkPositiveInteger(where: string, argument: string, value: unknown): asserts value is number {
  if (!(typeof value === "number" && Number.isSafeInteger(value) && value > 0)) {
    throw new InvalidArgumentError({ argument, value, message: `${where}: \`${argument}\` must be an integer > 0, got ${JSON.stringify(value) ?? String(value)}.` });
  }
}

export function checkUsage(where: string, argument: string, value: unknown): void {
  const counts = value as Record<string, unknown> | null;
  const valid = typeof counts === "object" && counts !== null && ["input_tokens", "output_tokens", "total_tokens"].every((key) => typeof counts[key] === "number" && Number.isFinite(counts[key]));
  if (!valid) {
    throw new InvalidArgumentError({
      argument,
      value,
      message: `${where}: \`${argument}\` must be a usage with numbers \`input_tokens\`, \`output_tokens\` and \`total_tokens\` (a run's \`usage\`), got ${JSON.stringify(value) ?? String(value)}.`,
    });
  }
}
