// OpenAIChatModel's requests: the SDK is asked for one attempt at a time, each under its own
// deadline (see start-attempt.ts), and withRetries retries them.
import type OpenAI from "openai";
import type { Stream } from "openai/streaming";
import { startAttempt } from "./start-attempt";
import { withRetries } from "./with-retries";

/** How a request is sent. */
export interface RequestSettings {
  /** The client that makes each attempt. */
  client: OpenAI;
  /** The deadline of one attempt (the model's `timeout`). */
  timeoutMs: number | undefined;
  /** Retries after the first attempt. */
  maxRetries: number;
  /** The cap on one wait between attempts. */
  maxRetryDelayMs: number;
  /** The caller's signal. */
  signal: AbortSignal | undefined;
}

/** Sends a request that is not streamed; resolves with its parsed body and content type, read within the deadline. */
export function requestCompletion(
  body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
  settings: RequestSettings,
): Promise<{ data: unknown; contentType: string | null }> {
  return withRetries(async () => {
    const attempt = startAttempt(settings.signal, settings.timeoutMs);
    try {
      const { data, response } = await settings.client.chat.completions
        .create(body, { signal: attempt.signal, maxRetries: 0 })
        .withResponse();
      return { data, contentType: response.headers.get("content-type") };
    } catch (error) {
      throw attempt.failure(error);
    } finally {
      attempt.release();
    }
  }, settings);
}

/**
 * Starts a streamed request; resolves once its headers arrived (from then on the caller's idle
 * timeout bounds each chunk), with `release` to call when the stream is over.
 */
export function requestStream(
  body: OpenAI.Chat.ChatCompletionCreateParamsStreaming,
  settings: RequestSettings,
): Promise<{ stream: Stream<OpenAI.Chat.ChatCompletionChunk>; release: () => void }> {
  return withRetries(async () => {
    const attempt = startAttempt(settings.signal, settings.timeoutMs);
    try {
      const stream = await settings.client.chat.completions.create(body, { signal: attempt.signal, maxRetries: 0 });
      attempt.clearDeadline();
      return { stream, release: attempt.release };
    } catch (error) {
      attempt.release();
      throw attempt.failure(error);
    }
  }, settings);
}
