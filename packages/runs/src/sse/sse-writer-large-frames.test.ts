// SseWriter and frames that do not fit under `maxBufferedBytes` beside what waits for the socket:
// a client that reads gets them whole (they wait for room), a client that does not read is still
// dropped, and the `dropped` frame names the last id the client was given.
import { type ServerResponse, get } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { closeLoopback, stalledClient, startLoopback } from "./loopback-test-server";
import { SseWriter, parseLastEventId } from "./sse-writer";

afterEach(closeLoopback);

const max = 16 * 1024;
/** Frame `id`'s data: every third frame is four times the bound, the others 200 bytes. */
const dataOf = (id: number) => `${id}:${(id % 3 === 0 ? "B" : "s").repeat(id % 3 === 0 ? 4 * max : 200)}`;

/** The ids and data of the frames of an event stream's text, and the data of its `dropped` frame. */
function framesOf(text: string): { ids: number[]; data: Map<number, string>; dropped: { lastEventId: string | null } | undefined } {
  const ids: number[] = [];
  const data = new Map<number, string>();
  let dropped: { lastEventId: string | null } | undefined;
  for (const block of text.split("\n\n")) {
    const id = /^id: (\d+)$/m.exec(block)?.[1];
    const line = /^data: (.*)$/m.exec(block)?.[1];
    if (/^event: dropped$/m.test(block) && line !== undefined) dropped = JSON.parse(line) as { lastEventId: string | null };
    else if (id !== undefined) {
      ids.push(Number(id));
      data.set(Number(id), line ?? "");
    }
  }
  return { ids, data, dropped };
}

