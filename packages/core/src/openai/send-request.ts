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

/** A streamed request under way, or the body of a reply that is not a stream of server-sent events. */
export type StartedStream =
  | { kind: "stream"; stream: Stream<OpenAI.Chat.ChatCompletionChunk>; release: () => void }
  | { kind: "body"; text: string; contentType: string | null };

/**
 * Starts a streamed request; resolves once its headers arrived (from then on the caller's idle
 * timeout bounds each chunk), with `release` to call when the stream is over. A reply whose
 * `content-type` is not `text/event-stream` (an HTML page from a proxy, or JSON from a server that
 * ignores `stream`) is read whole within the deadline and resolves as its body instead: the SDK
 * would find no event in it and end the stream quietly, as if the connection had been lost. A
 * reply without a `content-type` is read as a stream.
 */
export function requestStream(body: OpenAI.Chat.ChatCompletionCreateParamsStreaming, settings: RequestSettings): Promise<StartedStream> {
  return withRetries(async () => {
    const attempt = startAttempt(settings.signal, settings.timeoutMs);
    try {
      const { data: stream, response } = await settings.client.chat.completions
        .create(body, { signal: attempt.signal, maxRetries: 0 })
        .withResponse();
      const contentType = response.headers.get("content-type");
      if (contentType && !contentType.toLowerCase().includes("text/event-stream")) {
        const text = await response.text();
        attempt.release();
        return { kind: "body", text, contentType };
      }
      attempt.clearDeadline();
      return { kind: "stream", stream, release: attempt.release };
    } catch (error) {
      attempt.release();
      throw attempt.failure(error);
    }
  }, settings);
}
