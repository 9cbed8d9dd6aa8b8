import { InvalidArgumentError } from "@agentrx/core";
import { shownValue } from "./describe";

// Checks of option values, shared by the constructors and helpers of this package so that a bad
// value fails where it is given, with an `InvalidArgumentError` naming the option, rather than
// changing what a parser reads (`toolNames: "search"` spread into letters, an empty marker that
// matches everywhere).

/**
 * Throws an `InvalidArgumentError` unless `value` is a string with a character other than white
 * space. `example` ends the message (`such as "AI"`).
 *
 * @internal
 */
export function assertNonEmptyString(owner: string, argument: string, value: unknown, example = ""): asserts value is string {
  if (typeof value === "string" && value.trim() !== "") return;
  fail(owner, argument, value, `must be a non-empty string${example === "" ? "" : ` ${example}`}`);
}

/**
 * Throws an `InvalidArgumentError` unless `value` is an array of strings with a character other
 * than white space (any character with `whiteSpace`, for stop sequences such as `"\n"`); with
 * `nonEmpty`, of at least one. `note` goes after the expectation (`(or [] for none)`).
 *
 * @internal
 */
export function assertStringArray(
  owner: string,
  argument: string,
  value: unknown,
  { nonEmpty = false, whiteSpace = false, note = "" }: { nonEmpty?: boolean; whiteSpace?: boolean; note?: string } = {},
): asserts value is string[] {
  const filled = (item: unknown) => typeof item === "string" && (whiteSpace ? item !== "" : item.trim() !== "");
  if (Array.isArray(value) && (!nonEmpty || value.length > 0) && value.every(filled)) return;
  fail(owner, argument, value, `must be ${nonEmpty ? "a non-empty array" : "an array"} of non-empty strings${note === "" ? "" : ` ${note}`}`);
}

/**
 * Throws an `InvalidArgumentError` unless `value` is one of `allowed`.
 *
 * @internal
 */
export function assertOneOf<T extends string>(owner: string, argument: string, value: unknown, allowed: readonly T[]): asserts value is T {
  if (allowed.includes(value as T)) return;
  const choices = allowed.map((choice) => JSON.stringify(choice));
  fail(owner, argument, value, `must be ${choices.length > 1 ? `${choices.slice(0, -1).join(", ")} or ${choices.at(-1)}` : choices.join("")}`);
}

function fail(owner: string, argument: string, value: unknown, expectation: string): never {
  throw new InvalidArgumentError({ argument, value, message: `${owner}: \`${argument}\` ${expectation}, got ${shownValue(value)}.` });
}

