import { createServer } from "node:http";
import type { ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { InMemoryTaskStore } from "@a2a-js/sdk/server";
import { InvalidArgumentError } from "@agentrx/core";
import { MemoryRunStore } from "@agentrx/runs";
import { EMPTY, lastValueFrom, of, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import {
  a2aTool,
  createA2AHandler,
  createAGUIHandler,
  followRecordedRun,
  toAGUIEvents,
  toUIMessageChunks,
  toUIMessageStream,
  toUIMessageStreamResponse,
  writeResponse,
} from "./index";
import { weatherExecutor } from "./test-helpers/weather-executor";

const card = { name: "Weather", description: "Tells the weather." };

/** A Node response that only records what was written: enough for a `Response` without a body. */
function recordingResponse(): ServerResponse & { status?: number; ended: boolean } {
  const res = {
    ended: false,
    status: undefined as number | undefined,
    writeHead(status: number) {
      res.status = status;
      return res;
    },
    end() {
      res.ended = true;
      return res;
    },
  };
  return res as unknown as ServerResponse & { status?: number; ended: boolean };
}

describe("@agentrx/serve's options refuse a misspelt key instead of ignoring it", () => {
  const executor = weatherExecutor();
  const store = new MemoryRunStore();

  it.each([
    ["toUIMessageChunks", () => toUIMessageChunks({ messageID: "m1" } as never), /^toUIMessageChunks: unknown option `messageID`; did you mean `messageId`\? Known options: messageId, onError, earlierUsage\.$/],
    ["toUIMessageStream", () => toUIMessageStream(EMPTY, { maxBufferedChunk: 5 } as never), /^toUIMessageStream: unknown option `maxBufferedChunk`; did you mean `maxBufferedChunks`\? Known options: messageId, onError, maxBufferedChunks, earlierUsage\.$/],
    [
      "toUIMessageStreamResponse",
      () => toUIMessageStreamResponse(EMPTY, { maxBufferedChunk: 5 } as never),
      /^toUIMessageStreamResponse: unknown option `maxBufferedChunk`; did you mean `maxBufferedChunks`\? Known options: headers, status, statusText, messageId, onError, maxBufferedChunks/,
    ],
    ["toAGUIEvents", () => toAGUIEvents(EMPTY, { threadId: "t1", runId: "r1", onErorr: () => "x" } as never), /^toAGUIEvents: unknown option `onErorr`; did you mean `onError`\? Known options: threadId, runId, onError\.$/],
    ["createAGUIHandler", () => createAGUIHandler(executor, { heartbeat: 10 } as never), /^createAGUIHandler: unknown option `heartbeat`; did you mean `heartbeatMs`\? Known options: inputs, onError, maxBodyBytes, maxBufferedBytes, heartbeatMs\.$/],
    ["createA2AHandler", () => createA2AHandler(executor, { agentcard: card } as never), /^createA2AHandler: unknown option `agentcard`; did you mean `agentCard`\? Known options: agentCard, path, onError, maxBodyBytes, taskStore, toInputs, maxBufferedBytes, heartbeatMs\.$/],
    ["followRecordedRun", () => followRecordedRun(store, "run-1", { pollMS: 10 } as never), /^followRecordedRun: unknown option `pollMS`; did you mean `pollMs`\? Known options: pollMs\.$/],
  ])("%s", (_name, make, message) => {
    expect(make).toThrow(InvalidArgumentError);
    expect(make).toThrow(message);
  });

  it("writeResponse rejects before writing anything", async () => {
    const res = recordingResponse();
    await expect(writeResponse(new Response(null), res, { maxBufferBytes: 10 } as never)).rejects.toThrow(/^writeResponse: unknown option `maxBufferBytes`; did you mean `maxBufferedBytes`\? Known options: maxBufferedBytes\.$/);
    expect(res.status).toBeUndefined();
  });

  it("a2aTool rejects before reading the agent card", async () => {
    // No server listens on this port: had the card been fetched, the error would be a network one.
    const error = await a2aTool({ url: "http://127.0.0.1:9", nmae: "weather" } as never).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as InvalidArgumentError).argument).toBe("nmae");
    expect((error as Error).message).toBe("a2aTool: unknown option `nmae`; did you mean `name`? Known options: url, name, description, timeoutMs.");
  });

  it("toAGUIEvents refuses ids every event needs that are missing or not strings", () => {
    expect(() => toAGUIEvents(EMPTY, undefined as never)).toThrow(/toAGUIEvents: pass \{ threadId, runId \}/);
    expect(() => toAGUIEvents(EMPTY, { threadId: "t1" } as never)).toThrow(/toAGUIEvents: `runId` must be a non-empty string \(the RunAgentInput's\), got undefined\./);
    expect(() => toAGUIEvents(EMPTY, { threadId: 7, runId: "r1" } as never)).toThrow(/toAGUIEvents: `threadId` must be a non-empty string/);
    expect(() => toAGUIEvents(EMPTY, { threadId: "t1", runId: "r1", onError: "x" } as never)).toThrow(/`onError` must be a function/);
  });

  it("takes every option it documents", async () => {
    const chunks = await lastValueFrom(executor.stream({ input: "Weather in Paris?" }).pipe(toUIMessageChunks({ messageId: "m1", onError: () => "failed" }), toArray()));
    expect(chunks[0]).toEqual({ type: "start", messageId: "m1", messageMetadata: expect.any(Object) });

    const stream = toUIMessageStream(EMPTY, { messageId: "m2", onError: () => "failed", maxBufferedChunks: 5 });
    await stream.cancel();

    const response = toUIMessageStreamResponse(EMPTY, { status: 201, statusText: "Created", headers: { "x-request-id": "42" }, messageId: "m3", onError: () => "failed", maxBufferedChunks: 5 });
    expect([response.status, response.statusText, response.headers.get("x-request-id")]).toEqual([201, "Created", "42"]);
    await response.body?.cancel();
    // A key some runtimes' `ResponseInit` adds (Cloudflare Workers') is passed on, not refused.
    const workers = toUIMessageStreamResponse(EMPTY, { encodeBody: "automatic" } as never);
    expect(workers.status).toBe(200);
    await workers.body?.cancel();

    const events = await lastValueFrom(toAGUIEvents(of(), { threadId: "t1", runId: "r1", onError: () => "failed" }).pipe(toArray()));
    expect(events).toEqual([expect.objectContaining({ type: "RUN_STARTED", threadId: "t1", runId: "r1" }), expect.objectContaining({ type: "RUN_FINISHED", threadId: "t1", runId: "r1" })]);

    expect(createAGUIHandler(executor, { inputs: () => ({ input: "hi" }), onError: () => "failed", maxBodyBytes: 10, maxBufferedBytes: 10, heartbeatMs: 10 })).toBeTypeOf("function");

    const taskStore = new InMemoryTaskStore();
    const handler = createA2AHandler(executor, {
      agentCard: card,
      path: "/a2a",
      onError: () => "failed",
      maxBodyBytes: 10,
      taskStore,
      toInputs: () => ({ input: "hi" }),
      maxBufferedBytes: 10,
      heartbeatMs: 10,
    });
    expect(handler.agentCard.name).toBe("Weather");

    expect(followRecordedRun(store, "run-1", { pollMs: 10 })).toBeDefined();

    const res = recordingResponse();
    await writeResponse(new Response(null, { status: 204 }), res, { maxBufferedBytes: 10 });
    expect([res.status, res.ended]).toEqual([204, true]);

    const server = createServer(createA2AHandler(executor, { agentCard: card }));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const weather = await a2aTool({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, name: "weather_agent", description: "Asks the weather agent." });
      expect([weather.name, weather.description]).toEqual(["weather_agent", "Asks the weather agent."]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
