// How a run's event stream ends, as a reconnecting EventSource sees it: with `event: end` (and an id
// of its own) when the run stopped, even for a client whose connection dropped before it did; without
// it when only this process could not go on (its client closed, the store failing), so the
// EventSource reconnects and follows on.
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type RunStore, RunStoreError } from "@agentrx/executors";
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunClient } from "../client/run-client";
import { doublingExecutor } from "../test-helpers/doubling-agent";
import { type QueueFixture, queueFixture } from "../test-helpers/queue-fixture";
import { readSse } from "../test-helpers/sse-client";
import { testServers, until } from "../test-helpers/test-servers";
import { serveRunEvents } from "./serve-run-events";

const servers = await testServers("serveRunEvents reconnects");

/** The store with `readEvents` replaced. */
function failingReads(store: RunStore, error: Error): RunStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === "readEvents") return () => Promise.reject(error);
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe.skipIf(servers.skip)("serveRunEvents and clients that reconnect (Redis, PostgreSQL)", () => {
  let fixture: QueueFixture;
  let server: Server;
  let base: string;
  let client: RunClient;
  let redis: Redis;
  beforeAll(async () => {
    servers.assertReachable();
    redis = new Redis(servers.redisUrl);
    fixture = queueFixture(servers, "sse-reconnect-test");
    server = createServer((req, res) => {
      const match = /^\/runs\/([^/]+)\/events$/.exec(req.url ?? "");
      if (match?.[1]) void serveRunEvents(client, decodeURIComponent(match[1]), req, res, { heartbeatMs: 50 });
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    fixture.next();
    client = fixture.client();
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await fixture?.close();
    redis?.disconnect();
    await servers.cleanup();
  });

  const following = (runId: string) =>
    until(async () => ((await redis.pubsub("NUMSUB", `${servers.prefix}:${fixture.queueName}:agentrx:run:${runId}`)) as [string, number])[1] > 0, "the server to follow the run");

  it("a client whose connection dropped while the run was running gets the end it missed; reconnecting with the end's id gets 204", async () => {
    let started = false;
    fixture.worker({ hang: () => doublingExecutor({ toolMs: 60_000, onTool: () => (started = true) }) });
    const runId = await client.submit("hang", { input: "double 3" });
    const url = `${base}/runs/${runId}/events`;
    const first = await readSse(url, { stopAfter: (message) => message.event === "action" });
    expect(first.lastEventId).toMatch(/^\d+$/);
    await until(() => started, "the tool to start");
    await client.cancel(runId);
    await until(async () => (await fixture.store.getRun(runId))?.status === "cancelled", "the cancel");
    const { eventCount } = (await fixture.store.getRun(runId)) ?? { eventCount: -1 };
    const second = await readSse(url, { lastEventId: first.lastEventId });
    expect(second.status).toBe(200);
    expect(second.messages.at(-1)).toMatchObject({ event: "end", hasId: true, lastEventId: `${eventCount}-end` });
    expect(JSON.parse(second.messages.at(-1)?.data ?? "{}")).toMatchObject({ runId, status: "cancelled" });
    // A client that was sent the end, and reconnects anyway, is told to stop.
    expect((await readSse(url, { lastEventId: second.lastEventId })).status).toBe(204);
    // One that follows from the start gets every event, then the end.
    const whole = await readSse(url);
    expect(whole.messages.at(-1)).toMatchObject({ event: "end", lastEventId: `${eventCount}-end` });
    for (const lastEventId of ["-end", "x-end", "1e3-end", "5-end-end", "5-END", "5 end"]) {
      expect((await readSse(url, { lastEventId })).status, lastEventId).toBe(400);
    }
  });

  it("closing the RunClient ends its streams without an end event: the EventSource reconnects, to another API process, and gets the rest", async () => {
    let started = false;
    fixture.worker({ hang: () => doublingExecutor({ toolMs: 60_000, onTool: () => (started = true) }) });
    const runId = await client.submit("hang", { input: "double 4" });
    const url = `${base}/runs/${runId}/events`;
    const reading = readSse(url);
    await until(() => started, "the tool to start");
    await following(runId);
    await client.close(); // the API process shuts down; the run goes on on its worker
    const read = await reading;
    expect(read.status).toBe(200);
    expect(read.messages.map((message) => message.event)).not.toContain("end");
    expect(read.lastEventId).toMatch(/^\d+$/);
    // A request that reaches the closed client: a stream that ends at once (an EventSource gives up on any status but 200).
    expect(await readSse(url, { lastEventId: read.lastEventId })).toMatchObject({ status: 200, messages: [] });
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "running" });
    // Another API process: the EventSource reconnects there and follows the run to its end.
    client = fixture.client();
    const rest = readSse(url, { lastEventId: read.lastEventId });
    await following(runId);
    await client.cancel(runId);
    const after = await rest;
    expect(after.messages.at(-1)?.event).toBe("end");
    expect(JSON.parse(after.messages.at(-1)?.data ?? "{}")).toMatchObject({ runId, status: "cancelled" });
  });

  it("a store that fails ends the stream without an end event; a record that cannot be read ends it with one, once", async () => {
    fixture.worker({ double: () => doublingExecutor() });
    const runId = await client.submit("double", { input: "double 2" });
    await client.result(runId);
    const url = `${base}/runs/${runId}/events`;
    const timeout = new RunStoreError({ operation: "readEvents", runId, reason: "timeout", message: "readEvents timed out" });
    client = fixture.client({ store: failingReads(fixture.store, timeout) });
    expect(await readSse(url)).toMatchObject({ status: 200, messages: [] });
    const corrupt = new RunStoreError({ operation: "readEvents", runId, reason: "corrupt", message: `event 1 of run "${runId}" is corrupt` });
    client = fixture.client({ store: failingReads(fixture.store, corrupt) });
    const read = await readSse(url);
    expect(read.messages).toEqual([{ event: "end", hasId: true, lastEventId: "0-end", data: JSON.stringify({ runId, status: "error", reason: corrupt.message }) }]);
    expect((await readSse(url, { lastEventId: read.lastEventId })).status).toBe(204);
  });
});
