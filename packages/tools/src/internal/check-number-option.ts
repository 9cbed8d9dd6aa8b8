import { InvalidArgumentError, showValue } from "@agentrx/core";

/**
 * Throws an InvalidArgumentError naming `argument` unless `value` is a number within [min, max] (an
 * integer if asked). An integer option may be `Infinity` ("no limit", as `maxAttempts` takes it)
 * unless `finite` is set, for a count that must be a real number (a vector store's `k`).
 */
export function checkNumberOption(
  argument: string,
  value: unknown,
  { min = 0, max = Number.POSITIVE_INFINITY, integer = false, finite = false }: { min?: number; max?: number; integer?: boolean; finite?: boolean } = {},
): number {
  const ok =
    typeof value === "number" &&
    !Number.isNaN(value) &&
    value >= min &&
    value <= max &&
    (!finite || Number.isFinite(value)) &&
    (!integer || Number.isInteger(value) || (!finite && value === Number.POSITIVE_INFINITY));
  if (!ok) {
    const kind = integer ? "an integer" : "a number";
    const range = max === Number.POSITIVE_INFINITY ? `>= ${min}` : `between ${min} and ${max}`;
    throw new InvalidArgumentError({
      argument,
      value,
      message: `${argument} must be ${kind} ${range}, got ${showValue(value)}.`,
    });
  }
  return value;
}
