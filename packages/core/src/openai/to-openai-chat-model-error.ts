import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { AbortError, isAbortError } from "../errors/abort-error";
import { AgentRxError } from "../errors/agentrx-error";
import {
  OpenAIAuthenticationError,
  OpenAIBadRequestError,
  OpenAIConnectionError,
  OpenAIRateLimitError,
  OpenAIResponseError,
  OpenAIServerError,
  OpenAITimeoutError,
} from "./openai-chat-model-error";
import { serverMessageOf } from "./error-body";
import { AttemptTimeout } from "./start-attempt";
import { StreamIdleTimeout } from "./with-idle-timeout";
import { attemptsOf, isQuotaExhausted } from "./with-retries";

/** What the model knew when the call failed. */
export interface FailureContext {
  model: string;
  baseURL: string;
  timeoutMs: number | undefined;
  maxRetries: number;
  signal: AbortSignal | undefined;
  /** How many SSE chunks had arrived when a streamed response failed; `undefined` before streaming. */
  chunksReceived: number | undefined;
  /** Whether the requests went through a client the caller passed in, whose error bodies the model cannot read. */
  clientPassedIn?: boolean;
}

/**
 * Turns whatever the `openai` SDK (or the network) threw into an AgentRx error that says what went
 * wrong and how to fix it. Aborts become `AbortError`s.
 */
export function toOpenAIChatModelError(error: unknown, context: FailureContext): Error {
  if (AgentRxError.isInstance(error)) return error;
  const { model, baseURL } = context;
  // The attempts made: fewer than `maxRetries + 1` when one failed in a way not worth retrying.
  const attempts = attemptsOf(error) ?? context.maxRetries + 1;
  const allTried = attempts >= context.maxRetries + 1;
  const afterAttempts = `after ${attempts} attempt${attempts === 1 ? "" : "s"}${allTried ? "" : " (the server said not to retry)"}`;
  const base = { model, baseURL, cause: error };
  if (context.signal?.aborted || error instanceof APIUserAbortError || isAbortError(error)) {
    const reason = context.signal?.reason;
    return AbortError.isInstance(reason) ? reason : new AbortError({ reason: reason ?? error });
  }
  if (error instanceof StreamIdleTimeout) {
    return new OpenAITimeoutError({
      ...base,
      timeoutMs: error.ms,
      message:
        `The stream from ${baseURL} for model "${model}" stalled: nothing arrived for ${error.ms} ms after ` +
        `${context.chunksReceived ?? 0} chunk(s). Raise the \`timeout\` option or check that the server is responsive.`,
    });
  }
  if (error instanceof APIConnectionTimeoutError || error instanceof AttemptTimeout) {
    const timeoutMs = error instanceof AttemptTimeout ? error.ms : context.timeoutMs;
    return new OpenAITimeoutError({
      ...base,
      timeoutMs,
      message:
        `The request to ${baseURL} for model "${model}" timed out` +
        `${timeoutMs !== undefined ? ` after ${timeoutMs} ms` : ""}` +
        `${attempts > 1 ? ` (the last of ${attempts} attempts)` : ""}. ` +
        "Raise the `timeout` option or check that the server is responsive.",
    });
  }
  if (error instanceof APIConnectionError) {
    return new OpenAIConnectionError({
      ...base,
      message: `Could not connect to ${baseURL}: ${describeCause(error)}. Check \`baseURL\` (or OPENAI_BASE_URL) and that the server is running.`,
    });
  }
  if (error instanceof APIError && typeof error.status === "number") {
    const status = error.status;
    const serverMessage = serverMessageOf(error, { clientPassedIn: context.clientPassedIn ?? false });
    if (status === 401) {
      return new OpenAIAuthenticationError({
        ...base,
        status,
        message:
          `The server at ${baseURL} rejected the API key (${status}): ${serverMessage} ` +
          "Pass a valid `apiKey` or set OPENAI_API_KEY.",
      });
    }
    if (status === 403) {
      // The key was accepted but may not do this (a model, project or region it has no access to).
      return new OpenAIAuthenticationError({
        ...base,
        status,
        message:
          `The server at ${baseURL} refused access to model "${model}" (${status}): ${serverMessage} ` +
          "Check that the API key's project or organization has access to this model.",
      });
    }
    if (status === 429 && isQuotaExhausted(error)) {
      return new OpenAIRateLimitError({
        ...base,
        status,
        retryAfter: retryAfterOf(error.headers),
        message:
          `The server at ${baseURL} refused model "${model}" because the account's quota is used up (429 insufficient_quota, ` +
          `not retried): ${serverMessage} Check the plan and billing of the API key's account; retrying will not help.`,
      });
    }
    if (status === 429) {
      return new OpenAIRateLimitError({
        ...base,
        status,
        retryAfter: retryAfterOf(error.headers),
        message:
          `The server at ${baseURL} is rate limiting model "${model}" (429) ${afterAttempts}: ${serverMessage}` +
          `${allTried ? " Raise `maxRetries` or slow down." : " Slow down."}`,
      });
    }
    if (status >= 500) {
      return new OpenAIServerError({
        ...base,
        status,
        message:
          `The server at ${baseURL} failed (${status}) ${afterAttempts}: ${serverMessage}`,
      });
    }
    const hint = status === 404 ? ` Check \`model\` ("${model}") and \`baseURL\`.` : "";
    return new OpenAIBadRequestError({
      ...base,
      status,
      message: `The server at ${baseURL} rejected the request for model "${model}" (${status}): ${serverMessage}${hint}`,
    });
  }
  if (context.chunksReceived !== undefined) {
    if (error instanceof APIError) {
      // An error event in the stream (`data: {"error": {...}}`): the server's own failure, not the network's.
      return new OpenAIServerError({
        ...base,
        message:
          `The server at ${baseURL} reported an error in the middle of the stream for model "${model}", after ` +
          `${context.chunksReceived} chunk(s): ${serverMessageOf(error, { clientPassedIn: context.clientPassedIn ?? false })}`,
      });
    }
    if (error instanceof SyntaxError) {
      return new OpenAIResponseError({
        ...base,
        message: `The server at ${baseURL} sent a malformed streaming event after ${context.chunksReceived} chunk(s): ${error.message}`,
      });
    }
    return new OpenAIConnectionError({
      ...base,
      midStream: true,
      message:
        `The connection to ${baseURL} was lost mid-stream after ${context.chunksReceived} chunk(s) ` +
        `of the response: ${describeCause(error)}.`,
    });
  }
  if (error instanceof SyntaxError) {
    return new OpenAIResponseError({ ...base, message: `The server at ${baseURL} sent a response that is not valid JSON: ${error.message}` });
  }
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * What the server asked to wait, as a `Retry-After` value: that header as sent, else a positive
 * `retry-after-ms` (OpenAI's own header) in seconds.
 */
function retryAfterOf(headers: Headers | undefined): string | undefined {
  const header = headers?.get("retry-after")?.trim();
  if (header) return header;
  const milliseconds = Number(headers?.get("retry-after-ms")?.trim() || Number.NaN);
  return Number.isFinite(milliseconds) && milliseconds > 0 ? String(milliseconds / 1000) : undefined;
}

function describeCause(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    if (current.message && !parts.includes(current.message)) parts.push(current.message);
    current = current.cause;
  }
  return parts.join(": ") || String(error);
}
