// Shared checks of the options of `createRunWorker` and `RunClient`, done once, at construction. @internal
import { InvalidArgumentError } from "@agentrx/core";
import type { RunStore } from "@agentrx/executors";

const STORE_METHODS = ["createRun", "claimRun", "write", "getRun", "readEvents"] as const;

export function show(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "function") return "a function";
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  return typeof value === "object" ? "an object" : String(value);
}

export function fail(where: string, argument: string, value: unknown, expected: string): never {
  throw new InvalidArgumentError({ argument, value, message: `${where}: \`${argument}\` must be ${expected}, got ${show(value)}.` });
}

export function checkObject(where: string, argument: string, value: unknown): asserts value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) fail(where, argument, value, "an object");
}

export function checkStore(where: string, store: unknown): asserts store is RunStore {
  const missing = STORE_METHODS.filter((name) => typeof (store as Record<string, unknown> | null)?.[name] !== "function");
  if (missing.length > 0) {
    fail(where, "store", store, `a RunStore shared by every worker and client (e.g. new PostgresRunStore() from @agentrx/runs); it has no ${missing.join(", ")} method`);
  }
}

export function checkName(where: string, argument: string, value: unknown): asserts value is string {
  if (typeof value !== "string" || value === "" || value.includes(":")) fail(where, argument, value, "a non-empty string without `:`");
}

export function checkInteger(where: string, argument: string, value: unknown, min: number): asserts value is number {
  if (!(typeof value === "number" && Number.isInteger(value) && value >= min && value < 2 ** 31)) fail(where, argument, value, `an integer >= ${min}`);
}

export function checkRunId(where: string, runId: unknown): asserts runId is string {
  if (typeof runId !== "string" || runId === "") fail(where, "runId", runId, "a non-empty string");
}
