import { getIdempotencyKey } from "@agentrx/core";
import type { RunnableConfig } from "@langchain/core/runnables";
import { responseToObservation } from "./format-response";
import { type SafeHttpClient, type SafeHttpRequest, isRetrySafe } from "./safe-http-client";

/** How a tool's HTTP request is answered: which statuses are retryable, and the idempotency key's header. */
export interface ToolRequestSettings {
  retryableStatuses: readonly number[];
  /** The client's `idempotencyKeyHeader`, if any. */
  idempotencyKeyHeader: string | undefined;
}

/**
 * Sends a tool call's HTTP request and makes its observation (see `responseToObservation`): with
 * the call's signal, and its idempotency key (`getIdempotencyKey(config)`) for the client to send
 * in `idempotencyKeyHeader`, which makes a POST or PATCH safe to retry. Shared by the HTTP request
 * tool and the OpenAPI toolkit's tools.
 *
 * @internal
 */
export async function toolRequest(client: SafeHttpClient, request: SafeHttpRequest, config: RunnableConfig | undefined, settings: ToolRequestSettings): Promise<string> {
  const idempotencyKey = getIdempotencyKey(config);
  const response = await client.request(request, { signal: config?.signal, ...(idempotencyKey === undefined ? {} : { idempotencyKey }) });
  return responseToObservation(response, settings.retryableStatuses, isRetrySafe(request.method, settings.idempotencyKeyHeader, idempotencyKey));
}