/** The body of a chunked HTTP/1.1 response. */
function dechunk(raw: string): string {
  let body = "";
  for (let at = 0; ; ) {
    const eol = raw.indexOf("\r\n", at);
    const size = Number.parseInt(raw.slice(at, eol), 16);
    if (!(size > 0)) return body;
    body += raw.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

/** Frames `from`..`to`, all in one tick; with `wait`, the source awaits `ready()` whenever `send` says so. */
async function sendFrames(sse: SseWriter, from: number, to: number, wait: boolean): Promise<void> {
  for (let id = from; id <= to && !sse.closed; id++) {
    if (!sse.send({ id, event: "e", data: dataOf(id) }) && wait && !(await sse.ready())) return;
  }
}

describe("SseWriter and frames larger than maxBufferedBytes", () => {
  it.each([
    // A record replayed: one frame larger than the bound after another, each after smaller ones.
    ["a source that waits on ready()", true, 12],
    // A live run: a large token in the same batch as small ones.
    ["a source that cannot wait", false, 5],
  ])("gives them whole to a client that reads, after the smaller frames written in the same tick: %s", async (_name, wait, count) => {
    const outcome: { dropped?: boolean }[] = [];
    const origin = await startLoopback((_req, res) => {
      const sse = new SseWriter(res, { maxBufferedBytes: max, heartbeatMs: 0 });
      void sendFrames(sse, 1, count, wait).then(() => {
        outcome.push({ dropped: sse.dropped });
        sse.end({ event: "end", data: "{}" });
      });
    });
    for (let attempt = 0; attempt < 3; attempt++) {
      const text = await (await fetch(origin)).text();
      const { ids, data, dropped } = framesOf(text);
      expect(dropped).toBeUndefined();
      expect(ids).toEqual(Array.from({ length: count }, (_, i) => i + 1));
      for (const id of ids) expect(data.get(id)).toBe(dataOf(id));
      expect(text.endsWith("event: end\ndata: {}\n\n")).toBe(true);
    }
    expect(outcome).toEqual([{ dropped: false }, { dropped: false }, { dropped: false }]);
  });

  it("sends a live source's frames that come while the client is still taking a large one, within the bound beside it", async () => {
    const large = 8 * 1024 * 1024; // more than the kernel's buffers take while the client waits
    const sizes: number[] = [];
    const origin = await startLoopback((_req, res) => {
      const sse = new SseWriter(res, { maxBufferedBytes: max, heartbeatMs: 0 });
      sse.send({ id: 1, data: "small" });
      sse.send({ id: 2, data: "L".repeat(large) });
      setTimeout(() => {
        sizes.push(sse.bufferedBytes); // the large frame is still being taken
        for (let id = 3; id <= 12; id++) sse.send({ id, data: `${id}:${"s".repeat(1_000)}` });
        sse.end();
      }, 50);
    });
    const text = await new Promise<string>((resolve, reject) => {
      get(origin, (res) => {
        const chunks: Buffer[] = [];
        res.once("data", () => {
          res.pause(); // the client reads, slowly
          setTimeout(() => res.resume(), 200);
        });
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
        res.on("error", reject);
      }).on("error", reject);
    });
    expect(sizes[0]).toBeGreaterThan(max);
    const { ids, data, dropped } = framesOf(text);
    expect(dropped).toBeUndefined();
    expect(ids).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(data.get(2)?.length).toBe(large);
  });

  it("drops at once, instead of letting it wait, a client that has taken nothing for 5 s when a frame does not fit", async () => {
    const bound = 8 * 1024 * 1024;
    const outcomes: { waiting: number; dropped: boolean }[] = [];
    let connections = 0;
    const origin = await startLoopback((_req, res) => {
      const stalledFor = connections++ === 0 ? 0 : 5_000; // the first client, as if only just now
      const sse = new SseWriter(res, { maxBufferedBytes: bound, heartbeatMs: 0 });
      for (let id = 1; id <= 4_000; id++) sse.send({ id, data: "x".repeat(1_000) });
      setTimeout(() => {
        // More than the kernel's buffers take: the rest waits for a client that does not read.
        const waiting = sse.bufferedBytes;
        const clock = vi.spyOn(Date, "now").mockReturnValue(Date.now() + stalledFor);
        sse.send({ id: 4_001, data: "y".repeat(bound) });
        clock.mockRestore();
        outcomes.push({ waiting, dropped: sse.dropped });
      }, 100);
    });
    await stalledClient(origin);
    await expect.poll(() => outcomes.length).toBe(1);
    await stalledClient(origin);
    await expect.poll(() => outcomes.length).toBe(2);
    expect(outcomes[0]?.waiting).toBeGreaterThan(0);
    expect(outcomes[1]?.waiting).toBeGreaterThan(0);
    expect(outcomes.map(({ dropped }) => dropped)).toEqual([false, true]);
  });

  it("still drops a client that never reads, naming the last id it was given: reconnecting with it gets every id exactly once", async () => {
    const last = 3_000;
    const outcomes: { dropped: boolean; peak: number }[] = [];
    const origin = await startLoopback((req, res: ServerResponse) => {
      const sse = new SseWriter(res, { maxBufferedBytes: max, heartbeatMs: 0 });
      const after = parseLastEventId(req) ?? 0;
      if (after > 0) {
        // The record replayed to a client that reconnected: the source waits for it.
        void (async () => {
          for (let id = after + 1; id <= last && !sse.closed; id++) if (!sse.send({ id, data: `${id}:${"x".repeat(1_000)}` })) await sse.ready();
          sse.end();
        })();
        return;
      }
      // A live run: every frame is offered at once, to a client that does not read.
      let peak = 0;
      for (let id = 1; id <= last && !sse.closed; id++) {
        sse.send({ id, data: `${id}:${"x".repeat(1_000)}` });
        if (!sse.dropped) peak = Math.max(peak, sse.bufferedBytes);
      }
      outcomes.push({ dropped: sse.dropped, peak });
    });
    const socket = await stalledClient(origin);
    await expect.poll(() => outcomes.length).toBe(1);
    expect(outcomes[0]?.dropped).toBe(true);
    expect(outcomes[0]?.peak).toBeLessThanOrEqual(max);
    // What it was sent, read once it reads again.
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (text += chunk));
    const ended = new Promise((resolve) => socket.once("end", resolve));
    socket.resume();
    await ended;
    const first = framesOf(dechunk(text.slice(text.indexOf("\r\n\r\n") + 4)));
    expect(first.ids.length).toBeGreaterThan(0);
    expect(first.ids.length).toBeLessThan(last);
    expect(first.dropped?.lastEventId).toBe(String(first.ids.at(-1)));
    const second = framesOf(await (await fetch(origin, { headers: { "last-event-id": String(first.dropped?.lastEventId) } })).text());
    expect(second.dropped).toBeUndefined();
    expect([...first.ids, ...second.ids]).toEqual(Array.from({ length: last }, (_, i) => i + 1));
  }, 20_000);
});
