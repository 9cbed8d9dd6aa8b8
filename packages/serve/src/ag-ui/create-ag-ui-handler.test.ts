import type { ServerResponse } from "node:http";
import type { AgentExecutor, AgentStreamEvent } from "@agentrx/executors";
import { deferred } from "@agentrx/core/testing";
import { MemoryRunStore } from "@agentrx/runs";
import { tool } from "@langchain/core/tools";
import { Observable, filter, lastValueFrom } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { closeLoopback, stalledClient, startLoopback } from "../../../runs/src/sse/loopback-test-server";
import { recordingAgent } from "../test-helpers/ag-ui-recording-agent";
import { chunkedUpload } from "../test-helpers/chunked-upload";
import { ANSWER, weatherExecutor } from "../test-helpers/weather-executor";
import { workExecutor } from "../test-helpers/work-executor";
import { createAGUIHandler } from "./create-ag-ui-handler";

afterEach(closeLoopback);

const serve: typeof startLoopback = async (handler) => `${await startLoopback(handler)}/agent`;

describe("createAGUIHandler, driven by @ag-ui/client's HttpAgent", () => {
  it("runs the agent: the client ends with the assistant's text and both tool calls", async () => {
    const url = await serve(createAGUIHandler(weatherExecutor()));
    const { agent, events, subscriber } = recordingAgent(url, "thread-1");
    agent.messages = [{ id: "u1", role: "user", content: "Weather and time in Paris?" }];
    const result = await agent.runAgent({ runId: "run-1" }, subscriber);
    expect(result.result).toBe(ANSWER);
    expect(events[0]).toMatchObject({ type: "RUN_STARTED", threadId: "thread-1", runId: "run-1" });
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
    const assistant = agent.messages.filter((message) => message.role === "assistant");
    expect(assistant.map((message) => message.content).join("")).toBe(`Let me check. ${ANSWER}`);
    expect(assistant.flatMap((message) => (message.role === "assistant" ? (message.toolCalls ?? []) : [])).map((call) => [call.function.name, JSON.parse(call.function.arguments)])).toEqual([
      ["get_weather", { city: "Paris" }],
      ["get_time", { city: "Paris" }],
    ]);
    expect(agent.messages.filter((message) => message.role === "tool").map((message) => message.content)).toEqual(["sunny in Paris", "14:05 in Paris"]);
  });

  it("pauses for approval (state snapshot, interrupt outcome) and resumes with the client's resume entries", async () => {
    const url = await serve(createAGUIHandler(weatherExecutor({ approval: true, store: new MemoryRunStore() })));
    const { agent, events, subscriber } = recordingAgent(url, "thread-2");
    agent.messages = [{ id: "u1", role: "user", content: "Weather and time in Paris?" }];
    await agent.runAgent({ runId: "run-2" }, subscriber);
    const finished = events.at(-1) as { type: string; outcome?: { type: string; interrupts: { id: string; toolCallId?: string }[] } };
    expect(finished).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "interrupt" } });
    expect(agent.state).toMatchObject({ agentrx: { runId: "run-2", status: "interrupted" } });
    const interrupt = finished.outcome?.interrupts[0];
    events.length = 0;
    const resumed = await agent.runAgent({ runId: "run-2b", resume: [{ interruptId: interrupt?.id ?? "", status: "resolved", payload: { approved: true } }] }, subscriber);
    expect(resumed.result).toBe(ANSWER);
    expect(events.filter((event) => event.type === "TOOL_CALL_RESULT")).toMatchObject([{ toolCallId: interrupt?.toolCallId, content: "14:05 in Paris" }]);
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", runId: "run-2b", outcome: { type: "success" } });
  });

  it("refuses what is not a RunAgentInput", async () => {
    const url = await serve(createAGUIHandler(weatherExecutor(), { maxBodyBytes: 1000 }));
    const post = (body: string) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
    const get = await fetch(url);
    // A 405 says which method the endpoint takes (RFC 9110 requires the Allow header).
    expect([get.status, get.headers.get("allow")]).toEqual([405, "POST"]);
    expect((await post("{")).status).toBe(400);
    expect(await (await post(JSON.stringify({ threadId: "t", messages: [] }))).text()).toMatch(/runId/);
    expect((await post(JSON.stringify({ threadId: "t", runId: "r", messages: [], resume: [{ interruptId: "x", status: "resolved" }] }))).status).toBe(400);
    expect((await post(JSON.stringify({ threadId: "t", runId: "r", messages: [{ role: "user", content: "x".repeat(2000) }] }))).status).toBe(413);
    // A message or a resume entry that is not one: 400 naming it, not a 500 from reading it.
    for (const [body, reason] of [
      [{ messages: [null] }, "`messages[0]` must be a message: an object with a string `role`.\n"],
      [{ messages: [{ id: "u1", role: "user", content: "Hi" }, 7] }, "`messages[1]` must be a message: an object with a string `role`.\n"],
      [{ messages: [], resume: [null], state: { agentrx: { runId: "p" } } }, '`resume[0]` must be a resume entry: an object with a non-empty string `interruptId` and a `status` of "resolved" or "cancelled".\n'],
      [{ messages: [], resume: [{ interruptId: "call-0-0", status: "approved" }], state: { agentrx: { runId: "p" } } }, '`resume[0]` must be a resume entry: an object with a non-empty string `interruptId` and a `status` of "resolved" or "cancelled".\n'],
    ] as const) {
      const response = await post(JSON.stringify({ threadId: "t", runId: "r", ...body }));
      expect([response.status, await response.text()]).toEqual([400, reason]);
    }
    const notJson = await fetch(url, { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" });
    expect(notJson.status).toBe(415);
    expect(await notJson.text()).toBe('The body must be JSON (content-type: application/json), got content-type "text/plain".\n');
  });

  it("answers 413 naming the limit to a multi-megabyte chunked upload, without resetting the client, and serves the next request", async () => {
    const url = await serve(createAGUIHandler(weatherExecutor()));
    for (let attempt = 0; attempt < 3; attempt++) {
      const outcome = await chunkedUpload(url, 8 * 1024 * 1024);
      expect(outcome).toEqual({ status: 413, connection: "close", text: "The request body is larger than 1048576 bytes (`maxBodyBytes`).\n", errors: [] });
    }
    const { agent, subscriber } = recordingAgent(url, "thread-after-413");
    agent.messages = [{ id: "u1", role: "user", content: "Weather and time in Paris?" }];
    expect((await agent.runAgent({ runId: "run-after-413" }, subscriber)).result).toBe(ANSWER);
  });

  it("holds a bounded number of bytes for each of five clients that never read a 100k-token run", async () => {
    const max = 64 * 1024;
    const responses: ServerResponse[] = [];
    let peak = 0;
    let unsubscribed = 0;
    // A run of 100,000 tokens, emitted in batches as a fast model would (it cannot pause).
    const tokens = new Observable<AgentStreamEvent>((subscriber) => {
      subscriber.next({ type: "start", runId: "big", inputs: {}, resumed: false, at: 0 });
      let sent = 0;
      const batch = () => {
        for (let i = 0; i < 1000 && sent < 100_000; i++, sent++) subscriber.next({ type: "token", iteration: 0, at: 0, text: `token${sent} ` });
        for (const res of responses) peak = Math.max(peak, res.writableLength);
        if (sent < 100_000) timer = setImmediate(batch);
        else subscriber.complete();
      };
      let timer = setImmediate(batch);
      return () => {
        unsubscribed++;
        clearImmediate(timer);
      };
    });
    const executor = { stream: () => tokens } as unknown as AgentExecutor;
    const handler = createAGUIHandler(executor, { maxBufferedBytes: max });
    const origin = await startLoopback((req, res) => {
      responses.push(res);
      void handler(req, res);
    });
    const body = JSON.stringify({ threadId: "t", runId: "r", messages: [{ id: "u", role: "user", content: "talk" }] });
    const request = `POST /agent HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    await Promise.all(Array.from({ length: 5 }, () => stalledClient(origin, request)));
    await expect.poll(() => unsubscribed, { timeout: 15_000 }).toBe(5);
    expect(responses).toHaveLength(5);
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(max + 1024);
    for (const res of responses) expect(res.writableEnded).toBe(true);
  });

  it("survives a client that goes away mid-body: the handler resolves, onError hears of it, the next request is served", async () => {
    const heard: unknown[] = [];
    const withHook = createAGUIHandler(weatherExecutor(), { onError: (error) => (heard.push(error), "failed") });
    const withoutHook = createAGUIHandler(weatherExecutor());
    const outcomes: Promise<string>[] = [];
    const origin = await startLoopback((req, res) => {
      const handler = req.url === "/agent" ? withHook : withoutHook;
      outcomes.push(handler(req, res).then(() => "resolved", (error: unknown) => `rejected: ${String(error)}`));
    });
    const halfBody = (path: string) => `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"threadId":`;
    for (const path of ["/agent", "/plain"]) {
      const socket = await stalledClient(origin, halfBody(path));
      await expect.poll(() => outcomes.length).toBeGreaterThan(path === "/agent" ? 0 : 1);
      await new Promise((resolve) => setTimeout(resolve, 100)); // the half body reached the server
      socket.destroy();
    }
    expect(await Promise.all(outcomes)).toEqual(["resolved", "resolved"]);
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatchObject({ code: "ECONNRESET" });
    const { agent, subscriber } = recordingAgent(`${origin}/agent`, "thread-next");
    agent.messages = [{ id: "u1", role: "user", content: "Weather and time in Paris?" }];
    expect((await agent.runAgent({ runId: "run-next" }, subscriber)).result).toBe(ANSWER);
  });

  it("answers RUN_ERROR with onError's text, in a 200 stream, when the executor throws before the run starts", async () => {
    const executor = {
      stream: () => {
        throw new Error("secret detail");
      },
    } as unknown as AgentExecutor;
    const heard: unknown[] = [];
    const url = await serve(createAGUIHandler(executor, { onError: (error) => (heard.push(error), "The agent is unavailable.") }));
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ threadId: "t", runId: "r", messages: [{ id: "u1", role: "user", content: "Hi" }] }) });
    expect([response.status, response.headers.get("content-type")?.split(";")[0]]).toEqual([200, "text/event-stream"]);
    const events = (await response.text()).split("\n\n").filter((frame) => frame.startsWith("data: ")).map((frame) => JSON.parse(frame.slice("data: ".length)));
    expect(events.map((event) => [event.type, event.message])).toEqual([
      ["RUN_STARTED", undefined],
      ["RUN_ERROR", "The agent is unavailable."],
    ]);
    expect(heard).toMatchObject([{ message: "secret detail" }]);
  });

  it("cancels the run when its client goes away (a closed page, a stop), and a run store records it cancelled, to be resumed", async () => {
    const store = new MemoryRunStore();
    const started = deferred<void>();
    let calls = 0;
    let aborted = false;
    // The first call waits until the run is cancelled; the one of the resumed run answers at once.
    const work = tool(
      async ({ name }: { name: string }, config) => {
        if (++calls > 1) return `${name} done`;
        started.resolve();
        return new Promise<string>((_, reject) => config?.signal?.addEventListener("abort", () => ((aborted = true), reject(new Error("aborted")))));
      },
      { name: "work", description: "Works.", schema: z.object({ name: z.string() }) },
    );
    const executor = workExecutor(work, [{ toolCalls: [{ name: "work", args: { name: "a" } }] }, "Done."], { store });
    const url = await serve(createAGUIHandler(executor));
    const client = new AbortController();
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ threadId: "t", runId: "gone", messages: [{ id: "u1", role: "user", content: "go" }] }), signal: client.signal });
    expect(response.status).toBe(200);
    await started.promise;
    client.abort(); // the client goes away while the call runs
    await expect.poll(async () => (await store.getRun("gone"))?.status).toBe("cancelled");
    expect(aborted).toBe(true);
    // With the store, the server carries the run on: the call cut off runs again (docs/serving.md).
    const output = await lastValueFrom(executor.resume("gone").pipe(filter((event) => event.type === "output")));
    expect([output.output, calls, (await store.getRun("gone"))?.status]).toEqual(["Done.", 2, "finished"]);
  });
});
