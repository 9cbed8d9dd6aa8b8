// Test-only: a Server-Sent Events client on `fetch`, parsing the stream as the HTML standard says
// (fields, blank-line dispatch, the last event id kept across events), able to disconnect midway.

export interface SseMessage {
  event: string;
  data: string;
  /** Whether this message carried an `id` field itself. */
  hasId: boolean;
  /** The last event id when it was dispatched. */
  lastEventId: string;
}

export interface SseRead {
  status: number;
  messages: SseMessage[];
  /** The last event id at the end (what a browser sends as `Last-Event-ID` when it reconnects). */
  lastEventId: string;
}

/**
 * Reads `url` as an event stream until the server ends it, or until `stopAfter` returns true for a
 * message (then the connection is dropped, as when a network goes away).
 */
export async function readSse(url: string, options: { lastEventId?: string; stopAfter?: (message: SseMessage) => boolean } = {}): Promise<SseRead> {
  const controller = new AbortController();
  const headers: Record<string, string> = { accept: "text/event-stream" };
  if (options.lastEventId !== undefined) headers["last-event-id"] = options.lastEventId;
  const response = await fetch(url, { headers, signal: controller.signal });
  const messages: SseMessage[] = [];
  let lastEventId = options.lastEventId ?? "";
  if (response.body === null || response.status !== 200) {
    await response.body?.cancel();
    return { status: response.status, messages, lastEventId };
  }
  const decoder = new TextDecoder();
  let buffer = "";
  let event = "";
  let data: string[] = [];
  let idBuffer = lastEventId;
  let hasId = false;
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
        if (line === "") {
          lastEventId = idBuffer;
          if (data.length > 0) {
            const message = { event: event || "message", data: data.join("\n"), hasId, lastEventId };
            messages.push(message);
            if (options.stopAfter?.(message)) {
              controller.abort();
              return { status: response.status, messages, lastEventId };
            }
          }
          event = "";
          data = [];
          hasId = false;
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event = text;
        else if (field === "data") data.push(text);
        else if (field === "id" && !text.includes("\0")) {
          idBuffer = text;
          hasId = true;
        }
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  }
  return { status: response.status, messages, lastEventId };
}
