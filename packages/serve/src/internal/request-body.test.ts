import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { closeLoopback, startLoopback } from "../../../runs/src/sse/loopback-test-server";
import { readBody } from "./request-body";

afterEach(closeLoopback);

/**
 * A raw client that declares (or, chunked, does not declare) a huge body and sends it slowly, a
 * small piece every few milliseconds, without end; settles once the connection closed (the client
 * never closes it), with what it received and how much it had sent.
 */
function slowUpload(origin: string, chunked: boolean): Promise<{ received: string; sent: number }> {
  return new Promise((resolve) => {
    let received = "";
    let sent = 0;
    const socket = connect(Number(new URL(origin).port), "127.0.0.1", () => {
      const length = chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${1024 * 1024 * 1024}`;
      socket.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${length}\r\n\r\n`);
      const piece = "x".repeat(4096);
      const timer = setInterval(() => {
        if (socket.destroyed || !socket.writable) return clearInterval(timer);
        socket.write(chunked ? `${piece.length.toString(16)}\r\n${piece}\r\n` : piece);
        sent += piece.length;
      }, 5);
      socket.once("close", () => clearInterval(timer));
    });
    socket.setEncoding("utf8");
    socket.on("data", (text: string) => (received += text));
    socket.on("error", () => undefined); // the server may reset a client that kept sending
    socket.once("close", () => resolve({ received, sent }));
  });
}

describe("readBody", () => {
  for (const chunked of [false, true]) {
    it(`answers 413 to a huge ${chunked ? "chunked" : "declared"} body sent slowly, then closes the connection rather than reading it to its end`, async () => {
      const results: unknown[] = [];
      const origin = await startLoopback((request, response) => void readBody(request, response, 16 * 1024).then((body) => results.push(body)));
      const { received, sent } = await slowUpload(origin, chunked);
      expect(received).toMatch(/^HTTP\/1\.1 413 /);
      expect(received.toLowerCase()).toContain("connection: close");
      expect(received).toContain("The request body is larger than 16384 bytes (`maxBodyBytes`).\n");
      expect(sent).toBeLessThan(1024 * 1024 * 1024);
      expect(results).toEqual([undefined]);
    });
  }
});
