import { type IncomingMessage, type Server, type ServerResponse, createServer, get } from "node:http";
import type { AddressInfo } from "node:net";
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunClient } from "../client/run-client";
import { doublingExecutor } from "../test-helpers/doubling-agent";
import { type QueueFixture, queueFixture } from "../test-helpers/queue-fixture";
import { type SseMessage, readSse } from "../test-helpers/sse-client";
import { testServers, until } from "../test-helpers/test-servers";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { createToolCallingAgent } from "@agentrx/agents";
import { AgentExecutor } from "@agentrx/executors";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { closeLoopback, stalledClient, startLoopback } from "../../../runs/src/sse/loopback-test-server";
import { serveRunEvents } from "./serve-run-events";
import { InvalidArgumentError } from "@agentrx/core";

const servers = await testServers("serveRunEvents");

describe("serveRunEvents' options", () => {
  it("rejects (never throws) for a misspelt or wrong option, before it touches the client or the response", async () => {
    const res = { writeHead: () => expect.unreachable("nothing is written") } as unknown as ServerResponse;
    const serve = (options: unknown, client = {} as RunClient) => {
      let served: Promise<void> | undefined;
      expect(() => (served = serveRunEvents(client, "r1", {} as IncomingMessage, res, options as never))).not.toThrow();
      return served as Promise<void>;
    };
    await expect(serve({ heartbeat: 10 })).rejects.toThrow("serveRunEvents: unknown option `options.heartbeat`; did you mean `heartbeatMs`? Known options: heartbeatMs, maxBufferedBytes.");
    await expect(serve(null)).rejects.toThrow("serveRunEvents: `options` must be an object, got null.");
    await expect(serve({ heartbeatMs: 3_000_000_000 })).rejects.toThrow(/heartbeatMs.*at most 2147483647/);
    await expect(serve({ heartbeatMs: -1 })).rejects.toSatisfy((error) => InvalidArgumentError.isInstance(error) && error.argument === "heartbeatMs");
    await expect(serve({ maxBufferedBytes: 0 })).rejects.toSatisfy((error) => InvalidArgumentError.isInstance(error) && error.argument === "maxBufferedBytes");
    await expect(serve({})).rejects.toThrow("serveRunEvents: `client` must be a RunClient.");
  });
});

