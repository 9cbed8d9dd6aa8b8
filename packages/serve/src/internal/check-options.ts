// Checks of options, done once, when a function is called or a handler is made. @internal
import { InvalidArgumentError } from "@agentrx/core";

export function checkPositiveInteger(where: string, argument: string, value: unknown): asserts value is number {
  if (!(typeof value === "number" && Number.isSafeInteger(value) && value > 0)) {
    throw new InvalidArgumentError({ argument, value, message: `${where}: \`${argument}\` must be an integer > 0, got ${JSON.stringify(value) ?? String(value)}.` });
  }
}
