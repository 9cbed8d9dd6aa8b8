// Test-only (not exported by the package): a UI message stream response read as useChat reads it.
import { type UIMessage, parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema, validateUIMessages } from "ai";

/**
 * Reads a response the way useChat does (the `ai` package's SSE parser, chunk schema and message
 * reader), continuing `message` when given; the message is checked with `validateUIMessages`
 * unless `validate` is false.
 */
export async function readUIMessage(response: Response, message?: UIMessage, validate = true): Promise<UIMessage> {
  const chunks = parseJsonEventStream({ stream: response.body as ReadableStream<Uint8Array>, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream({
      transform(result, controller) {
        if (!result.success) throw result.error;
        controller.enqueue(result.value);
      },
    }),
  );
  let last: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream: chunks, terminateOnError: true, ...(message ? { message } : {}) })) last = snapshot;
  if (last === undefined) throw new Error("no message");
  if (validate) await validateUIMessages({ messages: [last] });
  return last;
}
