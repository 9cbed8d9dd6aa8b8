import { InvalidArgumentError } from "@agentrx/core";
import { expect } from "vitest";

/**
 * Asserts that `run` throws an `InvalidArgumentError` for `argument` whose message matches
 * `message`.
 */
export function expectInvalidArgument(run: () => unknown, argument: string, message: RegExp): void {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(InvalidArgumentError.isInstance(thrown), `expected an InvalidArgumentError, got ${String(thrown)}`).toBe(true);
  expect(thrown).toMatchObject({ argument, message: expect.stringMatching(message) });
}
