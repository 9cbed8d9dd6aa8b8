import { afterEach, describe, expect, it } from "vitest";
import { closeLoopback, stalledClient, startLoopback } from "../../../runs/src/sse/loopback-test-server";
import { writeResponse } from "./write-response";

afterEach(closeLoopback);

describe("writeResponse", () => {
  it("reads the body only as fast as the client reads, and cancels it when the client goes away", async () => {
    let pulls = 0;
    let cancelled = false;
    let done: Promise<void> | undefined;
    const chunk = new TextEncoder().encode(`data: ${"x".repeat(1000)}\n\n`);
    const origin = await startLoopback((_req, res) => {
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
    const socket = await stalledClient(origin);
    await expect.poll(() => pulls).toBeGreaterThan(10);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const paused = pulls;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(pulls).toBe(paused); // the body waits for the socket
    socket.destroy();
    await done;
    expect(cancelled).toBe(true);
  });

  it("copies the status and headers and ends an empty body", async () => {
    const origin = await startLoopback((_req, res) => void writeResponse(new Response(null, { status: 204, headers: { "x-a": "1" } }), res));
    const response = await fetch(`${origin}/`);
    expect(response.status).toBe(204);
    expect(response.headers.get("x-a")).toBe("1");
  });
});
