// Test-only: a real HTTP client (node:http) that POSTs a large body in many chunks with no
// content-length (chunked transfer encoding), as an upload from a browser or a CLI would arrive.
import { request } from "node:http";

export interface UploadOutcome {
  /** The response's status, or undefined when none arrived. */
  status: number | undefined;
  /** The response's `connection` header. */
  connection: string | undefined;
  /** The response's text as far as it arrived. */
  text: string;
  /** The `code` (or message) of every error the client saw, on the request or the response. */
  errors: string[];
}

/**
 * POSTs `totalBytes` bytes (a JSON string's opening, then filler) to `url` in 64 KiB chunks, each
 * written once the previous one was taken (so the server's reading paces it), and settles once the
 * request is done (sent or failed) and the response is done (read or failed).
 */
export function chunkedUpload(url: string, totalBytes: number, headers: Record<string, string> = { "content-type": "application/json" }): Promise<UploadOutcome> {
  return new Promise((resolve) => {
    const outcome: UploadOutcome = { status: undefined, connection: undefined, text: "", errors: [] };
    const seen = (error: NodeJS.ErrnoException) => outcome.errors.push(error.code ?? error.message);
    let pending = 2; // the request's close and the response's end (or the request failing first)
    const settle = () => {
      if (--pending === 0) resolve(outcome);
    };
    const client = request(url, { method: "POST", headers });
    client.on("error", seen);
    client.on("close", () => {
      if (outcome.status === undefined) pending--; // no response will come
      settle();
    });
    client.on("response", (response) => {
      outcome.status = response.statusCode;
      outcome.connection = response.headers.connection;
      response.setEncoding("utf8");
      response.on("data", (text: string) => (outcome.text += text));
      response.on("error", seen);
      response.on("close", settle);
    });
    const chunk = Buffer.alloc(64 * 1024, "x");
    let written = 0;
    const writeMore = () => {
      if (written === 0) {
        written = 1;
        client.write('"');
      }
      while (written < totalBytes) {
        written += chunk.length;
        if (!client.write(chunk)) {
          client.once("drain", writeMore);
          return;
        }
      }
      client.end();
    };
    writeMore();
  });
}
