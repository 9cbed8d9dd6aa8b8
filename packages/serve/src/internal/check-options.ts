// Checks of options, done once, when a function is called or a handler is made. @internal
import { InvalidArgumentError, MAX_TIMER_DELAY_MS, showValue } from "@agentrx/core";

export function checkPositiveInteger(where: string, argument: string, value: unknown): asserts value is number {
  if (!(typeof value === "number" && Number.isSafeInteger(value) && value > 0)) {
    throw new InvalidArgumentError({ argument, value, message: `${where}: \`${argument}\` must be an integer > 0, got ${showValue(value)}.` });
  }
}

/** A number of milliseconds for a timer: an integer from 1 to `MAX_TIMER_DELAY_MS` (a longer delay fires every millisecond). */
export function checkTimerMs(where: string, argument: string, value: unknown): asserts value is number {
  checkPositiveInteger(where, argument, value);
  if (value > MAX_TIMER_DELAY_MS) {
    throw new InvalidArgumentError({ argument, value, message: `${where}: \`${argument}\` must be at most ${MAX_TIMER_DELAY_MS} (about 24.8 days, the longest a timer waits; a longer one would fire every millisecond), got ${value}.` });
  }
}

export function checkUsage(where: string, argument: string, value: unknown): void {
  const counts = value as Record<string, unknown> | null;
  const valid = typeof counts === "object" && counts !== null && ["input_tokens", "output_tokens", "total_tokens"].every((key) => typeof counts[key] === "number" && Number.isFinite(counts[key]));
  if (!valid) {
    throw new InvalidArgumentError({
      argument,
      value,
      message: `${where}: \`${argument}\` must be a usage with numbers \`input_tokens\`, \`output_tokens\` and \`total_tokens\` (a run's \`usage\`), got ${showValue(value)}.`,
    });
  }
}

/** The executor a handler serves: an `AgentExecutor`, or an object with the `methods` the handler calls. */
export function checkExecutor(where: string, executor: unknown, methods: readonly ("stream" | "resume")[]): void {
  const given = executor as Record<string, unknown> | null | undefined;
  if (typeof given !== "object" || given === null || methods.some((method) => typeof given[method] !== "function")) {
    throw new InvalidArgumentError({ argument: "executor", value: executor, message: `${where}: \`executor\` must be an AgentExecutor from @agentrx/executors.` });
  }
}

/** An optional function option (`onError`, `inputs`): a value that is not one would fail every request. */
export function checkFunction(where: string, argument: string, value: unknown, shape: string): void {
  if (value !== undefined && typeof value !== "function") {
    throw new InvalidArgumentError({ argument, value, message: `${where}: \`${argument}\` must be a function \`${shape}\`.` });
  }
}
