import type { AgentAction } from "@langchain/core/agents";
import type { RunnableConfig } from "@langchain/core/runnables";

/**
 * The `config.configurable` key under which the executor passes each tool call a mutable record.
 * Tool policies (timeout, retry, cache, ...) write what they measured into it, and the executor
 * carries that record in the tool call's `step` event as `metadata`.
 */
export const STEP_METADATA_KEY = "__agentrx_step_metadata";

/** What tool policies report about one tool call. Policies may add their own fields. */
export interface StepMetadata {
  /** Wall time of the tool call in milliseconds, as measured by a policy. */
  durationMs?: number;
  /** How many attempts the call took (retry policy). */
  attempts?: number;
  /** Whether the result came from a cache (cache policy). */
  cached?: boolean;
  /** Why the call failed (the message of what it threw, after every retry): set only when it failed. */
  error?: string;
  /** The error message of each failed attempt, in order (retry policy): set when an attempt failed, even if a later one succeeded. */
  attemptErrors?: string[];
  /** Whether at least one attempt timed out (timeout policy). */
  timedOut?: boolean;
  /** Milliseconds the call waited for a slot, summed over its attempts (concurrency-limit policy). */
  queuedMs?: number;
  /** A person rejected the call (a `reject` decision on its approval): the tool did not run, the observation is the rejection. */
  rejected?: boolean;
  /**
   * The call failed and its observation says why (set by the executor): the tool threw (the
   * observation is what `handleToolRuntimeErrors` made of the error), the tool's schema refused
   * the input, or no tool has the name the agent asked for.
   */
  failed?: boolean;
  /**
   * The tool never ran: its schema refused the call's input, or a string came for a tool that
   * takes named arguments (set by the executor, with `failed`). A `returnDirect` tool's turn then
   * goes back to the model, which can fix the call, instead of ending the run with the refusal.
   */
  refusedInput?: boolean;
  /**
   * The call was a `handoff` whose other agent did not answer: its run failed, stopped at a limit
   * of its own, or would have been nested too deep (set by the handoff, with `failed`). Its turn
   * then goes back to the model, which reads why, instead of ending the run with that observation
   * as its answer.
   */
  handoffFailed?: boolean;
  /**
   * The observation is not what the tool returned but one a person gave (set by the executor): a
   * fork's `edit.observation` (the fork's copy of the step), or a result supplied on resume with a
   * `{ type: "result", observation }` decision. With middleware, it went through the
   * `wrapToolCall` chain as a live result would.
   */
  observationEdited?: boolean;
  /**
   * The call that ran, when a `wrapToolCall` middleware gave its `next` another action than the
   * one the model asked for (a changed input, another tool); the step's `action` stays the one asked
   * for (set by the executor).
   */
  ranWith?: { tool: string; toolInput: AgentAction["toolInput"] };
  [key: string]: unknown;
}

/**
 * Returns the step-metadata record the executor passed in `config`, or `undefined` when the tool
 * runs outside an executor.
 *
 * @example
 * ```ts
 * import { getStepMetadata } from "@agentrx/core";
 *
 * const metadata = getStepMetadata({ configurable: { __agentrx_step_metadata: {} } });
 * if (metadata) metadata.attempts = 2;
 * ```
 */
export function getStepMetadata(config: RunnableConfig | undefined): StepMetadata | undefined {
  const value = config?.configurable?.[STEP_METADATA_KEY];
  return typeof value === "object" && value !== null ? (value as StepMetadata) : undefined;
}