describe.skipIf(servers.skip)("serveRunEvents over Node's http (Redis, PostgreSQL)", () => {
  let fixture: QueueFixture;
  let server: Server;
  let base: string;
  let client: RunClient;
  let redis: Redis;
  beforeAll(async () => {
    servers.assertReachable();
    redis = new Redis(servers.redisUrl);
    fixture = queueFixture(servers, "sse-test");
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

  const recordedSeqs = async (runId: string) =>
    (await fixture.store.readEvents(runId)).filter((event) => event.type !== "model_call").map((event) => event.seq);
  const eventSeqs = (messages: SseMessage[]) => messages.filter((message) => message.hasId).map((message) => Number(message.lastEventId));
  const textOf = (messages: SseMessage[]) => messages.filter((message) => message.event === "token").map((message) => (JSON.parse(message.data) as { text: string }).text).join("");

  it("streams a run with ids that are its seqs, live tokens without ids, and ends after the output", async () => {
    // The model answers once the client follows the run: its text then comes live, whatever the load.
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    fixture.worker({ double: () => doublingExecutor({ latencyMs: 30, gate }) });
    const runId = await client.submit("double", { input: "double 7" });
    const reading = readSse(`${base}/runs/${runId}/events`);
    const channel = `${servers.prefix}:${fixture.queueName}:agentrx:run:${runId}`;
    await until(async () => ((await redis.pubsub("NUMSUB", channel)) as [string, number])[1] > 0, "the server to follow the run");
    open();
    const read = await reading;
    expect(read.status).toBe(200);
    expect(read.messages[0]).toMatchObject({ event: "start", hasId: true, lastEventId: "1" });
    expect(read.messages.at(-1)).toMatchObject({ event: "output", hasId: true });
    expect(JSON.parse(read.messages.at(-1)?.data ?? "{}")).toMatchObject({ type: "output", output: "7 doubled is 14.", runId });
    const seqs = eventSeqs(read.messages);
    expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
    // Every recorded event but the text is there; the text came live, as tokens without ids (on a
    // loaded machine the first tokens can be recorded before the server has read the record up to
    // them: those come from the record, with their ids, and not again live).
    const recordedTokens = (await fixture.store.readEvents(runId)).filter((event) => event.type === "token").map((event) => event.seq);
    expect(seqs.filter((seq) => !recordedTokens.includes(seq))).toEqual((await recordedSeqs(runId)).filter((seq) => !recordedTokens.includes(seq)));
    expect(seqs.every((seq) => recordedTokens.includes(seq) || seq <= Number(read.lastEventId))).toBe(true);
    expect(read.messages.some((message) => message.event === "token" && !message.hasId)).toBe(true);
    expect(textOf(read.messages)).toBe("Doubling 7.7 doubled is 14.");
    // The id moved past every entry, the ones not shown included.
    expect(read.lastEventId).toBe(String((await fixture.store.getRun(runId))?.eventCount));
  });

  it("a client that reconnects with Last-Event-ID gets every event after it exactly once", async () => {
    fixture.worker({ double: () => doublingExecutor({ latencyMs: 30, toolMs: 100 }) });
    const runId = await client.submit("double", { input: "double 11" });
    const first = await readSse(`${base}/runs/${runId}/events`, { stopAfter: (message) => message.event === "action" });
    expect(first.messages.at(-1)?.event).toBe("action");
    // The server stopped following the run when the client went away.
    const channel = `${servers.prefix}:${fixture.queueName}:agentrx:run:${runId}`;
    await until(async () => ((await redis.pubsub("NUMSUB", channel)) as [string, number])[1] === 0, "the server to unsubscribe");
    const second = await readSse(`${base}/runs/${runId}/events`, { lastEventId: first.lastEventId });
    expect(second.status).toBe(200);
    const messages = [...first.messages, ...second.messages];
    const seqs = eventSeqs(messages);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(textOf(messages)).toBe("Doubling 11.11 doubled is 22.");
    expect(messages.at(-1)).toMatchObject({ event: "output" });
    // Every recorded event but the text, once, in order; the text once (live, or whole from the record).
    const nonToken = (await fixture.store.readEvents(runId)).filter((event) => event.type !== "model_call" && event.type !== "token");
    expect(eventSeqs(messages.filter((message) => message.event !== "token"))).toEqual(nonToken.map((event) => event.seq));
    // Reconnecting after the end: 204, which tells an EventSource to stop.
    expect((await readSse(`${base}/runs/${runId}/events`, { lastEventId: second.lastEventId })).status).toBe(204);
  });

  it("ends a cancelled run's stream with an end event, answers 404 for an unknown run and 400 for a bad Last-Event-ID", async () => {
    let started = false;
    fixture.worker({ hang: () => doublingExecutor({ toolMs: 60_000, onTool: () => (started = true) }) });
    const runId = await client.submit("hang", { input: "double 3" });
    const reading = readSse(`${base}/runs/${runId}/events`);
    await until(() => started, "the tool to start");
    await client.cancel(runId);
    const read = await reading;
    expect(read.messages.at(-1)?.event).toBe("end");
    expect(JSON.parse(read.messages.at(-1)?.data ?? "{}")).toMatchObject({ runId, status: "cancelled" });
    expect((await readSse(`${base}/runs/nope/events`)).status).toBe(404);
    for (const lastEventId of ["x", "1e308", "0x10", "-1", "2.5"]) {
      expect((await readSse(`${base}/runs/${runId}/events`, { lastEventId })).status, lastEventId).toBe(400);
    }
  });

  it("answers a run that waits in the queue at once, with its headers and heartbeats (a proxy keeps it open); 400 for a run id no store takes", async () => {
    const runId = await client.submit("double", { input: "double 5" }); // no worker: it stays queued
    const first = await new Promise<{ status: number | undefined; text: string }>((resolve, reject) => {
      const req = get(`${base}/runs/${runId}/events`, (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => {
          text += String(chunk);
          if (!text.includes("\n\n")) return;
          resolve({ status: res.statusCode, text });
          req.destroy();
        });
      });
      req.on("error", reject);
    });
    expect(first.status).toBe(200);
    expect(first.text).toBe(": keep-alive\n\n");
    for (const id of ["%00", "x".repeat(1100)]) {
      const read = await readSse(`${base}/runs/${id}/events`);
      expect(read.status, id.slice(0, 5)).toBe(400);
    }
  });

  it("holds a bounded number of bytes for each of five clients that never read a 100k-token run, drops them, and the run still finishes", async () => {
    const max = 64 * 1024;
    const words = 100_000;
    // The model answers once the five clients follow the run live, and the run's answer is written
    // once they were dropped: else a run that ended first reaches them from the record, as one
    // event of the whole text, instead of as the live tokens this test is about.
    let release = (): void => undefined;
    const following = new Promise<void>((resolve) => (release = resolve));
    const text = Array.from({ length: words }, (_, i) => `w${i}`).join(" ");
    const llm = new ScriptedChatModel({ streaming: true, responses: [() => following.then(() => text)] });
    let dropped = (): void => undefined;
    const allDropped = new Promise<void>((resolve) => (dropped = resolve));
    const store = fixture.store;
    const write = store.write.bind(store);
    store.write = async (id, change) => {
      if (change.update?.closeInbox !== undefined) await allDropped;
      return write(id, change);
    };
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    fixture.worker({ talk: () => new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [], prompt }), tools: [] }) });
    const runId = await client.submit("talk", { input: "talk" });
    const responses: ServerResponse[] = [];
    const served: Promise<void>[] = [];
    let peak = 0;
    const origin = await startLoopback((req, res) => {
      responses.push(res);
      served.push(serveRunEvents(client, runId, req, res, { heartbeatMs: 60_000, maxBufferedBytes: max }));
    });
    const sampler = setInterval(() => {
      for (const res of responses) peak = Math.max(peak, res.writableLength);
    }, 2);
    try {
      await Promise.all(Array.from({ length: 5 }, () => stalledClient(origin, `GET /runs/${runId}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)));
      await expect.poll(() => served.length, { timeout: 10_000 }).toBe(5);
      const channel = `${servers.prefix}:${fixture.queueName}:agentrx:run:${runId}`;
      await until(async () => responses.every((res) => res.headersSent) && ((await redis.pubsub("NUMSUB", channel)) as [string, number])[1] > 0, "the clients to follow the run");
      release();
      // Each client is dropped once what it has not read passes the bound; the server stops following the run for it.
      await Promise.all(served);
      dropped();
      for (const res of responses) expect(res.writableEnded).toBe(true);
      await until(async () => ((await redis.pubsub("NUMSUB", channel)) as [string, number])[1] === 0, "the server to unsubscribe");
      expect(peak).toBeGreaterThan(0);
      expect(peak).toBeLessThanOrEqual(max + 1024);
      // The run itself is not held back by its slow readers.
      const result = await client.result(runId);
      expect(String(result.output).split(" ")).toHaveLength(words);
    } finally {
      dropped();
      delete (store as { write?: unknown }).write;
      clearInterval(sampler);
      await closeLoopback();
    }
  }, 120_000);

  it("pauses the replay of a run's record while a slow client's socket is full: it is not dropped, and the server holds at most the bound", async () => {
    const max = 256 * 1024;
    const calls = 160;
    // A finished run whose record is about 4 MB: many steps with 25 KB observations.
    const big = tool(async ({ n }: { n: number }) => `${n}:${"y".repeat(25_000)}`, { name: "big", description: "Returns a lot.", schema: z.object({ n: z.number() }) });
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: Array.from({ length: calls }, (_, n) => ({ name: "big", args: { n } })) }, "done"] });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    fixture.worker({ big: () => new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [big], prompt }), tools: [big] }) });
    const runId = await client.submit("big", { input: "go" });
    expect((await client.result(runId)).output).toBe("done");
    const responses: ServerResponse[] = [];
    let peak = 0;
    const origin = await startLoopback((req, res) => {
      responses.push(res);
      void serveRunEvents(client, runId, req, res, { heartbeatMs: 60_000, maxBufferedBytes: max });
    });
    const sampler = setInterval(() => {
      for (const res of responses) peak = Math.max(peak, res.writableLength);
    }, 2);
    try {
      // A client that reads one chunk, then waits a little before the next.
      const text = await new Promise<string>((resolve, reject) => {
        get(`${origin}/runs/${runId}/events`, (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => {
            chunks.push(chunk);
            res.pause();
            setTimeout(() => res.resume(), 3);
          });
          res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
          res.on("error", reject);
        }).on("error", reject);
      });
      expect(text).not.toContain("event: dropped");
      expect(text.match(/^event: step$/gm)?.length).toBe(calls);
      expect(text).toMatch(/event: output\n[^]*"done"[^]*\n\n$/);
      expect(peak).toBeGreaterThan(0);
      expect(peak).toBeLessThanOrEqual(max);
    } finally {
      clearInterval(sampler);
      await closeLoopback();
    }
  }, 120_000);
});
