// serveRunEvents and events larger than `maxBufferedBytes` (a tool's big output, a model quoting it):
// a client that reads gets them, replayed from the record or live, and is not dropped; a client that
// reconnects with the `dropped` frame's `lastEventId` gets every event exactly once.
import type { ServerResponse } from "node:http";
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import type { BaseMessage } from "@langchain/core/messages";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { closeLoopback, startLoopback } from "../../../runs/src/sse/loopback-test-server";
import type { RunClient } from "../client/run-client";
import { type QueueFixture, queueFixture } from "../test-helpers/queue-fixture";
import { type SseMessage, readSse } from "../test-helpers/sse-client";
import { testServers, until } from "../test-helpers/test-servers";
import { serveRunEvents } from "./serve-run-events";

const servers = await testServers("serveRunEvents and large events");

const max = 64 * 1024;
const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);

describe.skipIf(servers.skip)("serveRunEvents and events larger than maxBufferedBytes (Redis, PostgreSQL)", () => {
  let fixture: QueueFixture;
  let client: RunClient;
  let redis: Redis;
  let origin: string;
  beforeAll(() => {
    servers.assertReachable();
    redis = new Redis(servers.redisUrl);
    fixture = queueFixture(servers, "sse-large-test");
  });
  beforeEach(async () => {
    fixture.next();
    client = fixture.client();
    origin = await startLoopback((req, res: ServerResponse) => {
      const match = /^\/runs\/([^/]+)\/events$/.exec(req.url ?? "");
      if (match?.[1]) void serveRunEvents(client, decodeURIComponent(match[1]), req, res, { heartbeatMs: 60_000, maxBufferedBytes: max });
      else res.writeHead(404).end();
    });
  });
  afterEach(closeLoopback);
  afterAll(async () => {
    await fixture?.close();
    redis?.disconnect();
    await servers.cleanup();
  });

  /** The seqs of the recorded events a client is shown (all but `model_call`s). */
  const recordedSeqs = async (runId: string) => (await fixture.store.readEvents(runId)).filter((event) => event.type !== "model_call").map((event) => event.seq);
  const eventSeqs = (messages: SseMessage[]) => messages.filter((message) => message.hasId).map((message) => Number(message.lastEventId));

  /** Reads the stream as an EventSource does: reconnecting with `Last-Event-ID` after a drop, until the run's output. */
  async function readAll(runId: string): Promise<{ messages: SseMessage[]; drops: number }> {
    const messages: SseMessage[] = [];
    let lastEventId: string | undefined;
    for (let drops = 0; drops < 20; drops++) {
      const read = await readSse(`${origin}/runs/${runId}/events`, lastEventId === undefined ? {} : { lastEventId });
      const dropped = read.messages.find((message) => message.event === "dropped");
      messages.push(...read.messages.filter((message) => message.event !== "dropped"));
      if (dropped === undefined) return { messages, drops };
      lastEventId = String((JSON.parse(dropped.data) as { lastEventId: string | null }).lastEventId ?? "0");
    }
    throw new Error("still dropped after 20 reconnections");
  }

  it("replays a finished run whose tool returned more than the bound to a client that reads, every time, and every event once", async () => {
    const big = tool(async () => `found:${"x".repeat(300_000)}`, { name: "big", description: "Returns a lot.", schema: z.object({}) });
    // The answer quotes the tool's output: a recorded token larger than the bound too.
    const quote = (messages: BaseMessage[]) => `It says ${String(messages.find((message) => message.getType() === "tool")?.content).slice(0, 100_000)}`;
    const llm = new ScriptedChatModel({ streaming: true, responses: [{ toolCalls: [{ name: "big", args: {} }] }, quote] });
    fixture.worker({ big: () => new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [big], prompt }), tools: [big] }) });
    const runId = await client.submit("big", { input: "go" });
    await client.result(runId);
    const expected = await recordedSeqs(runId);
    // As an EventSource reads it (reconnecting with the lastEventId of any drop): each event once.
    const { messages, drops } = await readAll(runId);
    expect(eventSeqs(messages)).toEqual(expected);
    expect(drops).toBe(0);
    const step = messages.find((message) => message.event === "step")?.data ?? "";
    expect(step.length).toBeGreaterThan(max);
    expect(step.includes("x".repeat(90_000))).toBe(true); // the observation the model was shown, whole
    // Again and again: a replay is not dropped at the same place every time.
    for (let attempt = 0; attempt < 3; attempt++) {
      const read = await readSse(`${origin}/runs/${runId}/events`);
      expect(read.messages.filter((message) => message.event === "dropped")).toEqual([]);
      expect(eventSeqs(read.messages)).toEqual(expected);
      expect(read.messages.at(-1)?.event).toBe("output");
    }
  }, 60_000);

  it("gives a live token larger than the bound, in the same batch as small ones, to a follower that reads", async () => {
    let release = (): void => undefined;
    const following = new Promise<void>((resolve) => (release = resolve));
    const words = Array.from({ length: 50 }, (_, i) => `w${i}`).join(" ");
    const text = `${words} ${"L".repeat(300_000)} ${words}`;
    const llm = new ScriptedChatModel({ streaming: true, responses: [() => following.then(() => text)] });
    fixture.worker({ talk: () => new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [], prompt }), tools: [] }) });
    const runId = await client.submit("talk", { input: "talk" });
    const reading = readSse(`${origin}/runs/${runId}/events`);
    const channel = `${servers.prefix}:${fixture.queueName}:agentrx:run:${runId}`;
    await until(async () => ((await redis.pubsub("NUMSUB", channel)) as [string, number])[1] > 0, "the client to follow the run");
    release();
    const read = await reading;
    expect(read.messages.filter((message) => message.event === "dropped")).toEqual([]);
    expect(read.messages.at(-1)?.event).toBe("output");
    const shown = read.messages.filter((message) => message.event === "token").map((message) => (JSON.parse(message.data) as { text: string }).text);
    expect(shown.join("")).toBe(text);
  }, 60_000);
});
