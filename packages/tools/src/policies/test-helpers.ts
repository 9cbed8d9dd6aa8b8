import { STEP_METADATA_KEY, type StepMetadata } from "@agentrx/core";
import type { RunnableConfig } from "@langchain/core/runnables";

export { deferred } from "@agentrx/core/testing";

/** A config carrying a fresh step-metadata record, as the executor passes one. */
export function configWithMetadata(extra: RunnableConfig = {}): { config: RunnableConfig; metadata: StepMetadata } {
  const metadata: StepMetadata = {};
  return { config: { ...extra, configurable: { [STEP_METADATA_KEY]: metadata } }, metadata };
}

