import { STEP_METADATA_KEY, type StepMetadata } from "@agentrx/core";
import type { RunnableConfig } from "@langchain/core/runnables";

export { deferred } from "@agentrx/core/testing";

/** A config carrying a fresh step-metadata record, as the executor passes one. */
export function configWithMetadata(extra: RunnableConfig = {}): { config: RunnableConfig; metadata: StepMetadata } {
  const metadata: StepMetadata = {};
  return { config: { ...extra, configurable: { [STEP_METADATA_KEY]: metadata } }, metadata };
}


/**
 * A controller whose signal aborts itself at the moment, once `arm()` was called, that a listener
 * for its `abort` is removed: when the code under test stops waiting on the signal (it was handed
 * what it waited for), before it resumes. Deterministic, where a real abort would need a race.
 */
export function abortWhenUnlistened(): { controller: AbortController; arm: () => void } {
  const controller = new AbortController();
  let armed = false;
  const stopListening = controller.signal.removeEventListener.bind(controller.signal);
  controller.signal.removeEventListener = (...args: Parameters<AbortSignal["removeEventListener"]>) => {
    stopListening(...args);
    if (armed && args[0] === "abort" && !controller.signal.aborted) controller.abort();
  };
  return {
    controller,
    arm: () => {
      armed = true;
    },
  };
}
