import { STEP_METADATA_KEY, type StepMetadata } from "@agentrx/core";
import type { RunnableConfig } from "@langchain/core/runnables";

/** A config carrying a fresh step-metadata record, as the executor passes one. */
export function configWithMetadata(extra: RunnableConfig = {}): { config: RunnableConfig; metadata: StepMetadata } {
  const metadata: StepMetadata = {};
  return { config: { ...extra, configurable: { [STEP_METADATA_KEY]: metadata } }, metadata };
}

/** A promise with its resolve and reject exposed. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
