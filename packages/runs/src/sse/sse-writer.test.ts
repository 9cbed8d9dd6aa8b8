import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { closeLoopback, stalledClient, startLoopback } from "./loopback-test-server";
import { SseWriter, decodePathSegment, parseLastEventId } from "./sse-writer";

afterEach(closeLoopback);

describe("SseWriter", () => {
  it("holds at most maxBufferedBytes for each of five clients that never read a 100k-token stream, then drops them", async () => {
    const max = 64 * 1024;
    const peaks: number[] = [];
    const results: Promise<{ dropped: boolean; sent: number }>[] = [];
    const serverSockets: Socket[] = [];
    const origin = await startLoopback((req, res) => {
      serverSockets.push(req.socket);
      const sse = new SseWriter(res, { maxBufferedBytes: max, heartbeatMs: 0 });
      let peak = 0;
      let sent = 0;
      // A source that cannot pause (an observable run): every token is offered at once.
      for (let i = 0; i < 100_000 && !sse.closed; i++) {
        sse.send({ event: "token", data: JSON.stringify({ type: "token", text: `token ${i} ` }) });
        peak = Math.max(peak, sse.bufferedBytes);
        sent++;
      }
      peaks.push(peak);
      results.push(Promise.resolve({ dropped: sse.dropped, sent }));
    });
    await Promise.all(Array.from({ length: 5 }, () => stalledClient(origin)));
    await expect.poll(() => peaks.length).toBe(5);
    const settled = await Promise.all(results);
    for (const peak of peaks) expect(peak).toBeLessThanOrEqual(max + 512);
    for (const { dropped, sent } of settled) {
      expect(dropped).toBe(true);
      expect(sent).toBeLessThan(100_000);
    }
    // They still do not read: the connections close (even when the kernel took the last frames).
    await expect.poll(() => serverSockets.filter((socket) => socket.destroyed).length, { timeout: 15_000 }).toBe(5);
  }, 30_000);

  it("drops a client before a frame would take it past maxBufferedBytes", async () => {
    const max = 16 * 1024;
    let peak = 0;
    let dropped: boolean | undefined;
    const origin = await startLoopback((_req, res) => {
      const sse = new SseWriter(res, { maxBufferedBytes: max, heartbeatMs: 0 });
      // A client that never reads: 1 KB frames pile up until the next would pass the bound.
      for (let i = 0; i < 10_000 && !sse.closed; i++) {
        sse.send({ event: "token", data: "x".repeat(1000) });
        if (!sse.dropped) peak = Math.max(peak, sse.bufferedBytes);
      }
      dropped = sse.dropped;
    });
    await stalledClient(origin);
    await expect.poll(() => dropped).toBe(true);
    // A frame went out whenever at most max bytes were waiting before, which took it one frame past.
    expect(peak).toBeGreaterThan(max - 2048);
    expect(peak).toBeLessThanOrEqual(max);
  });

  it("sends a frame larger than maxBufferedBytes to a client that has read everything before it", async () => {
    const max = 1024;
    let outcome: { sent: boolean; dropped: boolean } | undefined;
    const origin = await startLoopback((_req, res) => {
      const sse = new SseWriter(res, { maxBufferedBytes: max, heartbeatMs: 0 });
      sse.open();
      setTimeout(() => {
        const sent = sse.send({ event: "big", data: "y".repeat(4 * max) });
        outcome = { sent, dropped: sse.dropped };
        sse.end();
      }, 50);
    });
    const response = await fetch(origin);
    const text = await response.text();
    expect(outcome).toEqual({ sent: true, dropped: false });
    expect(text).toContain(`data: ${"y".repeat(4 * max)}`);
  });

  it("lets a source that can wait pause while a client does not read, and stop when it goes away", async () => {
    let sent = 0;
    let peak = 0;
    let finished: boolean | undefined;
    const origin = await startLoopback(async (_req, res) => {
      const sse = new SseWriter(res, { heartbeatMs: 0 });
      for (let i = 1; i <= 100_000; i++) {
        sent = i;
        peak = Math.max(peak, sse.bufferedBytes);
        if (!sse.send({ id: i, data: "x".repeat(500) }) && !(await sse.ready())) return void (finished = false);
      }
      finished = true;
    });
    const client = await stalledClient(origin);
    await expect.poll(() => sent).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const paused = sent;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sent).toBe(paused); // paused, not dropped: the source waits for the socket
    expect(sent).toBeLessThan(100_000);
    expect(peak).toBeLessThanOrEqual(16 * 1024 + 600); // the socket's high-water mark and one frame
    client.destroy();
    await expect.poll(() => finished).toBe(false);
  });

  it("ends with the last message", async () => {
    const origin = await startLoopback((_req, res) => {
      const sse = new SseWriter(res, { heartbeatMs: 0 });
      for (let i = 1; i <= 200; i++) sse.send({ id: i, data: "x".repeat(500) });
      sse.end({ event: "end", data: "{}" });
    });
    const response = await fetch(`${origin}/`);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const text = await response.text();
    expect(text.match(/^id: /gm)?.length).toBe(200);
    expect(text.endsWith("event: end\ndata: {}\n\n")).toBe(true);
  });

  it("writes multi-line data as several data lines and an id-only frame without data", async () => {
    const origin = await startLoopback((_req, res) => {
      const sse = new SseWriter(res, { heartbeatMs: 0, retryMs: 500 });
      sse.send({ id: 7, event: "note", data: "a\nb" });
      sse.send({ id: 8 });
      sse.end();
    });
    expect(await (await fetch(`${origin}/`)).text()).toBe("retry: 500\n\nid: 7\nevent: note\ndata: a\ndata: b\n\nid: 8\n\n");
  });

  it("keeps a comment, an id and an event name on one line: a CR or LF in them starts no field of its own", async () => {
    const origin = await startLoopback((_req, res) => {
      const sse = new SseWriter(res, { heartbeatMs: 0 });
      sse.comment("waiting\rdata: forged");
      sse.send({ id: "7\nevent: forged", event: "note\r\ndata: forged", data: "real" });
      sse.end();
    });
    const text = await (await fetch(`${origin}/`)).text();
    expect(text).toBe(": waiting data: forged\n\nid: 7 event: forged\nevent: note data: forged\ndata: real\n\n");
    // Each line a client reads (CR, LF and CRLF end one) is the comment or a field the server wrote.
    expect(text.split(/\r\n|\r|\n/).filter((line) => line !== "")).toEqual([": waiting data: forged", "id: 7 event: forged", "event: note data: forged", "data: real"]);
  });

  it("writes ready-made frames under the same bound, after the caller's status and headers, and ends a dropped client with droppedMessage", async () => {
    let dropped = false;
    const origin = await startLoopback((_req, res) => {
      res.writeHead(201, { "content-type": "text/event-stream", "x-protocol": "ui" });
      const sse = new SseWriter(res, { maxBufferedBytes: 16 * 1024, heartbeatMs: 0, droppedMessage: ({ reason }) => ({ data: JSON.stringify({ type: "error", errorText: reason }) }) });
      const frame = new TextEncoder().encode(`data: ${"x".repeat(1000)}\n\n`);
      for (let i = 0; i < 10_000 && !sse.closed; i++) sse.sendFrames(frame);
      dropped = sse.dropped;
    });
    const socket = await stalledClient(origin);
    await expect.poll(() => dropped).toBe(true);
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (data: string) => (text += data));
    const ended = new Promise((resolve) => socket.once("end", resolve));
    socket.resume(); // the client reads again before the grace ends: it gets the last message
    await expect.poll(() => text.endsWith("0\r\n\r\n")).toBe(true);
    expect(text).toMatch(/^HTTP\/1\.1 201/);
    expect(text).toMatch(/x-protocol: ui/i);
    expect(text.slice(text.lastIndexOf("data: "))).toMatch(/^data: \{"type":"error","errorText":"the client did not read: more than 16384 bytes were waiting for it"\}\n\n/);
    await ended; // then the server closes the connection
  });

  describe.each([
    ["throws", () => { throw new Error("boom"); }, /`droppedMessage` threw: boom/],
    ["returns undefined", () => undefined, /`droppedMessage` must return a message .*got undefined/],
    ["returns a number as data", () => ({ data: 42 }), /`droppedMessage` must return a message .*got \{"data":42\}/],
    ["returns a promise", async () => ({ data: "late" }), /`droppedMessage` must return a message .*got a Promise/],
    // Its rejection is handled (vitest fails a run on an unhandled one).
    ["returns a promise that rejects", async () => Promise.reject(new Error("late boom")), /`droppedMessage` must return a message .*got a Promise/],
  ])("when droppedMessage %s", (_name, droppedMessage, warning) => {
    it.each(["send", "heartbeat"])("still ends a client dropped by %s, with the default last message, and warns naming the hook", async (via) => {
      const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
      let outcome: { dropped: boolean; error?: unknown } | undefined;
      const origin = await startLoopback((_req, res) => {
        const sse = new SseWriter(res, { maxBufferedBytes: 1024, heartbeatMs: via === "heartbeat" ? 20 : 0, droppedMessage: droppedMessage as never });
        sse.open();
        try {
          // A frame larger than the bound goes to a client that read everything; the heartbeats after it drop the client once more than the bound waits beside it.
          if (via === "heartbeat") sse.send({ id: 1, data: "y".repeat(16_000_000) });
          else for (let i = 1; i <= 200 && !sse.closed; i++) sse.send({ id: i, data: "x".repeat(200_000) });
        } catch (error) {
          outcome = { dropped: sse.dropped, error };
        }
        sse.onClose(() => (outcome ??= { dropped: sse.dropped }));
      });
      const socket = await stalledClient(origin);
      await expect.poll(() => warn.mock.calls.length, { timeout: 5_000 }).toBe(1);
      let tail = "";
      socket.setEncoding("utf8");
      socket.on("data", (data: string) => (tail = (tail + data).slice(-400)));
      const ended = new Promise((resolve) => socket.once("end", resolve));
      socket.resume();
      await ended; // the connection closes
      expect(outcome).toEqual({ dropped: true });
      expect(tail).toMatch(/event: dropped\ndata: \{"reason":"the client did not read: more than 1024 bytes were waiting for it","lastEventId":"\d+"\}\n\n\r\n0\r\n\r\n$/);
      expect(warn).toHaveBeenCalledWith(expect.stringMatching(warning), { code: "AGENTRX_SSE_DROPPED_MESSAGE" });
      warn.mockRestore();
    }, 20_000);
  });

  it("refuses options that cannot work", () => {
    const res = { on: () => undefined } as unknown as ServerResponse;
    expect(() => new SseWriter(res, { droppedMessage: "no" as never })).toThrow(/droppedMessage/);
    expect(() => new SseWriter(res, { maxBufferedBytes: 0 })).toThrow(/maxBufferedBytes/);
    expect(() => new SseWriter(res, { heartbeatMs: Number.NaN })).toThrow(/heartbeatMs/);
    // Past the longest delay a timer takes, Node fires it every millisecond: a heartbeat meant as "never" would flood the client.
    expect(() => new SseWriter(res, { heartbeatMs: 3_000_000_000 })).toThrow("SseWriter: `heartbeatMs` must be a number from 0 to 2147483647 (the longest a timer waits), got 3000000000.");
    expect(() => new SseWriter(res, { droppedMessage: "bye" as never })).toThrow(/droppedMessage/);
    // A misspelt option is refused, not left at its default.
    expect(() => new SseWriter(res, { maxBufferBytes: 10 } as never)).toThrow("SseWriter: unknown option `maxBufferBytes`; did you mean `maxBufferedBytes`? Known options: heartbeatMs, maxBufferedBytes, retryMs, headers, droppedMessage.");
  });
});

describe("parseLastEventId and decodePathSegment", () => {
  const req = (value?: string | string[]) => ({ headers: value === undefined ? {} : { "last-event-id": value } }) as unknown as IncomingMessage;

  it("accepts decimal integers only", () => {
    expect(parseLastEventId(req())).toBeUndefined();
    expect(parseLastEventId(req(" "))).toBeUndefined();
    expect(parseLastEventId(req("0"))).toBe(0);
    expect(parseLastEventId(req("42"))).toBe(42);
    expect(parseLastEventId(req(["5", "6"]))).toBe(5);
    for (const bad of ["1e308", "0x10", "-1", "1.5", "Infinity", "12abc", "1234567890123456"]) expect(parseLastEventId(req(bad))).toBeNull();
  });

  it("decodes path segments, undefined for a stray %", () => {
    expect(decodePathSegment("run%201")).toBe("run 1");
    expect(decodePathSegment("%E0%A4%A")).toBeUndefined();
    expect(decodePathSegment("100%")).toBeUndefined();
  });
});
