import { createServer, type Server } from "node:http";
import { type AddressInfo, type Socket, connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { writeResponse } from "./write-response";

let server: Server | undefined;
let socket: Socket | undefined;
afterEach(async () => {
  socket?.destroy();
  if (server === undefined) return;
  server.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

describe("writeResponse", () => {
  it("reads the body only as fast as the client reads, and cancels it when the client goes away", async () => {
    let pulls = 0;
    let cancelled = false;
    let done: Promise<void> | undefined;
    const chunk = new TextEncoder().encode(`data: ${"x".repeat(1000)}\n\n`);
    server = createServer((_req, res) => {
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          pulls++;
          controller.enqueue(chunk);
        },
        cancel() {
          cancelled = true;
        },
      });
      done = writeResponse(new Response(body, { headers: { "content-type": "text/event-stream" } }), res);
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => {
      socket = connect(port, "127.0.0.1", () => {
        socket?.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        socket?.pause(); // never reads
        resolve();
      });
    });
    await expect.poll(() => pulls).toBeGreaterThan(10);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const paused = pulls;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(pulls).toBe(paused); // the body waits for the socket
    socket?.destroy();
    await done;
    expect(cancelled).toBe(true);
  });

  it("copies the status and headers and ends an empty body", async () => {
    server = createServer((_req, res) => void writeResponse(new Response(null, { status: 204, headers: { "x-a": "1" } }), res));
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    expect(response.status).toBe(204);
    expect(response.headers.get("x-a")).toBe("1");
  });
});
