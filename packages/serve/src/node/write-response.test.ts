import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { AgentStreamEvent } from "@agentrx/executors";
import { Observable, from } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { closeLoopback, stalledClient, startLoopback } from "../../../runs/src/sse/loopback-test-server";
import { toUIMessageStreamResponse } from "../ui-message-stream/to-ui-message-stream-response";
import { writeResponse } from "./write-response";

/** A run of `count` tokens, emitted in batches as a fast model would (it cannot pause); counts its unsubscriptions. */
function tokenRun(count: number): { run$: Observable<AgentStreamEvent>; unsubscribed: () => number } {
  let unsubscribed = 0;
  const run$ = new Observable<AgentStreamEvent>((subscriber) => {
    subscriber.next({ type: "start", runId: "big", inputs: {}, resumed: false, at: 0 });
    let sent = 0;
    const batch = () => {
      for (let i = 0; i < 1000 && sent < count; i++, sent++) subscriber.next({ type: "token", iteration: 0, at: 0, text: `token${sent} ` });
      if (sent < count) timer = setImmediate(batch);
      else subscriber.complete();
    };
    let timer = setImmediate(batch);
    return () => {
      unsubscribed++;
      clearImmediate(timer);
    };
  });
  return { run$, unsubscribed: () => unsubscribed };
}

afterEach(closeLoopback);

describe("writeResponse", () => {
  it("reads a body that is not an event stream only as fast as the client reads, and cancels it when the client goes away", async () => {
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
      done = writeResponse(new Response(body, { headers: { "content-type": "application/octet-stream" } }), res);
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

  it("drops each of five clients that never read a 100k-token UI message stream: the sockets close and the runs are unsubscribed from", async () => {
    const max = 64 * 1024;
    const { run$, unsubscribed } = tokenRun(100_000);
    const responses: ServerResponse[] = [];
    const sockets: Socket[] = [];
    const settled: Promise<string>[] = [];
    const origin = await startLoopback((req, res) => {
      responses.push(res);
      sockets.push(req.socket);
      settled.push(writeResponse(toUIMessageStreamResponse(run$), res, { maxBufferedBytes: max }).then(() => "resolved", (error: unknown) => `rejected: ${String(error)}`));
    });
    await Promise.all(Array.from({ length: 5 }, () => stalledClient(origin)));
    await expect.poll(() => unsubscribed(), { timeout: 30_000 }).toBe(5);
    expect(await Promise.all(settled)).toEqual(Array(5).fill("resolved"));
    // The clients still do not read: after the grace the server closes the connections.
    await expect.poll(() => sockets.filter((socket) => socket.destroyed).length, { timeout: 30_000 }).toBe(5);
    for (const res of responses) expect(res.writableEnded).toBe(true);
  }, 40_000);

  it("ends a dropped UI message stream with an error chunk that a client reading again receives", async () => {
    const { run$, unsubscribed } = tokenRun(100_000);
    let response: ServerResponse | undefined;
    let serverSocket: Socket | undefined;
    const origin = await startLoopback((req, res) => {
      response = res;
      serverSocket = req.socket;
      void writeResponse(toUIMessageStreamResponse(run$), res, { maxBufferedBytes: 16 * 1024 });
    });
    const socket = await stalledClient(origin);
    await expect.poll(() => unsubscribed(), { timeout: 20_000 }).toBe(1);
    await expect.poll(() => response?.writableEnded, { timeout: 20_000 }).toBe(true);
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (data: string) => (text += data));
    socket.resume(); // reads again within the grace
    await expect.poll(() => text.endsWith("0\r\n\r\n"), { timeout: 10_000 }).toBe(true);
    // Whichever bound it passed first ends it: writeResponse's bytes or toUIMessageStream's chunks (the body waits while frames wait).
    const last = text.slice(text.lastIndexOf("data: {"));
    expect(last).toMatch(/^data: \{"type":"error","errorText":"(The stream was cut: the client did not read: more than 16384 bytes|The client did not read the stream: more than 10000 chunks) were waiting for it\."\}\n\n/);
    await expect.poll(() => serverSocket?.destroyed, { timeout: 15_000 }).toBe(true); // the connection closes after the end (at once when dropped, else idle)
  }, 40_000);

  it("sends a client that reads a tool call whose input and output are larger than maxBufferedBytes whole, however fast they come", async () => {
    const big = "x".repeat(2 * 1024 * 1024);
    const run$ = new Observable<AgentStreamEvent>((subscriber) => {
      subscriber.next({ type: "start", runId: "big", inputs: {}, resumed: false, at: 0 });
      const action = { tool: "read", toolInput: { big }, log: "", toolCallId: "c1" };
      subscriber.next({ type: "action", iteration: 0, at: 0, action, messages: [] });
      subscriber.next({ type: "step", iteration: 0, at: 0, step: { action, observation: big }, messages: [], durationMs: 1 });
      subscriber.next({ type: "output", runId: "big", at: 0, output: "Read.", returnValues: {}, messages: [], stopReason: "finish" });
      subscriber.complete();
    });
    const origin = await startLoopback((_req, res) => void writeResponse(toUIMessageStreamResponse(run$), res, { maxBufferedBytes: 64 * 1024 }));
    const chunks = (await (await fetch(origin)).text())
      .split("\n\n")
      .filter((frame) => frame.startsWith("data: {"))
      .map((frame) => JSON.parse(frame.slice("data: ".length)) as { type: string; output?: string });
    expect(chunks.map((chunk) => chunk.type)).not.toContain("error");
    expect(chunks.find((chunk) => chunk.type === "tool-output-available")?.output).toBe(big);
    expect(chunks.at(-1)?.type).toBe("finish");
  });

  it("sends each Set-Cookie of the Response as a header line of its own, and the stream's with the caller's headers", async () => {
    const headers = new Headers({ vary: "origin" });
    headers.append("set-cookie", "session=abc; Path=/; HttpOnly");
    headers.append("set-cookie", "theme=dark; Path=/");
    const origin = await startLoopback((req, res) => {
      const response = req.url === "/stream" ? toUIMessageStreamResponse(from([{ type: "start", runId: "r", inputs: {}, resumed: false, at: 0 } as AgentStreamEvent]), { headers }) : new Response("hello", { headers });
      void writeResponse(response, res);
    });
    expect(toUIMessageStreamResponse(from([]), { headers }).headers.getSetCookie()).toHaveLength(2);
    for (const path of ["/plain", "/stream"]) {
      const response = await fetch(`${origin}${path}`);
      expect(response.headers.getSetCookie()).toEqual(["session=abc; Path=/; HttpOnly", "theme=dark; Path=/"]);
      expect(response.headers.get("vary")).toBe("origin");
      await response.text();
    }
  });

  it("refuses a maxBufferedBytes that cannot work", async () => {
    const res = {} as ServerResponse;
    await expect(writeResponse(new Response("x"), res, { maxBufferedBytes: 0 })).rejects.toThrow(/maxBufferedBytes/);
  });
});
