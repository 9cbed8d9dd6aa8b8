// Reading a request's body within a byte limit, and the check of its content-type, for the HTTP
// handlers (createAGUIHandler and createA2AHandler; see docs/serving.md). @internal
import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * How long a refused body is still read (and discarded) once the `413` has been sent, in ms: a
 * client that sends while it reads has its answer by then; one still sending is cut off.
 */
const LINGER_MS = 2_000;

/**
 * The request's body as text, read up to `max` bytes; undefined once the request was answered `413`
 * because its body is larger (its declared `content-length`, before reading, or its bytes so far,
 * at the chunk that crosses `max`), and the caller has nothing more to do. Rejects when the body
 * cannot be read (the client went away mid-request).
 *
 * A refused body is not held: the rest of it is read and discarded, so that a client still sending
 * it is not reset before it has its answer, and the connection closes (`connection: close`) once
 * the body has been read, or {@link LINGER_MS} after the answer was sent, whichever comes first: a
 * client sending a huge body slowly does not keep the connection until `server.requestTimeout`.
 */
export function readBody(request: IncomingMessage, response: ServerResponse, max: number): Promise<string | undefined> {
  if (Number(request.headers["content-length"]) > max) {
    refuseTooLarge(request, response, max);
    return Promise.resolve(undefined);
  }
  if (request.readableEnded) return Promise.resolve(""); // already read by someone else: nothing left
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size <= max) {
        chunks.push(bytes);
        return;
      }
      settled = true;
      request.off("data", onData);
      chunks.length = 0;
      refuseTooLarge(request, response, max);
      resolve(undefined);
    };
    request.on("data", onData);
    request.once("end", () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
    request.once("error", (error) => {
      if (settled) return;
      settled = true;
      reject(error);
    });
    request.once("close", () => {
      if (settled) return;
      settled = true;
      reject(new Error("The request closed before its body was read."));
    });
  });
}

/**
 * Answers `413` naming the limit at once, with the whole answer sent (so a client that reads while
 * it sends has it), reads and discards the rest of the body, and ends the response, which closes the
 * connection, once the body has been read (or the client went away), or a while after the answer
 * was sent.
 */
function refuseTooLarge(request: IncomingMessage, response: ServerResponse, max: number): void {
  const text = `The request body is larger than ${max} bytes (\`maxBodyBytes\`).\n`;
  response.writeHead(413, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(text), connection: "close" });
  let linger: ReturnType<typeof setTimeout> | undefined;
  const close = () => {
    clearTimeout(linger);
    // Node closes the connection once the response ends (it says `connection: close`).
    if (!response.writableEnded) response.end();
  };
  // Once the answer is flushed, the rest of the body has a while to arrive; then the connection closes.
  response.write(text, () => {
    if (!response.writableEnded) linger = setTimeout(close, LINGER_MS).unref();
  });
  request.on("error", close); // the client went away while its body was discarded
  if (request.readableEnded) close();
  else request.once("end", close).once("close", close);
  request.resume();
}

/**
 * Whether a request's `content-type` says JSON: `application/json`, with or without parameters
 * (`; charset=utf-8`), in any case, or none at all (a body taken as JSON), as `@a2a-js/sdk`'s and
 * `@ag-ui/client`'s clients send it.
 */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return true;
  return header.split(";", 1)[0]?.trim().toLowerCase() === "application/json";
}
