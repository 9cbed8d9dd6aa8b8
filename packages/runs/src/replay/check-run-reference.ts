import { InvalidArgumentError, showValue } from "@agentrx/core";
import type { RunStore } from "@agentrx/executors";

// What reading a recorded run needs of a store. Checked once, where the store and run id are given.
const READ_METHODS = ["getRun", "readEvents"] as const;

/**
 * Throws an `InvalidArgumentError` naming the argument unless `store` can read runs (has `getRun`
 * and `readEvents`) and `runId` is a non-empty string. `owner` names the caller in the message.
 *
 * @internal
 */
export function checkRunReference(owner: string, store: unknown, runId: unknown): asserts store is RunStore {
  const missing = READ_METHODS.filter((name) => typeof (store as Record<string, unknown> | null | undefined)?.[name] !== "function");
  if (missing.length > 0) {
    throw new InvalidArgumentError({
      argument: "store",
      value: store,
      message: `${owner}: \`store\` must be a RunStore (e.g. new SqliteRunStore() from @agentrx/runs), got ${describe(store)} without ${missing.join(" and ")}.`,
    });
  }
  if (typeof runId !== "string" || runId === "") {
    throw new InvalidArgumentError({
      argument: "runId",
      value: runId,
      message: `${owner}: \`runId\` must be the non-empty id of a recorded run, got ${showValue(runId)}.`,
    });
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : typeof value;
}
