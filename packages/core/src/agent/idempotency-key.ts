/** Where a tool call's idempotency key travels: `config.metadata[IDEMPOTENCY_KEY_METADATA]`. */
export const IDEMPOTENCY_KEY_METADATA = "agentrx_idempotency_key";

/**
 * The stable key of the tool call a tool is running for: unique within its run, and the same
 * across retries, resumes and worker takeovers of that call (it is recorded with the call's
 * action, ahead of the call). It is `<runId>:<iteration>:<toolCallId>`, or
 * `<runId>:<iteration>:<index>` for a call without a `toolCallId` (see {@link idempotencyKeyOf}):
 * the turn tells apart calls of providers that number ids per response. A call an earlier release
 * recorded (without its key) keeps the key it had then, `<runId>:<toolCallId>`. Pass it to the API
 * the tool calls as its idempotency key (Stripe's `Idempotency-Key` header, a database's unique
 * request id), so a call that is run again after a crash has its effect once. `undefined` outside
 * a run of the executor. See docs/runs.md.
 *
 * @example
 * ```ts
 * import { getIdempotencyKey } from "@agentrx/core";
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 *
 * const charge = tool(
 *   async ({ cents }, config) => {
 *     const key = getIdempotencyKey(config); // e.g. "run-1:2:call_0"
 *     return `charged ${cents} (key ${key})`;
 *   },
 *   { name: "charge", description: "Charges the card.", schema: z.object({ cents: z.number() }) },
 * );
 * console.log(charge.name);
 * ```
 */
export function getIdempotencyKey(config: { metadata?: Record<string, unknown> } | undefined): string | undefined {
  const key = config?.metadata?.[IDEMPOTENCY_KEY_METADATA];
  return typeof key === "string" ? key : undefined;
}

/** The idempotency key of the call at `index` of the turn made by agent call `iteration` of run `runId`. */
export function idempotencyKeyOf(runId: string, iteration: number, index: number): string {
  return `${runId}:${iteration}:${index}`;
}
